"""Where every command's lines go: stdout and stderr, each line written as it is laid out, its
styles as plain ANSI codes on a terminal and none anywhere else (a pipe, a file: what scripts
read). chipcost's one writer of text: tables laid out by chipcost.cli.fit, notes wrapped to
the width at spaces, messages. Nothing is read as markup: a provider's "[x]" is shown as it is.

A terminal is told apart as terminals and programs expect (force-color.org, no-color.org):
TTY_COMPATIBLE=1 or 0 says it outright, else a FORCE_COLOR that is not empty styles a pipe,
else the stream's own isatty(); TERM=dumb (or unknown) styles nothing, and NO_COLOR keeps bold
and dim but drops colour. rich draws only collect's and backfill's live progress lines.
"""

from __future__ import annotations

import os
import re
import sys
from typing import TYPE_CHECKING, TextIO

from chipcost.cli.fit import Fitted, Line, Span, slice_spans, wrapped
from chipcost.cli.terminal import width as stream_width

if TYPE_CHECKING:
    from rich.console import Console as RichConsole

__all__ = ["Screen", "err", "live_on_stderr", "notices", "out", "print_fitted", "print_wrapped"]

# The SGR codes of the styles chipcost's lines use: attributes, then colours.
_ATTRIBUTES = {"bold": "1", "dim": "2", "italic": "3", "underline": "4"}
_COLOURS = {
    "black": "30", "red": "31", "green": "32", "yellow": "33",
    "blue": "34", "magenta": "35", "cyan": "36", "white": "37",
}  # fmt: skip
_RESET = "\x1b[0m"
# The width of a terminal that does not say its own (and of TERM=dumb).
_TERMINAL_WIDTH = 80


def sgr(style: str, colour: bool = True) -> str:
    """The escape that starts `style` ("bold yellow": ESC[1;33m); colours left out unless
    `colour`; '' for no style."""
    words = style.split()
    codes = [_ATTRIBUTES[w] for w in words if w in _ATTRIBUTES]
    if colour:
        codes += [_COLOURS[w] for w in words if w in _COLOURS]
    return f"\x1b[{';'.join(codes)}m" if codes else ""


class Screen:
    """A stream, its width and whether it is a terminal that takes styles: sys.stdout or
    sys.stderr named (the one of the moment: a test's capture, a closed pipe's stand-in), or
    any stream given; `terminal` says whether it is one, instead of asking it."""

    def __init__(
        self, stream: str | TextIO, width: int | None = None, *, terminal: bool | None = None
    ) -> None:
        self.stream = stream
        self._width = width
        self._terminal = terminal

    @property
    def file(self) -> TextIO:
        return getattr(sys, self.stream) if isinstance(self.stream, str) else self.stream

    @property
    def width(self) -> int:
        """COLUMNS, or the terminal's width on a terminal, or PIPED_WIDTH to a pipe (set once
        by the command: --wide sets it wider than any table)."""
        if self._width is not None:
            return self._width
        return stream_width(self.file) or _terminal_width()

    @width.setter
    def width(self, value: int | None) -> None:
        self._width = value

    @property
    def is_terminal(self) -> bool:
        if self._terminal is not None:
            return self._terminal
        said = os.environ.get("TTY_COMPATIBLE", "")
        if said in ("0", "1"):
            return said == "1"
        force = os.environ.get("FORCE_COLOR")
        if force is not None:
            return force != ""
        try:
            return self.file.isatty()
        except (AttributeError, ValueError):  # no isatty, or closed
            return False

    @property
    def styled(self) -> bool:
        """Whether styles are written: a terminal, and not a dumb one."""
        return self.is_terminal and os.environ.get("TERM", "").lower() not in ("dumb", "unknown")

    @property
    def no_color(self) -> bool:
        return os.environ.get("NO_COLOR", "") != ""

    def line(self, spans: Line | str = "") -> None:
        """One line as it is (never wrapped: --wide's tables may be wider than the width)."""
        try:
            self.file.write(self.text(spans) + "\n")
        except BrokenPipeError:
            if not self._reader_gone():
                raise

    def text(self, spans: Line | str) -> str:
        """The line as written: each styled piece between its escape and a reset on a
        terminal, its characters alone elsewhere."""
        if isinstance(spans, str):
            return spans
        if not self.styled:
            return "".join(text for text, _ in spans)
        colour = not self.no_color
        written = []
        for text, style in _merged(spans):
            start = sgr(style, colour)
            written.append(f"{start}{text}{_RESET}" if start else text)
        return "".join(written)

    def say(self, spans: Line | str, *, indent: str = "", break_words: bool = True) -> None:
        """A message or note wrapped to the width at spaces, further lines after `indent`; a
        word longer than the width broken after '-', '_', '/' or '.' (chipcost.cli.fit.wrapped),
        or, without `break_words`, a line of its own, whole (a URL)."""
        line: Line = [(spans, "")] if isinstance(spans, str) else list(spans)
        whole = "".join(text for text, _ in line)
        room = (max(self.width, 20) if indent else self.width) - len(indent)
        for n, (start, end) in enumerate(wrapped(whole, room, break_words=break_words)):
            piece = slice_spans(line, start, end)
            self.line([(indent, ""), *piece] if n else piece)

    def command(self, lead: str, command: str) -> None:
        """`lead` and a command to paste: on one line where they fit the width, else the
        command broken between its arguments (an option kept with its value, a quoted one
        whole), each line but the last ended by a shell's continuation (' \\'), so that the
        lines pasted run as one command, and none ends inside an argument. A lead of words
        wider than the width itself is said wrapped, the command under it (a lead that ends in
        the command's own first word, 'try: chipcost', is short enough never to be)."""
        room = max(self.width, 40)
        units = _arguments(command)
        if len(lead) + 2 > room:
            under = " " * (len(lead) - len(lead.lstrip(" ")) + 2)
            self.say(lead, indent=under)
            lead = under
        line = lead
        for unit in units:
            joined = f"{line} {unit}" if line.strip() else line + unit
            if len(joined) + 2 <= room or line.strip() == lead.strip() or not line.strip():
                line = joined
                continue
            self.line(line + " \\")
            line = " " * (len(lead) - len(lead.lstrip(" ")) + 4) + unit
        self.line(line)

    def flush(self) -> None:
        try:
            self.file.flush()
        except BrokenPipeError:
            if not self._reader_gone():
                raise

    def _reader_gone(self) -> bool:
        """A write found the stream's reader gone: during a collection or a backfill the run
        stops in order and the line goes nowhere (chipcost.core.stopping.output_gone), True;
        else False, and the error ends the command as on any closed pipe."""
        from chipcost.core.stopping import output_gone

        return output_gone(_descriptor(self.file))


