"""How a test checks a refusal on the command line: its exit status (1 an error, 2 a usage
error), no traceback, and what its message names, read as one line (a message wrapped to the
terminal's width is one sentence)."""

from __future__ import annotations


def assert_refused(done) -> None:
    """Refused (exit 1 or 2), saying why, without a traceback."""
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    assert done.returncode in (1, 2), (done.returncode, done.stdout[-500:], done.stderr[-500:])
    assert done.stderr.strip(), "refused without saying why"


def refused(done, said: str, code: int = 2) -> str:
    """Refused with exit `code` (2: a usage error, the default), its message holding `said`;
    returns the message as one line."""
    assert done.returncode == code, (done.stdout[-500:], done.stderr[-1000:])
    assert "Traceback" not in done.stderr
    line = " ".join(done.stderr.split())
    assert said in line, line
    return line
