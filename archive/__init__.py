"""The raw archive: every fetched payload, gzip-compressed, with fetch time and sha256.

Layout (docs/archive.md): <root>/<run stamp>/<source>/manifest.json plus one
<NNNN>.<ext>.gz per payload. The root is a directory or an s3://bucket/prefix URL (through
fsspec: the same layout, manifests and checks; endpoint and keys from CHIPCOST_S3_*).
A run stamp is the UTC start of the collection run, e.g. 2026-11-15T060000Z, so sorting
directory names sorts runs by time.
"""

from __future__ import annotations

import gzip
import importlib.util
import io
import json
import os
import re
import stat
import threading
import zlib
from dataclasses import dataclass, field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chipcost.core.clean import without_credentials
from chipcost.core.errors import ArchiveError, ChipcostError
from chipcost.core.payload import AHEAD_OF_NOW, Payload, sha256
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.settings import (
    DEFAULT_PAYLOAD_MAX_MB,
    DEFAULT_SOURCE_PAYLOADS_MAX_MB,
    RUN_PAYLOADS_MAX_ENV,
    SOURCE_PAYLOADS_MAX_ENV,
    object_store,
)

MANIFEST = "manifest.json"
# What an archive URL needs beyond upath, by scheme (fsspec imports it on first access), and
# the packages that bring each module: all come with the `lake` extra (aiohttp with s3fs).
REMOTE_MODULES = {"s3": ("s3fs",), "http": ("aiohttp",), "https": ("aiohttp",)}
PACKAGES = {"upath": "universal-pathlib"}
# An object store that stops answering fails the write instead of holding the run for ever.
S3_OPTIONS = {
    "config_kwargs": {"connect_timeout": 10, "read_timeout": 60, "retries": {"max_attempts": 3}}
}
# A PUT the object store has not answered after this long fails the write (see _put).
PUT_SECONDS = 120.0
STAMP_FORMAT = "%Y-%m-%dT%H%M%SZ"
# A payload's name as the writer makes it (0001.json.gz): one file of the source's directory,
# so no '/', no '..', no absolute path can lead a replay out of the archive.
PAYLOAD_NAME = re.compile(r"[0-9A-Za-z][0-9A-Za-z_-]*(\.[0-9A-Za-z_-]+)*\.gz")
SHA256 = re.compile(r"[0-9a-f]{64}")
READ_BLOCK = 4 << 20
RESTORE = "restore the manifest from a backup, or remove this source's directory from the run"
# A manifest lists a source's payloads of one run, some 300 bytes each, nested a few levels
# (payloads, an entry, its request's filters): one larger or deeper is not what the writer
# wrote, and is refused before it is read whole or parsed (a JSON reader recurses per level).
MANIFEST_MAX_BYTES = 16 << 20
MANIFEST_MAX_DEPTH = 32
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"', re.DOTALL)
_NOT_BRACKET = re.compile(r"[^\[\]{}]+")
_INNERMOST = re.compile(r"\[\]|\{\}")


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


def run_stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(STAMP_FORMAT)


def parse_stamp(stamp: str) -> datetime:
    return datetime.strptime(stamp, STAMP_FORMAT).replace(tzinfo=UTC)


def location(root: str | Path) -> Path:
    """A local path, or a pathlib-like view of an s3://... (or other fsspec) URL."""
    text = str(root)
    if "://" not in text:
        return Path(root)
    _check_installed(text)
    from upath import UPath  # only archives on object storage need fsspec

    options = s3_options(text) if text.startswith("s3://") else {}
    return UPath(text, **options)


def s3_options(url: str) -> dict[str, Any]:
    """s3fs's options for `url`: the timeouts, and the store of CHIPCOST_S3_* (the lake's too).

    Endpoints that botocore would take from AWS_ENDPOINT_URL or the AWS config files are
    ignored: those are AWS's, and the store's is CHIPCOST_S3_ENDPOINT_URL.
    """
    try:
        store = object_store(os.environ, f"the archive {url}")
    except ChipcostError as exc:
        raise ArchiveError(str(exc)) from exc
    config = {**S3_OPTIONS["config_kwargs"], "ignore_configured_endpoint_urls": True}
    options: dict[str, Any] = {**S3_OPTIONS, "config_kwargs": config}
    if store.endpoint_url:
        options["endpoint_url"] = store.endpoint_url
    if store.key_id:
        options.update(key=store.key_id, secret=store.secret, token=store.session_token or None)
    if store.region:
        options["client_kwargs"] = {"region_name": store.region}
    return options


