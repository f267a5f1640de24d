"""Why a source's collection is refused: an empty listing, a disk that cannot take the archive."""

from __future__ import annotations

import errno
import logging
import traceback
from collections.abc import Sequence

from chipcost.core.clean import masked, scrub
from chipcost.core.disk import NO_ROOM, mount_of
from chipcost.core.errors import ChipcostError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.core.settings import TRACEBACK_ENV, process_variable
from chipcost.extract import Source

log = logging.getLogger("chipcost.collect")


def not_empty(source: Source, parsed: ParseResult, payloads: list[Payload]) -> ParseResult:
    """The parse, unless it found no offer at all: an empty listing fails the source, so that
    nothing is withdrawn on the word of an empty answer (the kit's sources refuse it first)."""
    if parsed.records or parsed.rejects or any(parsed.facts.values()) or source.may_be_empty:
        return parsed
    where = ", ".join(sorted({p.url for p in payloads}))
    raise ChipcostError(
        f"{source.name}: the listing at {where} gave no offer ({len(payloads)} payload(s), "
        f"{'; '.join(parsed.notes) or 'no note'}): an empty listing is refused, not taken as "
        "every offer withdrawn; the prices already held are kept. Run again later; if it "
        "lasts, report it"
    )


def disk_message(name: str, exc: OSError) -> str:
    """What a full, read-only or refused disk means for a source, and what to do. The path is
    the error's: one the error does not name is not guessed (the archive was named where the
    downloads' disk was the full one)."""
    where = f" {exc.filename}" if exc.filename else ""
    if exc.errno in NO_ROOM:
        disk = f" (the file system at {mount_of(exc.filename)})" if exc.filename else ""
        what = f"the disk holding{where}{disk} is full" if where else "a disk is full"
        advice = "free some space, or point CHIPCOST_DATA_DIR (or CHIPCOST_ARCHIVE) elsewhere"
    elif exc.errno in (errno.EROFS, errno.EACCES, errno.EPERM):
        what = f"cannot write{where or ' a file'}"
        advice = "make it writable, or point CHIPCOST_DATA_DIR (or CHIPCOST_ARCHIVE) elsewhere"
    else:
        what = f"reading or writing{where or ' a file'} failed"
        advice = "check the disk and the path"
    return (
        f"{name}: {what} ({exc.strerror or exc}): {advice}, then run again; nothing of this "
        "source was loaded, and the prices already held are kept"
    )


def unexpected(name: str, exc: BaseException, secrets: Sequence[str]) -> str:
    """The one line a source's unexpected error ends in ("... a bug in chipcost"); its
    traceback goes to the log only when TRACEBACK_ENV asks for it, scrubbed of secrets."""
    if process_variable(TRACEBACK_ENV):
        trace = "".join(traceback.format_exception(exc))
        log.error("unexpected error in source %s\n%s", name, scrub(trace, secrets))
    return masked(
        f"unexpected {type(exc).__name__} in {name}: {exc}. This is a bug in chipcost: the raw "
        f"payloads are archived; please report it with the run directory ({TRACEBACK_ENV}=1 "
        "shows the traceback)"
    )
