"""A long command's steps said as it goes (`chipcost report`'s reads, page and files): on a
terminal, rich's spinner line on stderr with the step and the time so far, gone when the
command ends; nothing on a pipe or in a log, where the command's own lines are enough."""

from __future__ import annotations

from collections.abc import Callable, Iterator
from contextlib import contextmanager


def _quiet(_: str) -> None:
    """No step said: stderr is no terminal."""


@contextmanager
def steps_shown(first: str) -> Iterator[Callable[[str], None]]:
    """A function that shows its line as the step under way, on a terminal's stderr."""
    from chipcost.cli.consoles import err, live_on_stderr

    if not err.is_terminal:
        yield _quiet
        return
    from rich.markup import escape
    from rich.progress import Progress, SpinnerColumn, TextColumn, TimeElapsedColumn

    columns = (SpinnerColumn(), TextColumn("{task.description}"), TimeElapsedColumn())
    with Progress(*columns, console=live_on_stderr(), transient=True) as bar:
        task = bar.add_task(escape(first), total=None)

        def step(line: str) -> None:
            # Drawn now, not at the next tick: a step may end before one.
            bar.update(task, description=escape(line), refresh=True)

        yield step