def _merged(spans: Line) -> list[Span]:
    """Neighbouring pieces of one style as one; empty ones out."""
    merged: list[Span] = []
    for text, style in spans:
        if not text:
            continue
        if merged and merged[-1][1] == style:
            merged[-1] = (merged[-1][0] + text, style)
        else:
            merged.append((text, style))
    return merged


def _descriptor(stream: TextIO) -> int:
    try:
        return stream.fileno()
    except (AttributeError, ValueError, OSError):  # none (a test's capture), or closed
        return -1


def _terminal_width() -> int:
    """The terminal's width, asked of stdin, stdout, then stderr; 80 where none says."""
    if os.environ.get("TERM", "").lower() in ("dumb", "unknown"):
        return _TERMINAL_WIDTH
    for fd in (0, 1, 2):
        try:
            columns = os.get_terminal_size(fd).columns
        except (AttributeError, ValueError, OSError):
            continue
        return columns or _TERMINAL_WIDTH
    return _TERMINAL_WIDTH


out = Screen("stdout")
err = Screen("stderr")


def print_fitted(screen: Screen, fitted: Fitted) -> None:
    """Print the laid-out lines as they are (never wrapped again: --wide may be wider); every
    column left out prints nothing, not a blank line."""
    for line in fitted.lines:
        screen.line(line)


def print_wrapped(screen: Screen, text: str, *, indent: str = "", head: Span = ("", "")) -> None:
    """A note or a message, plain text (never markup) after a styled `head` ("note"), wrapped
    to the width at spaces, each further line indented: a word longer than the width (a URL)
    is a line of its own, whole, never cut."""
    spans = [head, (f" {text}", "")] if head[0] else [(text, "")]
    screen.say(spans, indent=indent, break_words=False)


def notices(fmt: str) -> Screen:
    """Where banners and notes go: with the table, or on stderr when stdout is data (csv,
    json)."""
    return out if fmt == "table" else err


def live_on_stderr() -> RichConsole:
    """A rich console on stderr for a live progress line (collect's status, backfill's bars):
    what chipcost writes to stderr meanwhile goes through it (rich's Live takes sys.stderr
    while it draws), so a line is never drawn over."""
    from rich.console import Console

    class LiveConsole(Console):
        def on_broken_pipe(self) -> None:
            # A bar drawn to a pipe (FORCE_COLOR) whose reader is gone: the run stops in order,
            # not rich's way (stdout pointed at the null device, SystemExit(1) in the thread
            # that drew).
            from chipcost.core.stopping import output_gone

            self.quiet = True
            if not output_gone(_descriptor(self.file)):
                super().on_broken_pipe()

    return LiveConsole(stderr=True, emoji=False, width=err.width)


_ARGUMENT = re.compile(r"""(?:'[^']*'|"[^"]*"|[^\s'"])+""")


def _arguments(command: str) -> list[str]:
    """A command's arguments as typed (quotes kept), each option with its value: the pieces a
    command line is broken between."""
    pieces = _ARGUMENT.findall(command)
    units: list[str] = []
    for piece in pieces:
        if (
            units
            and units[-1].startswith("-")
            and " " not in units[-1]
            and not piece.startswith("-")
        ):
            units[-1] += f" {piece}"
        else:
            units.append(piece)
    return units
