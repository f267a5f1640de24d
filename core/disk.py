"""A write refused for lack of room, said in one line: the disk (the file system's mount point),
the path, and what to do.

Python says it in an OSError's errno (ENOSPC; EDQUOT, a quota reached, is the same to the
user); DuckDB in its message, as its commit's write to the warehouse's log fails ('Failed to
commit: Could not write file "PATH": No space left on device'), and again in every later
statement of that connection ('database has been invalidated ... Original error: ...').
"""

from __future__ import annotations

import errno
import os
import re
import stat
import sys
from pathlib import Path

NO_ROOM = (errno.ENOSPC, errno.EDQUOT)
# The words of those errors, as the C library says them in another library's message.
NO_ROOM_WORDS = tuple(os.strerror(code) for code in NO_ROOM)
# The file DuckDB names in a failed write: 'Could not write file "/data/w.duckdb.wal": ...'.
_DUCKDB_FILE = re.compile(r'file "([^"]+)"')
# Errors wrapped in others (a flow's failure, a DuckDB error re-raised) looked through this deep.
_DEPTH = 5


def mount_of(path: str | Path) -> str:
    """The mount point of the file system holding `path` (its folder when it does not exist
    yet); '/' when none is found."""
    folder = Path(os.path.abspath(path)).parent
    for place in (folder, *folder.parents):
        try:
            if os.path.ismount(place):
                return str(place)
        except OSError:
            continue
    return "/"


def no_room(exc: BaseException, path: str | Path | None = None) -> str | None:
    """One line saying a write failed for lack of room: the path written (the error's, else
    `path`), the disk holding it, and what to do; None when `exc` (or an error it wraps) is
    no such failure."""
    for error in _chain(exc):
        if isinstance(error, OSError):
            if error.errno not in NO_ROOM:
                continue
            where, reason = error.filename or path, error.strerror or os.strerror(error.errno)
        else:
            text = " ".join(str(error).split())
            said = [words for words in NO_ROOM_WORDS if words in text]
            if not said:
                continue
            named = _DUCKDB_FILE.search(text)
            where, reason = (named[1] if named else path), said[0]
        return disk_full(where, reason)
    return None


def disk_full(where: str | Path | None, reason: str = os.strerror(errno.ENOSPC)) -> str:
    """'the disk holding PATH (the file system at MOUNT) is full (REASON)' and what to do."""
    if where is None:
        if (output := _full_output()) is not None:
            return (
                f"the disk holding the standard output, {output} (the file system at "
                f"{mount_of(output)}), is full ({reason}): what was written there is cut short; "
                "free some space there, or write elsewhere, and run again"
            )
        return f"a disk is full ({reason}): the write failed; free some space and run again"
    return (
        f"the disk holding {where} (the file system at {mount_of(where)}) is full ({reason}): "
        "nothing of the write was kept; free some space there, or write elsewhere, and run again"
    )


# Less room than this left where the standard output goes: the disk a write with no file named
# filled is taken to be that one.
_NEARLY_FULL = 64 << 10


def _full_output() -> str | None:
    """The file the standard output is redirected to, when it is one on a nearly full disk."""
    try:
        fd = sys.stdout.fileno()
        if not stat.S_ISREG(os.fstat(fd).st_mode):
            return None
        room = os.fstatvfs(fd)
        if room.f_bavail * room.f_frsize >= _NEARLY_FULL:
            return None
        return os.readlink(f"/proc/self/fd/{fd}")
    except (OSError, ValueError, AttributeError):
        return None


def _chain(exc: BaseException) -> list[BaseException]:
    found: list[BaseException] = []
    error: BaseException | None = exc
    while error is not None and len(found) < _DEPTH and error not in found:
        found.append(error)
        error = error.__cause__ or error.__context__
    return found
