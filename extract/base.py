"""The contract of a source: fetch (the only I/O) returns raw payloads; parse is pure."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING

from chipcost.archive import ArchiveWriter
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.core.settings import SourceSettings

if TYPE_CHECKING:  # imported by the sources that fetch over HTTP, not by every importer
    import threading

    import httpx


def _no_progress(message: str) -> None:
    return None


@dataclass
class FetchContext:
    """What a fetch needs from the run.

    `archive.write(data, url, request=...)` must be called for every payload as soon as it
    arrives, before parsing, so that nothing fetched is lost even if a later page fails.
    Keys and endpoints come from `settings` (read from the environment once, by
    chipcost.core.settings); `transport` and `sleep` are for tests to fake HTTP and waits.
    """

    archive: ArchiveWriter
    progress: Callable[[str], None] = _no_progress
    settings: SourceSettings = field(default_factory=SourceSettings)
    transport: httpx.BaseTransport | None = None
    sleep: Callable[[float], None] | None = None
    # Where large downloads are staged (aws-bulk): always a local directory, even when the
    # archive is on object storage. None: <data dir>/downloads beside a local archive.
    download_dir: Path | None = None
    # Set when whoever runs the fetch gives up on it (a backfill stopped, Ctrl-C): a large
    # download stops at its next chunk and keeps what arrived for the next run to resume.
    stop: threading.Event | None = None


@dataclass(frozen=True)
class Source:
    """One registered source: its name is the `source` column of the records it yields."""

    name: str
    provider: str
    description: str
    fetch: Callable[[FetchContext], list[Payload]]
    parse: Callable[[Sequence[Payload]], ParseResult]
    # False for a provider registered only to say why its prices are not collected: it is
    # never stale, and `chipcost sources` says "not collected" rather than "never run".
    collected: bool = True
