"""Where the archive lives: a directory or an object store's s3://bucket/prefix (through
fsspec, the same layout and checks; endpoint and keys from CHIPCOST_S3_*), its run stamps, and
one file or object read as the reader and the run listing need it."""

from __future__ import annotations

import importlib.util
import os
import stat
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chipcost.core.clean import without_credentials
from chipcost.core.commands import INSTALL_LAKE
from chipcost.core.credentials import object_store
from chipcost.core.errors import ArchiveError, ChipcostError

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
            f"{INSTALL_LAKE} (it brings {' and '.join(missing)})"
        )


def is_remote(path: Path) -> bool:
    return "://" in str(path)


def is_dir(path: Path) -> bool:
    try:
        return path.is_dir()
    except Exception as exc:  # an object store that refuses or is not there
        raise ArchiveError(f"cannot list {path} ({failure(exc)}): {CHECK_REMOTE}") from exc


CHECK_REMOTE = "check the URL, endpoint and credentials (an s3:// store's: CHIPCOST_S3_*)"


def failure(exc: Exception) -> str:
    return f"{type(exc).__name__}: {' '.join(str(exc).split())[:200]}"


def check_dir(path: Path) -> None:
    try:
        check_kind(path, stat.S_ISDIR, "a directory")
    except FileNotFoundError as exc:
        raise ArchiveError(f"{path} does not exist: this source was not archived") from exc


def check_file(path: Path) -> None:
    check_kind(path, stat.S_ISREG, "a regular file")


def fetch_object(path: Path, limit: int | None = None) -> bytes:
    """An object's bytes (its first `limit` bytes at most) in one request.

    Opening it as a file would first ask for its size: a second request.
    """
    try:
        return path.fs.cat_file(path.path, start=0 if limit else None, end=limit)
    except FileNotFoundError:
        raise  # the caller says what the missing file means
    except Exception as exc:  # botocore, aiohttp and fsspec each raise their own kinds
        raise ArchiveError(f"cannot read {path} ({failure(exc)}): {CHECK_REMOTE}") from exc


def check_kind(path: Path, is_kind: Any, kind: str) -> None:
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
