"""What `chipcost collect` says as it goes counts as every other count does (core/counting):
'fetching 1 source', not 'fetching 1 sources'."""

from __future__ import annotations

import logging

import pytest

from chipcost.cli.collect_progress import Shown, first_line
from chipcost.pipeline.runners import FINISHED, STARTED, progress_log


class Bar:
    """The lines rich's bar would show (a terminal's), as Shown updates it."""

    def __init__(self) -> None:
        self.lines: list[str] = []

    def update(self, task: object, description: str | None = None, **_: object) -> None:
        if description is not None:
            self.lines.append(description)


def record(extra: dict[str, object]) -> logging.LogRecord:
    """A record of chipcost.progress as chipcost.pipeline.runners logs one."""
    return progress_log.makeRecord(
        progress_log.name, logging.INFO, "", 0, "", (), None, None, extra
    )


@pytest.mark.parametrize(("sources", "said"), [(1, "fetching 1 source"), (2, "fetching 2 sources")])
def test_a_live_run_counts_its_sources_as_every_count_is_said(monkeypatch, sources, said):
    """On 2dbe3361 `collect --source ibm` said 'fetching 1 sources'."""
    shown = Shown(None)
    lines: list[str] = []
    monkeypatch.setattr(shown, "say", lines.append)  # a pipe's plain lines
    shown.emit(record({STARTED: sources}))
    assert lines == [said]


def test_the_bar_counts_the_sources_done_and_a_replay_its_runs():
    """A terminal's bar: 'fetching 1 source', then '1 of 1 source done' (was '1 of 1 sources
    done'); a replay's first line counts its runs as well."""
    from types import SimpleNamespace

    shown, bar = Shown(None), Bar()
    shown.bar, shown.task = bar, 0  # type: ignore[assignment]
    result = SimpleNamespace(source="ibm", status="skipped", seconds=0.0, message="ibm: none")
    for extra in ({STARTED: 1}, {FINISHED: result}):
        shown.emit(record(extra))
    assert bar.lines == ["fetching 1 source", "1 of 1 source done"]
    assert first_line(1, "sample/archive") == "replaying 1 archive run from sample/archive"
    assert first_line(1234, "a") == "replaying 1,234 archive runs from a"
