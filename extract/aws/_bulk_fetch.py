"""Fetching for aws-bulk and the backfill: indexes archived whole, region CSVs as extracts.

A region's CSV (~300 MB) is streamed to <data dir>/downloads, filtered, and only the
extract (its head lines and the selected rows) is archived, with the original's URL, size,
sha256 and ETag in the manifest: AWS keeps every version at that URL, so the original can
be fetched and checked again (docs/archive.md). The extract is cached under the URL and the
filter's fingerprint, so an unchanged version is not downloaded twice: written only once the
file was read whole and found sound, and checked (its sha256 and row count) before reuse.
"""

from __future__ import annotations

import hashlib
import json
from collections.abc import Callable
from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.core.errors import ChipcostError, SourceError
from chipcost.core.payload import Payload
from chipcost.extract.aws._bulk_csv import (
    CsvHead,
    Selection,
    body_rows,
    filter_file,
    read_head,
    rows,
    split,
)
from chipcost.extract.aws._files import download, get_json
from chipcost.extract.aws._public import PublicFiles
from chipcost.extract.base import FetchContext

# The offer index, the root of every price list file AWS publishes.
OFFER_INDEX_PATH = "/offers/v1.0/aws/index.json"
EC2_OFFER = "AmazonEC2"
MEGABYTE = 1 << 20
# Progress is reported every this many bytes of a download (a 300 MB file: ~10 messages).
PROGRESS_STEP = 32 * MEGABYTE
# A downloaded file refused (not a price list, or not the columns needed) is archived cut to
# this, as a payload of this kind: enough to see what came (a page, gzip, UTF-16) without
# keeping 300 MB that AWS keeps at its versioned URL.
KEPT_BYTES = MEGABYTE
REFUSED = "refused"
# The kept extracts' JSON (_ExtractCache): 2 holds the extract's sha256 and row count. An
# extract kept without them (before 2) may be one of a file read as no rows: fetched again.
CACHE_FORMAT = 2

Progress = Callable[[str], None]


def archive_json(
    ctx: FetchContext, files: PublicFiles, path: str, kind: str
) -> tuple[Payload, Any]:
    """A JSON index, archived whole as it arrived; returns the payload and the parsed JSON."""
    url = files.url(path)
    data, body = get_json(files.client, url, files.source)
    payload = ctx.archive.write(data, url, request={"kind": kind})
    if not isinstance(body, dict):
        raise SourceError(f"{files.source}: {url} is a JSON {type(body).__name__}, not an object")
    return payload, body


def archive_region_index(
    ctx: FetchContext,
    files: PublicFiles,
    path: str,
    kind: str,
    *,
    url_key: str = "currentVersionUrl",
    among: set[str] | None = None,
) -> tuple[Payload, dict[str, str]]:
    """A region index, archived with the regions this run will read from it.

    The list lets a parse tell a complete run from one whose fetch stopped part-way
    (aws_bulk.parse refuses the latter rather than withdraw the missing regions' offers).
    """
    url = files.url(path)
    data, index = get_json(files.client, url, files.source)
    if not isinstance(index, dict):
        raise SourceError(f"{files.source}: {url} is a JSON {type(index).__name__}, not an object")
    found = region_files(index, files, url_key)
    if among is not None:
        found = {region: csv for region, csv in found.items() if region in among}
    request = {"kind": kind, "regions": sorted(found)}
    return ctx.archive.write(data, url, request=request), found


def offer_entry(offers: dict[str, Any], code: str, source: str) -> dict[str, Any]:
    entry = (offers.get("offers") or {}).get(code)
    if not isinstance(entry, dict):
        raise SourceError(
            f"{source}: the offer index has no {code!r} offer: AWS changed the index; report it"
        )
    return entry


def region_files(
    index: dict[str, Any], files: PublicFiles, url_key: str = "currentVersionUrl"
) -> dict[str, str]:
    """region code -> CSV URL of every wanted region in a region index.

    EC2's index maps codes to {regionCode, currentVersionUrl}; the savings plans' lists
    {regionCode, versionUrl}. Both point at index.json; the CSV sits beside it.
    """
    entries = index.get("regions")
    if isinstance(entries, dict):
        entries = list(entries.values())
    if not isinstance(entries, list):
        raise SourceError(f"{files.source}: a region index has no regions: report a format change")
    found = {}
    for entry in entries:
        code = entry.get("regionCode", "") if isinstance(entry, dict) else ""
        path = (entry.get(url_key) or entry.get("versionUrl")) if code else None
        if code and path and files.wants(code):
            found[code] = files.url(str(path).removesuffix(".json") + ".csv")
    return dict(sorted(found.items()))