def _check_installed(url: str) -> None:
    """An archive URL in a base install: what to install, said before any read or write
    (without it, each source failed with "No module named 'upath'... a bug in chipcost")."""
    scheme = url.split("://", 1)[0].lower()
    modules = ("upath", *REMOTE_MODULES.get(scheme, ()))
    missing = [PACKAGES.get(m, m) for m in modules if importlib.util.find_spec(m) is None]
    if missing:
        shown = without_credentials(url)
        raise ArchiveError(
            f"the archive {shown} is an {scheme}:// URL, which needs chipcost's `lake` extra: "
            f"pip install 'chipcost[lake]' (it brings {' and '.join(missing)})"
        )


def _remote(path: Path) -> bool:
    return "://" in str(path)


class ArchiveWriter:
    """Writes one source's payloads of one run; the manifest is rewritten after each payload."""

    def __init__(
        self,
        root: str | Path,
        stamp: str,
        source: str,
        *,
        sample: bool = False,
        in_progress: bool = False,
    ) -> None:
        self.directory = location(root) / stamp / source
        self.stamp = stamp
        self.source = source
        self.manifest: dict[str, Any] = {"source": source, "run": stamp, "sample": sample}
        if in_progress:
            # Until finish(): a fetch that dies part-way must not be replayed as whole, or the
            # offers it did not reach would be taken as withdrawn.
            self.manifest["complete"] = False
        self.manifest["payloads"] = []

    def finish(self) -> None:
        """The fetch returned: the manifest now lists everything it fetched."""
        if self.manifest.get("complete") is False:
            self.manifest["complete"] = True
            if self.manifest["payloads"]:
                self._write_manifest()

    def write(
        self,
        data: bytes,
        url: str,
        *,
        fetched_at: datetime | None = None,
        ext: str = "json",
        request: dict[str, Any] | None = None,
    ) -> Payload:
        fetched_at = fetched_at or datetime.now(UTC)
        name = f"{len(self.manifest['payloads']) + 1:04d}.{ext}.gz"
        if not _remote(self.directory):
            self.directory.mkdir(parents=True, exist_ok=True)
        _atomic_write(self.directory / name, gzip.compress(data, mtime=0))
        entry = {
            "name": name,
            "url": url,
            "fetched_at": fetched_at.isoformat(),
            "sha256": sha256(data),
            "bytes": len(data),
            "request": request or {},
        }
        self.manifest["payloads"].append(entry)
        self._write_manifest()
        return Payload(
            data=data,
            url=url,
            fetched_at=fetched_at,
            name=name,
            ref=f"{self.stamp}/{self.source}/{name}",
            request=request or {},
        )

    def _write_manifest(self) -> None:
        _atomic_write(
            self.directory / MANIFEST, json.dumps(self.manifest, indent=1).encode("utf-8")
        )


def _atomic_write(path: Path, data: bytes) -> None:
    if _remote(path):
        _put(path, data)
        return
    tmp = path.with_name(path.name + ".part")
    try:
        tmp.write_bytes(data)
        os.replace(tmp, path)
    except OSError as exc:
        tmp.unlink(missing_ok=True)  # a full disk leaves no part of a payload behind
        if exc.filename:
            raise
        # a failed write() names no file: the payload's named, as the full disk's message says
        raise OSError(exc.errno, exc.strerror, str(path)) from exc


# PUTs given up on at their deadline, by object: their threads go on with botocore's retries
# and may still land. The next PUT of the same object in this process waits for them first,
# so an older manifest (or payload) never lands over a newer one.
_ABANDONED: dict[str, threading.Thread] = {}
_ABANDONED_LOCK = threading.Lock()


