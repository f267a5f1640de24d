"""A source's manifest read back and checked, field by field: nothing in the archive is
trusted, so a manifest too large, too deep or malformed is refused naming the file and field."""

from __future__ import annotations

import json
import re
from dataclasses import dataclass, field
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.archive.runs import unfinished_sources
from chipcost.archive.store import MANIFEST, check_file, fetch_object, is_remote, location
from chipcost.core.errors import ArchiveError

# A payload's name as the writer makes it (0001.json.gz): one file of the source's directory,
# so no '/', no '..', no absolute path can lead a replay out of the archive.
PAYLOAD_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]*(\.[0-9A-Za-z_-]+)*\.gz")
# The longest file name a file system takes (NAME_MAX, in bytes; the names are ASCII): a longer
# one cannot be a payload's file, whatever its characters (the writer's are 12 long).
PAYLOAD_NAME_MAX = 255
SHA256 = re.compile(r"[0-9a-f]{64}")
RESTORE = "restore the manifest from a backup, or remove this source's directory from the run"
# A manifest lists a source's payloads of one run, some 300 bytes each, nested a few levels
# (payloads, an entry, its request's filters): one larger or deeper is not what the writer
# wrote, and is refused before it is read whole or parsed (a JSON reader recurses per level).
MANIFEST_MAX_BYTES = 16 << 20
MANIFEST_MAX_DEPTH = 32
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


def read_manifest(source_dir: Path) -> dict[str, Any]:
    path = location(source_dir) / MANIFEST
    try:
        if is_remote(path):
            text = fetch_object(path, MANIFEST_MAX_BYTES + 1).decode("utf-8")
        else:
            check_file(path)
            with path.open("rb") as handle:
                text = handle.read(MANIFEST_MAX_BYTES + 1).decode("utf-8")
        _check_manifest_size(path, text)
        manifest = json.loads(text)
    except FileNotFoundError as exc:
        if source_dir.name in unfinished_sources(location(source_dir).parent):
            raise ArchiveError(
                f"{path} is missing, though the payloads beside it are there: the run "
                "stopped before writing it, or it was deleted; without it they are not "
                "replayed (restore the manifest from a backup, or fetch again)"
            ) from exc
        raise ArchiveError(f"{path} is missing: this source was not archived in this run") from exc
    except ValueError as exc:  # not JSON, not UTF-8, or a number past Python's 4,300 digits
        said = " ".join(str(exc).split())[:200]
        raise ArchiveError(
            f"{path} is cut short or not valid JSON ({said}); restore it from a backup"
        ) from exc
    if not isinstance(manifest, dict):
        raise ArchiveError(f"{path} is a JSON {type(manifest).__name__}, not an object; {RESTORE}")
    return manifest


def _check_manifest_size(path: Path, text: str) -> None:
    """A manifest within MANIFEST_MAX_BYTES and MANIFEST_MAX_DEPTH, or an ArchiveError."""
    if len(text) > MANIFEST_MAX_BYTES:
        raise ArchiveError(
            f"{path} is larger than {MANIFEST_MAX_BYTES >> 20} MiB: not a manifest chipcost "
            f"wrote; {RESTORE}"
        )
    if _deeper_than(text, MANIFEST_MAX_DEPTH):
        raise ArchiveError(
            f"{path} is nested deeper than {MANIFEST_MAX_DEPTH} levels (or its brackets do not "
            f"balance): not a manifest chipcost wrote; {RESTORE}"
        )


def _deeper_than(text: str, limit: int) -> bool:
    """True when the JSON text nests more than `limit` levels: its brackets outside strings,
    innermost pairs taken away one level a pass (no recursion, however deep the text). What
    is left of a text cut short, a few brackets opened and never closed, is no nesting: the
    parse says it is not JSON."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    for _ in range(limit):
        if not brackets:
            return False
        brackets = _INNERMOST.sub("", brackets)
    return bool(brackets) and not _cut_short(brackets, limit)


def _cut_short(brackets: str, limit: int) -> bool:
    """Only opening brackets left, no more than `limit`: a text that stops before it closes."""
    return len(brackets) <= limit and not any(c in brackets for c in "]}")


@dataclass(frozen=True)
class Entry:
    """One manifest entry, checked."""

    name: str
    sha256: str
    fetched_at: datetime
    url: str = ""
    request: dict[str, Any] = field(default_factory=dict)
    charset: str = ""
    # The payload's size as the writer counted it (None in an entry without the field): the
    # reader refuses a payload of another size (check_size).
    size: int | None = None


def manifest_entries(manifest: dict[str, Any], path: Path) -> list[Entry]:
    """The manifest's payload entries; a missing or malformed field names the file and field.
    The manifest must be its own source's (its `source`, when it has one, the directory's
    name), and list each payload once: one listed twice would be parsed twice."""
    _check_source(manifest, path)
    raw = manifest.get("payloads")
    if not isinstance(raw, list):
        raise ArchiveError(f"{path}: field 'payloads' is not a list of payloads; {RESTORE}")
    entries = [_entry(item, n, path) for n, item in enumerate(raw, start=1)]
    first: dict[str, int] = {}
    for n, entry in enumerate(entries, start=1):
        if (earlier := first.setdefault(entry.name, n)) != n:
            raise ArchiveError(
                f"{path}: payload {n} ({entry.name}): field 'name' names the file payload "
                f"{earlier} names: a payload listed twice would be parsed twice; {RESTORE}"
            )
    return entries


def _check_source(manifest: dict[str, Any], path: Path) -> None:
    """The manifest's `source` is the directory's it is in (archives before the field have
    none): one naming another source lists that source's payloads, not this one's."""
    if "source" not in manifest:
        return
    named, directory = manifest["source"], path.parent.name
    if not isinstance(named, str):
        raise ArchiveError(f"{path}: field 'source' is not a text; {RESTORE}")
    if named != directory:
        raise ArchiveError(
            f"{path}: field 'source' is {_shown(named)}, not {directory!r}, the source whose "
            f"directory holds it: not read as {directory}'s payloads; {RESTORE}"
        )


def _shown(value: object) -> str:
    """A manifest's value as a message shows it: its repr, cut past 60 characters."""
    said = repr(value)
    return said if len(said) <= 60 else said[:40] + "…"