def region_extract(
    ctx: FetchContext,
    files: PublicFiles,
    url: str,
    selection: Selection,
    *,
    request: dict[str, Any],
    progress: Progress,
    fetched_at: datetime | None = None,
    cache: bool = True,
) -> Payload:
    """The filtered extract of one region CSV, archived with what the original was.

    cache=False (the backfill, whose versions are each read once) keeps no extract beside
    the archive's copy.
    """
    cached = _ExtractCache(files.download_dir, url, selection.fingerprint())
    found = cached.read(progress) if cache else None
    if found is None:
        found = _download_and_filter(
            ctx, files, url, selection, cached, progress, request, fetched_at, compare=cache
        )
        if cache:
            cached.write(*found)
    data, original = found
    return ctx.archive.write(
        data,
        url,
        fetched_at=fetched_at,
        ext="csv",
        request={**request, "original": original, "filter": selection.name},
    )


def _download_and_filter(
    ctx: FetchContext,
    files: PublicFiles,
    url: str,
    selection: Selection,
    cached: _ExtractCache,
    progress: Progress,
    request: dict[str, Any],
    fetched_at: datetime | None,
    *,
    compare: bool,
) -> tuple[bytes, dict[str, Any]]:
    """The file's extract, once it was read whole and found sound; SourceError else, its
    first KEPT_BYTES archived. `compare`: a file with no row kept is refused when the kept
    extract of the region's previous version (in the cache) holds some."""
    raw = cached.raw_path()
    label = request.get("region", url)
    report = _download_progress(progress, label)
    fetched = download(files.client, url, raw, source=files.source, progress=report)
    where = f"{files.source}: {url}"
    try:
        head = read_head(raw, where)
        missing = selection.missing(head.columns)
        if missing:
            raise SourceError(missing_message(where, missing, head))
        progress(f"filtering {label} ({fetched.bytes / MEGABYTE:,.0f} MB)")
        extract = filter_file(raw, selection, head, where)
        if compare and not body_rows(extract) and (before := cached.previous()) is not None:
            raise SourceError(_lost_every_row(where, head, selection, *before))
        return extract, fetched.describe()
    except SourceError as exc:
        request = {**request, "original": fetched.describe()}
        raise _kept(ctx, raw, url, request, fetched_at, exc) from exc
    finally:
        raw.unlink(missing_ok=True)  # the extract is what is kept; AWS keeps the original


def _kept(
    ctx: FetchContext,
    raw: Path,
    url: str,
    request: dict[str, Any],
    fetched_at: datetime | None,
    exc: SourceError,
) -> SourceError:
    """The refusal of a downloaded file, its first KEPT_BYTES archived as a payload of kind
    REFUSED (a parse passes over it; a backfill fetches the region again) for a look at what
    came: an error page, a coded or UTF-16 file."""
    request = {**request, "kind": REFUSED, "refused_kind": request.get("kind"), "why": str(exc)}
    try:
        with raw.open("rb") as handle:
            start = handle.read(KEPT_BYTES)
        kept = ctx.archive.write(start, url, fetched_at=fetched_at, ext="csv", request=request)
    except (ChipcostError, OSError) as failed:
        return SourceError(f"{exc} (it could not be archived: {failed})")
    cut = f"its first {len(start):,} bytes are" if len(start) < raw.stat().st_size else "it is"
    return SourceError(f"{exc} ({cut} archived as {kept.ref})")


def _lost_every_row(
    where: str, head: CsvHead, selection: Selection, version: str, kept: int, path: Path
) -> str:
    return (
        f"{where} (version {head.version or '?'}) has no row the {selection.name} filter keeps, "
        f"where the region's previous version {version} had {kept:,}: a file losing every such "
        "row at once is taken for a damaged one, and refused rather than withdraw every offer "
        f"of the region; fetch it again, and if AWS's file really lists none, delete {path} "
        "and run again to accept it"
    )


def missing_message(where: str, missing: list[str], head: CsvHead) -> str:
    return (
        f"{where} has no column {', '.join(repr(c) for c in missing)} (its header has "
        f"{len(head.columns)} columns, version {head.version or '?'}): chipcost selects "
        "columns by name, so added or reordered columns are fine, but this one is needed; "
        "report the format change"
    )


