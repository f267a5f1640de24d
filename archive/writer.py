"""The archive's writer: one source's payloads of one run, gzip-compressed, each written whole
(a temporary file renamed, or one object PUT with its own deadline), the manifest after each."""

from __future__ import annotations

import gzip
import json
import os
import threading
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chipcost.archive.store import MANIFEST, failure, is_remote, location
from chipcost.core.errors import ArchiveError
from chipcost.core.payload import Payload, sha256

# A PUT the object store has not answered after this long fails the write (see _put).
PUT_SECONDS = 120.0


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
        charset: str = "",
    ) -> Payload:
        fetched_at = fetched_at or datetime.now(UTC)
        name = f"{len(self.manifest['payloads']) + 1:04d}.{ext}.gz"
        if not is_remote(self.directory):
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
        if charset:  # the answer's Content-Type charset, which a web page is read by
            entry["charset"] = charset
        self.manifest["payloads"].append(entry)
        self._write_manifest()
        return Payload(
            data=data,
            url=url,
            fetched_at=fetched_at,
            name=name,
            ref=f"{self.stamp}/{self.source}/{name}",
            request=request or {},
            charset=charset,
        )

    def _write_manifest(self) -> None:
        _atomic_write(
            self.directory / MANIFEST, json.dumps(self.manifest, indent=1).encode("utf-8")
        )


def _atomic_write(path: Path, data: bytes) -> None:
    if is_remote(path):
        _put(path, data)
        return
    replace_whole(path, data)


def replace_whole(path: Path, data: bytes) -> None:
    """A local file written whole or not at all: under `.part`, then renamed over `path`; a
    write that fails leaves no part behind and names the file (the pending-run markers too)."""
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
        reason = failure(exc)
    else:
        return
    raise ArchiveError(
        f"cannot write {path} ({reason}): check the bucket of CHIPCOST_ARCHIVE and the "
        "store's endpoint and keys (CHIPCOST_S3_*), then run again (payloads already archived "
        "are kept)"
    )