def _put(path: Path, data: bytes) -> None:
    """One object PUT (all or nothing on S3): the manifest only lists payloads that landed.

    An endpoint that takes the request and never answers holds an s3fs upload past
    botocore's read timeout, so each PUT has its own deadline, waited for in this thread.
    """
    with _ABANDONED_LOCK:
        earlier = _ABANDONED.pop(str(path), None)
    if earlier is not None:
        earlier.join(PUT_SECONDS)
        if earlier.is_alive():
            raise ArchiveError(
                f"cannot write {path}: an earlier write of it that gave up has not ended: check "
                "the endpoint of CHIPCOST_ARCHIVE, then run again (payloads already archived "
                "are kept)"
            )
    outcome: list[Exception | None] = []

    def put() -> None:
        try:
            path.write_bytes(data)
            outcome.append(None)
        except Exception as exc:  # botocore, aiohttp and fsspec each raise their own kinds
            outcome.append(exc)

    worker = threading.Thread(target=put, name="archive-put", daemon=True)
    worker.start()
    worker.join(PUT_SECONDS)
    if not outcome:
        with _ABANDONED_LOCK:
            _ABANDONED[str(path)] = worker
        reason = f"no answer in {PUT_SECONDS:.0f} s"
    elif (exc := outcome[0]) is not None:
        reason = _reason(exc)
    else:
        return
    raise ArchiveError(
        f"cannot write {path} ({reason}): check the bucket of CHIPCOST_ARCHIVE and the "
        "store's endpoint and keys (CHIPCOST_S3_*), then run again (payloads already archived "
        "are kept)"
    )


def run_directories(root: Path) -> list[Path]:
    """The run directories under an archive root, oldest first; root itself if it is one."""
    root = location(root)
    if not _is_dir(root):
        there = not _remote(root) and root.exists()
        what = "is not a directory" if there else "does not exist"
        raise ArchiveError(
            f"archive directory {root} {what}: pass the archive root or one run "
            "directory under it (see docs/archive.md)"
        )
    if _is_run_dir(root):
        return check_not_ahead(_no_links([root]))
    try:
        runs = sorted(
            (p for p in root.iterdir() if _is_run_dir(p) and _is_dir(p)), key=lambda p: p.name
        )
    except ArchiveError:
        raise
    except Exception as exc:  # an object store that refuses (no credentials) or is not there
        raise ArchiveError(f"cannot list {root} ({_reason(exc)}): {_CHECK_REMOTE}") from exc
    if not runs:
        raise ArchiveError(
            f"{root} holds no archived runs (expected <run stamp>/<source>/manifest.json, "
            "see docs/archive.md)"
        )
    return check_not_ahead(_no_links(runs))


def _no_links(runs: list[Path]) -> list[Path]:
    """`runs`, or a refusal naming the first that is a symbolic link, before anything loads
    (each of its sources would fail alone, and the run be stored as failed)."""
    for run in runs:
        if not _remote(run) and run.is_symlink():
            _check_kind(run, stat.S_ISDIR, "a directory")
    return runs


def check_not_ahead(runs: list[Path], now: datetime | None = None) -> list[Path]:
    """`runs`, or a refusal naming the first run stamped ahead of the clock beyond
    AHEAD_OF_NOW and both times: nothing of a replay loads when one of its runs is."""
    now = now or datetime.now(UTC)
    for run in runs:
        stamped = parse_stamp(run.name)
        if stamped > now + AHEAD_OF_NOW:
            raise ArchiveError(
                f"archived run {run} is stamped {stamped:%Y-%m-%d %H:%M:%S} UTC, ahead of this "
                f"machine's clock ({now:%Y-%m-%d %H:%M:%S} UTC) by more than "
                f"{int(AHEAD_OF_NOW.total_seconds() // 60)} minutes: nothing was loaded. A clock "
                "was wrong or the archive was edited: fix the clock, or move that run directory "
                "out of the archive, and replay again"
            )
    return runs


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except Exception as exc:  # an object store that refuses or is not there
        raise ArchiveError(f"cannot list {path} ({_reason(exc)}): {_CHECK_REMOTE}") from exc


_CHECK_REMOTE = "check the URL, endpoint and credentials (an s3:// store's: CHIPCOST_S3_*)"


def _reason(exc: Exception) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def not_runs(root: Path) -> list[str]:
    """The directories at an archive root a replay does not read, not being named as runs are
    (`2026-11-21T060000Z.restored`, `backup`): named to the user, never skipped in silence.
    Hidden ones (a leading dot) and a root that is itself a run have none."""
    root = location(root)
    if _remote(root) or _is_run_dir(root) or not root.is_dir():
        return []
    return sorted(
        p.name for p in root.iterdir() if p.is_dir() and not p.name.startswith(".")
        and not _is_run_dir(p)
    )  # fmt: skip


def _is_run_dir(path: Path) -> bool:
    try:
        parse_stamp(path.name)
    except ValueError:
        return False
    return True


def archived_sources(run_dir: Path) -> list[str]:
    """The sources archived in this run: those whose directory holds a manifest."""
    return sorted(name for name, files in _source_files(run_dir).items() if MANIFEST in files)