def _download_progress(progress: Progress, label: str) -> Callable[[int, int | None], None]:
    state = {"next": PROGRESS_STEP}

    def report(done: int, total: int | None) -> None:
        if done >= state["next"]:
            state["next"] = done + PROGRESS_STEP
            of = f" of {total / MEGABYTE:,.0f}" if total else ""
            progress(f"downloading {label}: {done / MEGABYTE:,.0f}{of} MB")

    return report


class _ExtractCache:
    """<download dir>/<URL path>: the raw file while it downloads, then its extract per filter.

    Only the newest version's extract of a region is kept: an older version's is removed
    when a newer one is written. Its JSON beside it holds the original's description, the
    extract's sha256 and row count: an extract that does not match them, or one an older
    chipcost wrote without them, is not reused but fetched again.
    """

    def __init__(self, root: Path, url: str, fingerprint: str) -> None:
        relative = url.split("://", 1)[-1].split("/", 1)[-1]
        self.directory = root / Path(relative).parent
        # PublicFiles.url refuses a path that climbs; kept here too, where files are removed.
        if not self.directory.resolve().is_relative_to(root.resolve()):
            raise SourceError(f"the download of {url} would be written outside {root}: refused")
        self.name = Path(relative).name
        self.data = self.directory / f"extract-{fingerprint}.csv"
        self.meta = self.directory / f"extract-{fingerprint}.json"

    def raw_path(self) -> Path:
        self.directory.mkdir(parents=True, exist_ok=True)
        return self.directory / self.name

    def read(self, progress: Progress) -> tuple[bytes, dict[str, Any]] | None:
        """The kept extract and its original's description, when both are there and sound;
        None (the file is fetched again) else, and an unsound one is removed."""
        try:
            data, meta = self.data.read_bytes(), json.loads(self.meta.read_text("utf-8"))
        except FileNotFoundError:
            return None
        except (OSError, ValueError) as exc:
            return self._unsound(progress, f"it cannot be read ({exc})")
        if not isinstance(meta, dict) or meta.get("format") != CACHE_FORMAT:
            return self._unsound(progress, "an older chipcost kept it, unchecked")
        if meta.get("sha256") != hashlib.sha256(data).hexdigest():
            return self._unsound(progress, "it is not the extract its sha256 names")
        if meta.get("rows") != body_rows(data) or not isinstance(meta.get("original"), dict):
            return self._unsound(progress, "its row count is not the one written")
        return data, meta["original"]

    def _unsound(self, progress: Progress, why: str) -> None:
        progress(f"the kept extract {self.data} is not reused ({why}): fetching the file again")
        self.data.unlink(missing_ok=True)
        self.meta.unlink(missing_ok=True)
        return None

    def previous(self) -> tuple[str, int, Path] | None:
        """(version, rows, path) of an extract of another version of the region (the newest
        first), when one is kept and holds rows. Any filter's: a catalog that gained a family
        changes the filter's fingerprint, not what the region's file held."""
        versions = self.directory.parent.parent  # .../AmazonEC2/<version>/<region>
        kept_files = versions.glob(f"*/{self.directory.name}/extract-*.csv")
        for other in sorted(kept_files, reverse=True):
            if other.parent == self.directory:
                continue
            try:
                kept = body_rows(other.read_bytes())
            except OSError:
                continue
            if kept:
                return other.parent.parent.name, kept, other
        return None

    def write(self, data: bytes, original: dict[str, Any]) -> None:
        self.directory.mkdir(parents=True, exist_ok=True)
        meta = {
            "format": CACHE_FORMAT,
            "sha256": hashlib.sha256(data).hexdigest(),
            "rows": body_rows(data),
            "original": original,
        }
        try:
            self.data.write_bytes(data)
            self.meta.write_text(json.dumps(meta, indent=1), "utf-8")  # last: complete
        except OSError as exc:  # a full disk keeps no part of an extract
            self.data.unlink(missing_ok=True)
            self.meta.unlink(missing_ok=True)
            if exc.filename:
                raise
            # a failed write() names no file: the extract's named, as a full disk's message says
            raise OSError(exc.errno, exc.strerror, str(self.data)) from exc
        versions = self.directory.parent.parent  # .../AmazonEC2/<version>/<region>
        for old in versions.glob(f"*/{self.directory.name}/extract-*"):
            if old.parent != self.directory:
                old.unlink(missing_ok=True)


def extract_skus(payload: Payload, where: str) -> set[str]:
    """The SKUs in an EC2 extract: what its savings-plan rates may discount."""
    head, body = split(payload.data, where)
    return {row["SKU"] for row in rows(head, body, where)}
