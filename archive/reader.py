"""The archive's reader: a source's payloads of one run, checked against its manifest and
inflated within the limits per payload, per source and per run."""

from __future__ import annotations

import gzip
import io
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from chipcost.archive.manifest import (
    check_complete,
    check_size,
    manifest_entries,
    read_manifest,
)
from chipcost.archive.runs import archived_sources
from chipcost.archive.store import (
    MANIFEST,
    check_dir,
    check_file,
    fetch_object,
    is_remote,
    location,
)
from chipcost.core.errors import ArchiveError
from chipcost.core.payload import Payload, sha256
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.settings import (
    DEFAULT_PAYLOAD_MAX_MB,
    DEFAULT_SOURCE_PAYLOADS_MAX_MB,
    RUN_PAYLOADS_MAX_ENV,
    SOURCE_PAYLOADS_MAX_ENV,
)

READ_BLOCK = 4 << 20


@dataclass
class ReadBudget:
    """Bytes a replay may still inflate, counted as they are: one budget per source (its
    run's payloads together), one per archived run (every source's together)."""

    limit: int
    variable: str
    what: str  # "per source", "per run"
    used: int = 0

    def take(self, size: int, path: Path) -> None:
        self.used += size
        if self.used > self.limit:
            raise ArchiveError(
                f"{path}: the payloads read {self.what.replace('per ', 'for this ')} inflate to "
                f"more than {self.limit / (1 << 20):g} MiB together, the limit {self.what} "
                f"({self.variable}): not read. Raise the limit if the provider really sent "
                f"that much, or replay the other sources alone ({COMMAND_LINE.name('source')})"
            )


def read_payloads(
    run_dir: Path,
    source: str,
    *,
    max_bytes: int = DEFAULT_PAYLOAD_MAX_MB << 20,
    max_source_bytes: int = DEFAULT_SOURCE_PAYLOADS_MAX_MB << 20,
    run_budget: ReadBudget | None = None,
) -> list[Payload]:
    """Every payload a source archived in one run, checked against its manifest.

    Nothing in the archive is trusted: names must be files of the source's own directory,
    each listed once, nothing on the way may be a symbolic link, every manifest field is
    checked (its `source` the directory's, each `bytes` the payload's size), and a
    payload is not inflated beyond max_bytes, nor the source's together beyond
    max_source_bytes, nor the run's (`run_budget`, shared by its sources) beyond its limit.
    """
    budgets = [ReadBudget(max_source_bytes, SOURCE_PAYLOADS_MAX_ENV, "per source")]
    budgets += [run_budget] if run_budget is not None else []
    run_dir = location(run_dir)
    source_dir = run_dir / source
    if not is_remote(run_dir):  # on object storage a missing directory is a missing manifest
        check_dir(run_dir)
        check_dir(source_dir)
    manifest = read_manifest(source_dir)
    entries = manifest_entries(manifest, source_dir / MANIFEST)
    check_complete(manifest, source_dir, len(entries))
    payloads = []
    for n, entry in enumerate(entries, start=1):
        path = source_dir / entry.name
        data = _inflate(path, max_bytes, budgets)
        if sha256(data) != entry.sha256:
            raise ArchiveError(
                f"{path} does not match its sha256 in the manifest: the file changed; restore "
                "it from a backup, or remove this source's directory from the run"
            )
        check_size(entry, n, len(data), source_dir / MANIFEST)
        payloads.append(
            Payload(
                data=data,
                url=entry.url,
                fetched_at=entry.fetched_at,
                name=entry.name,
                ref=f"{run_dir.name}/{source}/{entry.name}",
                request=entry.request,
                charset=entry.charset,
            )
        )
    return payloads


def is_sample(run_dir: Path) -> bool:
    """True when any source of this run is labelled as sample data."""
    for source in archived_sources(run_dir):
        try:
            manifest = read_manifest(location(run_dir) / source)
        except ArchiveError:
            continue  # that source fails on its own, with the reason
        if manifest.get("sample") is True:
            return True
    return False


_OVER_LIMIT = (
    "the limit per payload (CHIPCOST_PAYLOAD_MAX_MB): not read. Raise the limit if the "
    "provider really sent that much, or remove the file"
)


def run_budget(limit: int) -> ReadBudget:
    """The bytes one archived run's sources may inflate together (CHIPCOST_RUN_PAYLOADS_MAX_MB)."""
    return ReadBudget(limit, RUN_PAYLOADS_MAX_ENV, "per run")


def _not_empty(raw: Any, path: Path) -> None:
    """A payload file of 0 bytes is no gzip (even an empty payload is 20 bytes archived): it
    was cut short, said as such rather than as a sha256 that does not match."""
    if raw.seek(0, io.SEEK_END) == 0:
        raise ArchiveError(
            f"{path} is empty (0 bytes): it was cut short, not archived whole; restore it from "
            "a backup, or remove this source's directory from the run"
        )
    raw.seek(0)


def _inflate(path: Path, max_bytes: int, budgets: list[ReadBudget] | None = None) -> bytes:
    """A payload file uncompressed, refused as soon as it passes max_bytes or a budget."""
    chunks: list[bytes] = []
    size = 0
    try:
        if is_remote(path):
            # One GET, of no more than a payload within the limit can take compressed
            # (deflate adds at most 5 bytes a 64 KiB block, gzip a header): a larger object
            # is refused without being downloaded whole.
            cap = max_bytes + max_bytes // 1024 + 1024
            data = fetch_object(path, cap)
            if len(data) >= cap:
                raise ArchiveError(
                    f"{path} is larger than {max_bytes / (1 << 20):g} MiB even compressed, "
                    f"{_OVER_LIMIT}"
                )
            raw: Any = io.BytesIO(data)  # inflated below as a local file
        else:
            check_file(path)
            raw = path.open("rb")
        with raw, gzip.GzipFile(fileobj=raw, mode="rb") as stream:
            _not_empty(raw, path)
            while chunk := stream.read(READ_BLOCK):
                size += len(chunk)
                if size > max_bytes:
                    raise ArchiveError(
                        f"{path} inflates to more than {max_bytes / (1 << 20):g} MiB, {_OVER_LIMIT}"
                    )
                for budget in budgets or ():
                    budget.take(len(chunk), path)
                chunks.append(chunk)
    except FileNotFoundError as exc:
        raise ArchiveError(
            f"{path} is listed in the manifest but missing: restore it from a backup, or "
            "remove this source's directory from the run"
        ) from exc
    except (OSError, EOFError, zlib.error) as exc:
        raise ArchiveError(
            f"{path} is corrupt ({exc}); restore it from a backup, or remove this source's "
            "directory from the run"
        ) from exc
    return b"".join(chunks)