def check_size(entry: Entry, n: int, size: int, path: Path) -> None:
    """The payload read for `entry`, the manifest's (at `path`) payload `n`, is the size the
    manifest says, or an ArchiveError naming the manifest and the field: its sha256 matched,
    so the field was changed, not the payload."""
    if entry.size is not None and entry.size != size:
        raise ArchiveError(
            f"{path}: payload {n} ({entry.name}): field 'bytes' says {entry.size:,}, but the "
            f"payload is {size:,} bytes: the manifest was changed; {RESTORE}"
        )


def _entry(item: object, n: int, path: Path) -> Entry:
    where = f"{path}: payload {n}"
    if not isinstance(item, dict):
        raise ArchiveError(f"{where} is a JSON {type(item).__name__}, not an object; {RESTORE}")
    if isinstance(item.get("name"), str):
        named = item["name"]
        where = f"{where} ({named if len(named) <= 60 else named[:40] + '…'})"
    name, digest, fetched = (_text(item, key, where) for key in ("name", "sha256", "fetched_at"))
    if len(name.encode("utf-8", "surrogatepass")) > PAYLOAD_NAME_MAX:
        raise ArchiveError(
            f"{where}: field 'name' is {len(name):,} characters long, longer than a file name "
            f"may be ({PAYLOAD_NAME_MAX} bytes): the manifest names a file no archive can hold, "
            f"not one chipcost wrote (e.g. 0001.json.gz); {RESTORE}"
        )
    if not PAYLOAD_NAME.fullmatch(name):
        raise ArchiveError(
            f"{where}: field 'name' is not a file name of this directory (no '/', '..' or "
            f"absolute path; e.g. 0001.json.gz); {RESTORE}"
        )
    if not SHA256.fullmatch(digest):
        raise ArchiveError(f"{where}: field 'sha256' is not 64 lower-case hex digits; {RESTORE}")
    try:
        fetched_at = datetime.fromisoformat(fetched)
    except ValueError:
        fetched_at = None
    if fetched_at is None or fetched_at.tzinfo is None:
        raise ArchiveError(
            f"{where}: field 'fetched_at' {fetched!r} is not an ISO 8601 time with a UTC "
            f"offset (e.g. 2026-11-21T06:00:03+00:00); {RESTORE}"
        )
    # The answer's Content-Type charset is kept where it named one (a web page is read by it).
    kept = {"url": item.get("url", ""), "request": item.get("request") or {}}
    kept["charset"] = item.get("charset", "")
    for key, kind in (("url", str), ("request", dict), ("charset", str)):
        if not isinstance(kept[key], kind):
            raise ArchiveError(f"{where}: field {key!r} has the wrong type; {RESTORE}")
    size = item.get("bytes")  # absent from manifests written before the field; never null
    if "bytes" in item and (type(size) is not int or size < 0):
        raise ArchiveError(
            f"{where}: field 'bytes' {_shown(size)} is not a whole number of bytes; {RESTORE}"
        )
    return Entry(name, digest, fetched_at, **kept, size=size)


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        state = "is missing" if value is None else "is not a text"
        raise ArchiveError(f"{where}: field {key!r} {state}; {RESTORE}")
    return value


def check_complete(manifest: dict[str, Any], source_dir: Path, count: int) -> None:
    complete = manifest.get("complete", True)  # archives before the field are whole
    if complete is False:
        raise ArchiveError(
            f"{source_dir}: the fetch of this source did not finish (the collector stopped "
            f"after {count} payload(s)): not loaded, since the offers it did not reach would "
            "be taken as withdrawn; its payloads stay archived"
        )
    if complete is not True:
        raise ArchiveError(
            f"{source_dir / MANIFEST}: field 'complete' is not true or false; {RESTORE}"
        )
