"""Every command line the README and docs/ show takes the options it is shown with: each
`chipcost COMMAND ... --option` in README.md and docs/*.md is read, and its options are
looked up in that command's own click options (hidden old spellings included: they are
taken)."""

from __future__ import annotations

import re
import shlex
from collections.abc import Iterator
from pathlib import Path

import pytest

from chipcost.cli.parser import COMMANDS, SETTINGS, command_for, options_after_command

ROOT = Path(__file__).resolve().parents[2]
# Options a page shows on purpose though no command takes them, and why.
EXAMPLES = {
    ("prices", "--max-upfront"): "docs/layout.md: how an option is added, shown once added",
}
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
# Where a command line shown ends: the end of its backticks or line, a comment, a pipe, the
# next command.
_END = re.compile(r"`|\s#\s|\s\|\s|&&|;\s|\)\s|\)$|\]\(")
_COMMAND = re.compile(r"(?<![\w.-])chipcost((?:\s+--?[\w-]+(?:[ =][^\s`-][^\s`]*)?)*\s+[a-z-]+)")


def shown(text: str) -> Iterator[list[str]]:
    """The words after `chipcost` of each command line in a page (continued lines joined)."""
    text = text.replace("\\\n", " ")
    for found in _COMMAND.finditer(text):
        rest = text[found.start(1) :].split("\n", 1)[0]
        rest = _END.split(rest, 1)[0]
        try:
            words = shlex.split(rest)
        except ValueError:  # a quote the line's end cut: the words as they stand
            words = rest.split()
        words = options_after_command(words)
        if words and words[0] in COMMANDS:
            yield words


def unknown_options(words: list[str]) -> list[str]:
    """The options of a command line its command does not take."""
    command = command_for(words)
    assert command is not None, words
    taken = {o for p in command.params for o in (*p.opts, *p.secondary_opts)}
    taken.update(SETTINGS["help_option_names"])
    options = [w.partition("=")[0] for w in words[1:] if re.fullmatch(r"--[a-z][\w-]*(=.*)?", w)]
    return [o for o in options if o not in taken and (words[0], o) not in EXAMPLES]


def lines_of(page: Path) -> list[list[str]]:
    return list(shown(page.read_text(encoding="utf-8")))


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_option_a_page_shows_is_its_commands(page):
    wrong = {" ".join(words): bad for words in lines_of(page) if (bad := unknown_options(words))}
    assert not wrong, wrong


def test_the_pages_show_command_lines_with_options():
    """The reading finds the command lines the pages show, subcommands and all."""
    every = [words for page in PAGES for words in lines_of(page)]
    assert len(every) > 100
    assert ["prices", "--chip", "H100", "--by", "provider"] in every
    assert any(w[:2] == ["throughput", "add"] and "--chip-count" in w for w in every)


def test_a_wrong_option_is_found():
    words = next(shown("run `chipcost prices --chips 8 --chip H100`"))
    assert unknown_options(words) == ["--chips"]
    words = next(shown(".venv/bin/chipcost throughput add --chip H100-SXM \\\n    --per instance"))
    assert unknown_options(words) == ["--per"]
    assert unknown_options(next(shown("chipcost --db x.duckdb prices --wide"))) == []
