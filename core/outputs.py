"""Files chipcost writes for people (the export, the explorer, the report, an e-mail file):
whole or not at all. Each is written under a temporary name in its own directory and renamed
over the old one only when every file of the set is complete, so a full disk or a crash
leaves the previous output as it was; a path that is a symbolic link is never written
through."""

from __future__ import annotations

import errno
import os
import tempfile
from collections.abc import Iterator, Sequence
from contextlib import contextmanager
from pathlib import Path

from chipcost.core.disk import NO_ROOM, disk_full
from chipcost.core.errors import ChipcostError

# The process's file mode mask, read once (setting it back at once: os.umask only swaps).
_UMASK = os.umask(0o022)
os.umask(_UMASK)


@contextmanager
def written_whole(paths: Sequence[Path]) -> Iterator[list[Path]]:
    """Temporary paths beside `paths` to write to; each renamed over its path when the block
    ends without an error, every one removed when it does not (the old files stay)."""
    for path in paths:
        if path.is_symlink():
            raise ChipcostError(
                f"{path} is a symbolic link: chipcost does not write through a link it did not "
                "make; remove it, or write somewhere else"
            )
    temporary: list[Path] = []
    try:
        for path in paths:
            handle, name = tempfile.mkstemp(prefix=f".{path.name}.", dir=path.parent)
            os.close(handle)
            temporary.append(Path(name))
            os.chmod(name, 0o666 & ~_UMASK)  # as an open() would make it, not mkstemp's 0600
        yield temporary
        for done, path in zip(temporary, paths, strict=True):
            os.replace(done, path)
    except OSError as exc:
        named = dict(zip(map(str, temporary), paths, strict=False))
        # A failed write() names no file: then the set is named.
        target = named.get(str(exc.filename))
        what = str(target) if target else f"{paths[0].parent}/ ({', '.join(p.name for p in paths)})"
        # the advice for what went wrong: a full disk, a place no one may write, another
        advice = {
            errno.ENOSPC: "free some space or write elsewhere",
            errno.EDQUOT: "free some space or write elsewhere",
            errno.EACCES: "make the folder writable or write elsewhere",
            errno.EPERM: "make the folder writable or write elsewhere",
            errno.EROFS: "write elsewhere: the file system is read-only",
        }.get(exc.errno or 0, "write elsewhere")
        if exc.errno in NO_ROOM:  # the disk named, its mount point
            full = disk_full(target or paths[0], exc.strerror or str(exc))
            raise ChipcostError(
                f"cannot write {what}: {full}; the previous files (if any) are as they were"
            ) from None
        raise ChipcostError(
            f"cannot write {what}: {exc.strerror or exc}; nothing of it was written and the "
            f"previous files (if any) are as they were: {advice}"
        ) from None
    finally:
        for left in temporary:
            left.unlink(missing_ok=True)
