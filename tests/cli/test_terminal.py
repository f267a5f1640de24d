"""chipcost's one writer (chipcost.cli.consoles): styles as ANSI codes on a terminal, the same
characters without them anywhere else, and the width each stream is laid out to."""

from __future__ import annotations

import io

import pytest

from chipcost.cli import terminal
from chipcost.cli.consoles import Screen
from chipcost.cli.render_fresh import sample_banner

LINE = [("chip", "bold"), ("   ", ""), ("stale", "yellow"), (" ", ""), ("NO", "bold red")]


class _Stream(io.StringIO):
    def __init__(self, tty: bool) -> None:
        super().__init__()
        self._tty = tty

    def isatty(self) -> bool:
        return self._tty


@pytest.fixture(autouse=True)
def _no_settings(monkeypatch):
    for name in ("COLUMNS", "FORCE_COLOR", "TTY_COMPATIBLE", "NO_COLOR", "TERM"):
        monkeypatch.delenv(name, raising=False)


def _written(tty: bool, monkeypatch, **env: str) -> str:
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    screen = Screen(_Stream(tty), 80)
    screen.line(LINE)
    return screen.file.getvalue()


def test_a_terminal_gets_each_style_and_a_reset_after_it(monkeypatch):
    written = _written(True, monkeypatch)
    assert written == "\x1b[1mchip\x1b[0m   \x1b[33mstale\x1b[0m \x1b[1;31mNO\x1b[0m\n"


@pytest.mark.parametrize(
    ("tty", "env"),
    [
        (False, {}),  # a pipe or a file
        (True, {"TERM": "dumb"}),
        (True, {"TTY_COMPATIBLE": "0"}),
        (True, {"FORCE_COLOR": ""}),
    ],
)
def test_elsewhere_the_same_characters_without_a_code(tty, env, monkeypatch):
    assert _written(tty, monkeypatch, **env) == "chip   stale NO\n"


@pytest.mark.parametrize("env", [{"FORCE_COLOR": "1"}, {"TTY_COMPATIBLE": "1"}])
def test_a_pipe_said_to_be_a_terminal_gets_the_styles(env, monkeypatch):
    assert "\x1b[1;31mNO\x1b[0m" in _written(False, monkeypatch, **env)


def test_no_color_keeps_bold_and_drops_the_colours(monkeypatch):
    written = _written(True, monkeypatch, NO_COLOR="1")
    assert written == "\x1b[1mchip\x1b[0m   stale \x1b[1mNO\x1b[0m\n"


def test_a_note_is_wrapped_at_spaces_with_its_style_kept():
    from datetime import datetime

    screen = Screen(_Stream(True), 40)
    screen.say(sample_banner(datetime(2026, 11, 21)))
    lines = screen.file.getvalue().splitlines()
    assert lines[0] == "\x1b[1;33mSAMPLE DATA\x1b[0m: the sample week, ending"
    assert all(len(line) <= 40 for line in lines[1:]) and "\x1b" not in "".join(lines[1:])
    assert " ".join(lines[1:]).startswith("2026-11-21. These prices come from the bundled")


def test_text_is_never_read_as_markup():
    screen = Screen(_Stream(True), 80)
    screen.say("[red]x[/] :smile: [link=y]z")
    assert screen.file.getvalue() == "[red]x[/] :smile: [link=y]z\n"


@pytest.mark.parametrize(
    ("tty", "env", "expected"),
    [
        (False, {}, terminal.PIPED_WIDTH),  # a pipe: tables stay whole
        (False, {"COLUMNS": "80"}, 80),
        (True, {"COLUMNS": "100"}, 100),
        (True, {}, None),  # the terminal says its own
    ],
)
def test_the_width_of_a_stream(tty, env, expected, monkeypatch):
    for name, value in env.items():
        monkeypatch.setenv(name, value)
    assert terminal.width(_Stream(tty)) == expected
    measured = Screen(_Stream(tty)).width
    assert measured == expected if expected else measured > 0


@pytest.mark.parametrize(
    ("count", "said"), [(1, "its source"), (2, "both sources"), (34, "all 34 sources")]
)
def test_the_freshness_line_counts_its_sources_in_words(count, said):
    """'the last successful run of both sources', not 'of all 2 sources'."""
    from chipcost.cli.render_fresh import _whose

    assert _whose(count) == said


@pytest.mark.parametrize(
    ("rows", "shown", "said"),
    [(1, 100, "1 row"), (2, 100, "2 rows"), (1_000_000, 100, "1,000,000 rows (showing 100)")],
)
def test_a_query_says_its_rows_as_a_number_is_read(rows, shown, said):
    """On 0cae6cf: '1 rows', '1000000 rows (showing 100)'."""
    from chipcost.cli.terminal import row_count

    assert row_count(rows, shown) == said
