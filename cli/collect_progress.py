"""`chipcost collect`'s progress as it goes, from the `chipcost.progress` logger: rich's
progress bar on a terminal's stderr, plain lines on a pipe or in a log."""

from __future__ import annotations

import logging
import time
from collections.abc import Iterator
from contextlib import contextmanager
from typing import TYPE_CHECKING, Any

from chipcost.core.counting import counted

if TYPE_CHECKING:
    from rich.progress import Progress, TaskID


def first_line(runs: int | None, replay: str | None) -> str:
    if runs is not None:
        return f"replaying {counted(runs, 'archive run')} from {replay}"
    return "collecting…"


@contextmanager
def shown_on(shown: Shown, first: str) -> Iterator[None]:
    """The collection's progress (chipcost.progress) as it goes: on a terminal, rich's
    progress bar on stderr (runs loaded of a replay's, or sources fetched of a live run's)
    under the line each source's outcome prints as it finishes; elsewhere (a pipe, a log),
    plain lines, a few for a replay (PLAIN_STEPS), and each source's outcome."""
    from chipcost.cli.consoles import err, live_on_stderr

    logger = logging.getLogger("chipcost.progress")
    logger.addHandler(shown)
    logger.setLevel(logging.INFO)
    # Not printed again by the handler Prefect's logging puts on the root logger (a
    # timestamped line per source, hundreds in a replay).
    propagate, logger.propagate = logger.propagate, False
    try:
        if not err.is_terminal:
            shown.say(first)
            yield
            return
        from rich.progress import (
            BarColumn,
            MofNCompleteColumn,
            Progress,
            TextColumn,
            TimeElapsedColumn,
        )

        columns = (TextColumn("{task.description}"), BarColumn(), MofNCompleteColumn())
        with Progress(
            *columns, TimeElapsedColumn(), console=live_on_stderr(), transient=True
        ) as bar:
            shown.bar, shown.task = bar, bar.add_task(_escape(first), total=shown.runs)
            yield
    finally:
        logger.removeHandler(shown)
        logger.propagate = propagate


# Lines a replay prints where stderr is no terminal: one at each of these shares of its runs,
# these seconds apart at least (a log of a long replay shows it moving; a short one stays short).
PLAIN_STEPS = 4
PLAIN_SECONDS = 5.0


class Shown(logging.Handler):
    """What the run says as it goes, and the archive runs whose load committed, in order.

    The record fields are chipcost.pipeline.runners' STARTED, FINISHED, LOADED, NOTE and
    REPLAYING, spelled here so that a command that fails early imports nothing of the
    pipeline.
    """

    def __init__(self, runs: int | None) -> None:
        super().__init__()
        self.runs, self.loaded = runs, []
        self.bar: Progress | None = None
        self.task: TaskID | None = None
        self.total = self.done = 0
        self.started = self.said_at = time.monotonic()

    def emit(self, record: logging.LogRecord) -> None:
        if (held := getattr(record, "replay_runs", None)) is not None:
            # The runs holding a source asked for: the bar and a Ctrl-C count these.
            self.runs = held
            if self.bar is not None:
                self.bar.update(self.task, total=held)
        if (total := getattr(record, "sources_started", None)) is not None:
            self.total, self.started = total, time.monotonic()
            self._step(f"fetching {counted(total, 'source')}", total=total, completed=0)
        elif (result := getattr(record, "source_finished", None)) is not None:
            self.done += 1
            # Wrapped to the terminal's width at spaces, never cut: a URL stays whole.
            from chipcost.cli.consoles import err, print_wrapped

            print_wrapped(err, _finished(result), indent=" " * 18)
            if self.bar is not None:  # a plain line is the source's own, above
                done = f"{self.done:,} of {counted(self.total, 'source')} done"
                self._step(done, completed=self.done)
        elif run := getattr(record, "loaded_run", None):
            self.loaded.append(run)
            of = f" of {self.runs}" if self.runs else ""
            said = f"loaded run {run} ({len(self.loaded)}{of}, {self._seconds()})"
            if self.bar is None and not self._plain_step():
                return
            # The bar counts a replay's runs; a live run's counts its sources, fetched.
            self._step(said, completed=len(self.loaded) if self.runs else None)
        elif getattr(record, "note", None):  # a warning the command line says, as a note
            from chipcost.cli.consoles import err, print_wrapped

            print_wrapped(err, f"note: {record.getMessage()}", indent="  ")
        elif self.bar is not None:  # what a step is doing now: the bar's line only
            self.describe(record.getMessage())

    def _plain_step(self) -> bool:
        """Whether a plain line says this load: every run of a live collection; of a replay,
        one at each PLAIN_STEPS share of its runs, PLAIN_SECONDS apart at least, and not the
        last (the summary follows at once)."""
        n, runs = len(self.loaded), self.runs
        if not runs:
            return True
        step = max(1, -(-runs // PLAIN_STEPS))
        if n % step or n == runs or time.monotonic() - self.said_at < PLAIN_SECONDS:
            return False
        self.said_at = time.monotonic()
        return True

    def _step(self, line: str, **progress: int | None) -> None:
        if self.bar is None:
            self.say(line)
            return
        assert self.task is not None
        self.bar.update(self.task, description=_escape(line), **progress)

    def describe(self, line: str) -> None:
        """The bar's line (a terminal), or a plain line."""
        self._step(line)

    def say(self, line: str) -> None:
        from chipcost.cli.consoles import err

        err.say([(line, "dim")])

    def _seconds(self) -> str:
        return f"{time.monotonic() - self.started:.0f} s"


def _finished(result: Any) -> str:
    """One source's outcome as it finishes: status, time, name and message (the message
    without the source's name it starts with; the whole of it is in the final table)."""
    message = result.message.removeprefix(f"{result.source}: ")
    return f"{result.status:>8} {result.seconds:5.1f} s  {result.source}: {message}"


def _escape(text: str) -> str:
    from rich.markup import escape

    return escape(text)