def unfinished_sources(run_dir: Path) -> list[str]:
    """Sources with payload files but no manifest (lost, or never written: the run stopped
    right after its first payload): they cannot be replayed, and say so."""
    return sorted(
        name for name, files in _source_files(run_dir).items() if files and MANIFEST not in files
    )


def sources_in(run_dir: Path) -> list[str]:
    """Every source with anything archived in this run: archived, or unfinished."""
    return sorted(name for name, files in _source_files(run_dir).items() if files)


def _source_files(run_dir: Path) -> dict[str, set[str]]:
    """The file names in each directory of a run."""
    run_dir = location(run_dir)
    if _remote(run_dir):
        # One listing of the run's keys, not one request per source (object storage answers
        # each request in tens of milliseconds).
        try:
            keys = run_dir.fs.find(run_dir.path)
        except Exception as exc:  # an object store that refuses or is not there
            raise ArchiveError(f"cannot list {run_dir} ({_reason(exc)}): {_CHECK_REMOTE}") from exc
        base = run_dir.path.rstrip("/") + "/"
        found: dict[str, set[str]] = {}
        for key in keys:
            parts = key[len(base) :].split("/") if key.startswith(base) else []
            if len(parts) == 2:
                found.setdefault(parts[0], set()).add(parts[1])
        return found
    # scandir: the kind of each entry comes with the listing, not a stat per file.
    with os.scandir(run_dir) as entries:
        dirs = [e for e in entries if e.is_dir()]
    found = {}
    for entry in dirs:
        with os.scandir(entry.path) as files:
            found[entry.name] = {f.name for f in files if f.is_file()}
    return found


