"""The raw archive: every fetched payload, gzip-compressed, with fetch time and sha256.

Layout (docs/archive.md): <root>/<run stamp>/<source>/manifest.json plus one
<NNNN>.<ext>.gz per payload. The root is a directory or an s3://bucket/prefix URL (through
fsspec: the same layout, manifests and checks; endpoint and keys from the AWS variables).
A run stamp is the UTC start of the collection run, e.g. 2026-11-15T060000Z, so sorting
directory names sorts runs by time.
"""

from __future__ import annotations

import gzip
import json
import os
import zlib
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chipcost.core.errors import ArchiveError
from chipcost.core.payload import Payload, sha256

MANIFEST = "manifest.json"
# An object store that stops answering fails the write instead of holding the run for ever.
S3_OPTIONS = {
    "config_kwargs": {"connect_timeout": 10, "read_timeout": 60, "retries": {"max_attempts": 3}}
}
STAMP_FORMAT = "%Y-%m-%dT%H%M%SZ"


def run_stamp(moment: datetime) -> str:
    return moment.astimezone(UTC).strftime(STAMP_FORMAT)


def parse_stamp(stamp: str) -> datetime:
    return datetime.strptime(stamp, STAMP_FORMAT).replace(tzinfo=UTC)


def location(root: str | Path) -> Path:
    """A local path, or a pathlib-like view of an s3://... (or other fsspec) URL."""
    text = str(root)
    if "://" not in text:
        return Path(root)
    from upath import UPath  # only archives on object storage need fsspec

    options = S3_OPTIONS if text.startswith("s3://") else {}
    return UPath(text, **options)


def _remote(path: Path) -> bool:
    return "://" in str(path)


class ArchiveWriter:
    """Writes one source's payloads of one run; the manifest is rewritten after each payload."""

    def __init__(self, root: str | Path, stamp: str, source: str, *, sample: bool = False) -> None:
        self.directory = location(root) / stamp / source
        self.stamp = stamp
        self.source = source
        self.manifest: dict[str, Any] = {
            "source": source,
            "run": stamp,
            "sample": sample,
            "payloads": [],
        }

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
        _atomic_write(
            self.directory / MANIFEST, json.dumps(self.manifest, indent=1).encode("utf-8")
        )
        return Payload(
            data=data,
            url=url,
            fetched_at=fetched_at,
            name=name,
            ref=f"{self.stamp}/{self.source}/{name}",
            request=request or {},
        )


def _atomic_write(path: Path, data: bytes) -> None:
    if _remote(path):
        _put(path, data)
        return
    tmp = path.with_name(path.name + ".part")
    tmp.write_bytes(data)
    os.replace(tmp, path)


def _put(path: Path, data: bytes) -> None:
    """One object PUT (all or nothing on S3): the manifest only lists payloads that landed."""
    try:
        path.write_bytes(data)
    except Exception as exc:  # botocore, aiohttp and fsspec each raise their own kinds
        raise ArchiveError(
            f"cannot write {path} ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}): "
            "check the endpoint, bucket and credentials of CHIPCOST_ARCHIVE, then run again "
            "(payloads already archived are kept)"
        ) from exc


def run_directories(root: Path) -> list[Path]:
    """The run directories under an archive root, oldest first; root itself if it is one."""
    root = location(root)
    if not _is_dir(root):
        raise ArchiveError(
            f"archive directory {root} does not exist: pass the archive root or one run "
            "directory under it (see docs/archive.md)"
        )
    if _is_run_dir(root):
        return [root]
    runs = sorted(
        (p for p in root.iterdir() if _is_run_dir(p) and _is_dir(p)), key=lambda p: p.name
    )
    if not runs:
        raise ArchiveError(
            f"{root} holds no archived runs (expected <run stamp>/<source>/manifest.json, "
            "see docs/archive.md)"
        )
    return runs


def _is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except Exception as exc:  # an object store that refuses or is not there
        raise ArchiveError(
            f"cannot list {path} ({type(exc).__name__}: {' '.join(str(exc).split())[:200]}): "
            "check the URL, endpoint and credentials"
        ) from exc


def _is_run_dir(path: Path) -> bool:
    try:
        parse_stamp(path.name)
    except ValueError:
        return False
    return True


def archived_sources(run_dir: Path) -> list[str]:
    return sorted(p.name for p in location(run_dir).iterdir() if (p / MANIFEST).is_file())


def read_manifest(source_dir: Path) -> dict[str, Any]:
    path = location(source_dir) / MANIFEST
    try:
        return json.loads(path.read_text("utf-8"))
    except FileNotFoundError as exc:
        raise ArchiveError(f"{path} is missing: this source was not archived in this run") from exc
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ArchiveError(f"{path} is not valid JSON ({exc}); restore it from a backup") from exc


def read_payloads(run_dir: Path, source: str) -> list[Payload]:
    """Every payload a source archived in one run, checked against its sha256."""
    source_dir = location(run_dir) / source
    manifest = read_manifest(source_dir)
    payloads = []
    for entry in manifest.get("payloads", []):
        path = source_dir / entry["name"]
        try:
            data = gzip.decompress(path.read_bytes())
        except FileNotFoundError as exc:
            raise ArchiveError(f"{path} is listed in the manifest but missing") from exc
        except (OSError, EOFError, zlib.error) as exc:
            raise ArchiveError(
                f"{path} is corrupt ({exc}); restore it from a backup or remove the run directory"
            ) from exc
        if sha256(data) != entry["sha256"]:
            raise ArchiveError(
                f"{path} does not match its sha256 in the manifest: the file changed"
            )
        payloads.append(
            Payload(
                data=data,
                url=entry.get("url", ""),
                fetched_at=datetime.fromisoformat(entry["fetched_at"]),
                name=entry["name"],
                ref=f"{source_dir.parent.name}/{source}/{entry['name']}",
                request=entry.get("request", {}),
            )
        )
    return payloads


def is_sample(run_dir: Path) -> bool:
    """True when any source of this run is labelled as sample data."""
    for source in archived_sources(run_dir):
        if read_manifest(location(run_dir) / source).get("sample"):
            return True
    return False