def read_manifest(source_dir: Path) -> dict[str, Any]:
    path = location(source_dir) / MANIFEST
    try:
        if _remote(path):
            text = _fetch(path, MANIFEST_MAX_BYTES + 1).decode("utf-8")
        else:
            _check_file(path)
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
        raise ArchiveError(f"{path} is not valid JSON ({said}); restore it from a backup") from exc
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
    innermost pairs taken away one level a pass (no recursion, however deep the text)."""
    brackets = _NOT_BRACKET.sub("", _JSON_STRING.sub("", text))
    for _ in range(limit):
        if not brackets:
            return False
        brackets = _INNERMOST.sub("", brackets)
    return bool(brackets)


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
    nothing on the way may be a symbolic link, every manifest field is checked, and a
    payload is not inflated beyond max_bytes, nor the source's together beyond
    max_source_bytes, nor the run's (`run_budget`, shared by its sources) beyond its limit.
    """
    budgets = [ReadBudget(max_source_bytes, SOURCE_PAYLOADS_MAX_ENV, "per source")]
    budgets += [run_budget] if run_budget is not None else []
    run_dir = location(run_dir)
    source_dir = run_dir / source
    if not _remote(run_dir):  # on object storage a missing directory is a missing manifest
        _check_dir(run_dir)
        _check_dir(source_dir)
    manifest = read_manifest(source_dir)
    entries = manifest_entries(manifest, source_dir / MANIFEST)
    _check_complete(manifest, source_dir, len(entries))
    payloads = []
    for entry in entries:
        path = source_dir / entry.name
        data = _inflate(path, max_bytes, budgets)
        if sha256(data) != entry.sha256:
            raise ArchiveError(
                f"{path} does not match its sha256 in the manifest: the file changed; restore "
                "it from a backup, or remove this source's directory from the run"
            )
        payloads.append(
            Payload(
                data=data,
                url=entry.url,
                fetched_at=entry.fetched_at,
                name=entry.name,
                ref=f"{run_dir.name}/{source}/{entry.name}",
                request=entry.request,
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


@dataclass(frozen=True)
class Entry:
    """One manifest entry, checked."""

    name: str
    sha256: str
    fetched_at: datetime
    url: str = ""
    request: dict[str, Any] = field(default_factory=dict)


def manifest_entries(manifest: dict[str, Any], path: Path) -> list[Entry]:
    """The manifest's payload entries; a missing or malformed field names the file and field."""
    raw = manifest.get("payloads")
    if not isinstance(raw, list):
        raise ArchiveError(f"{path}: field 'payloads' is not a list of payloads; {RESTORE}")
    return [_entry(item, n, path) for n, item in enumerate(raw, start=1)]


def _entry(item: object, n: int, path: Path) -> Entry:
    where = f"{path}: payload {n}"
    if not isinstance(item, dict):
        raise ArchiveError(f"{where} is a JSON {type(item).__name__}, not an object; {RESTORE}")
    if isinstance(item.get("name"), str):
        where = f"{where} ({item['name']})"
    name, digest, fetched = (_text(item, key, where) for key in ("name", "sha256", "fetched_at"))
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
    url, request = item.get("url", ""), item.get("request") or {}
    if not isinstance(url, str) or not isinstance(request, dict):
        bad = "url" if not isinstance(url, str) else "request"
        raise ArchiveError(f"{where}: field {bad!r} has the wrong type; {RESTORE}")
    return Entry(name, digest, fetched_at, url, request)


def _text(item: dict[str, Any], key: str, where: str) -> str:
    value = item.get(key)
    if not isinstance(value, str) or not value:
        state = "is missing" if value is None else "is not a text"
        raise ArchiveError(f"{where}: field {key!r} {state}; {RESTORE}")
    return value


def _check_complete(manifest: dict[str, Any], source_dir: Path, count: int) -> None:
    complete = manifest.get("complete", True)  # archives before the field are whole
    if complete is False:
        raise ArchiveError(
            f"{source_dir}: the fetch of this source did not finish (the collector stopped "
            f"after {count} payload(s)): not loaded, since the offers it did not reach would "
            "be taken as withdrawn; its payloads stay archived"
        )
    if complete is not True:
        raise ArchiveError(f"{source_dir / MANIFEST}: field 'complete' is not true or false")


def _check_dir(path: Path) -> None:
    try:
        _check_kind(path, stat.S_ISDIR, "a directory")
    except FileNotFoundError as exc:
        raise ArchiveError(f"{path} does not exist: this source was not archived") from exc


def _check_file(path: Path) -> None:
    _check_kind(path, stat.S_ISREG, "a regular file")


def _fetch(path: Path, limit: int | None = None) -> bytes:
    """An object's bytes (its first `limit` bytes at most) in one request.

    Opening it as a file would first ask for its size: a second request.
    """
    try:
        return path.fs.cat_file(path.path, start=0 if limit else None, end=limit)
    except FileNotFoundError:
        raise  # the caller says what the missing file means
    except Exception as exc:  # botocore, aiohttp and fsspec each raise their own kinds
        raise ArchiveError(f"cannot read {path} ({_reason(exc)}): {_CHECK_REMOTE}") from exc


def _check_kind(path: Path, is_kind: Any, kind: str) -> None:
    """No symbolic link (it can point anywhere, outside the archive too), nor a device or pipe.

    Local files only: object storage has no links, devices or pipes.
    """
    mode = os.lstat(path).st_mode  # FileNotFoundError is the caller's to word
    if stat.S_ISLNK(mode):
        raise ArchiveError(
            f"{path} is a symbolic link: an archive holds its own files, and a link can lead "
            "outside it. Replace the link with what it points to, or remove it"
        )
    if not is_kind(mode):
        raise ArchiveError(f"{path} is not {kind}: remove it from the archive")


_OVER_LIMIT = (
    "the limit per payload (CHIPCOST_PAYLOAD_MAX_MB): not read. Raise the limit if the "
    "provider really sent that much, or remove the file"
)


def run_budget(limit: int) -> ReadBudget:
    """The bytes one archived run's sources may inflate together (CHIPCOST_RUN_PAYLOADS_MAX_MB)."""
    return ReadBudget(limit, RUN_PAYLOADS_MAX_ENV, "per run")


def _inflate(path: Path, max_bytes: int, budgets: list[ReadBudget] | None = None) -> bytes:
    """A payload file uncompressed, refused as soon as it passes max_bytes or a budget."""
    chunks: list[bytes] = []
    size = 0
    try:
        if _remote(path):
            # One GET, of no more than a payload within the limit can take compressed
            # (deflate adds at most 5 bytes a 64 KiB block, gzip a header): a larger object
            # is refused without being downloaded whole.
            cap = max_bytes + max_bytes // 1024 + 1024
            data = _fetch(path, cap)
            if len(data) >= cap:
                raise ArchiveError(
                    f"{path} is larger than {max_bytes / (1 << 20):g} MiB even compressed, "
                    f"{_OVER_LIMIT}"
                )
            raw: Any = io.BytesIO(data)  # inflated below as a local file
        else:
            _check_file(path)
            raw = path.open("rb")
        with raw, gzip.GzipFile(fileobj=raw, mode="rb") as stream:
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
