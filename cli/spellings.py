"""docs/cli.md's spellings, written from the click command tree: every option two or more
commands take, with the commands that take it (the idea column is the page's own words; a new
row starts with the help's first clause), and every old spelling still taken (a hidden option
whose value goes to its new one's). `python -m chipcost.cli.spellings` writes both tables
between their markers; tests/core/test_one_spelling.py fails when the page differs."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from chipcost.cli.parser import Command, every_command
from chipcost.cli.registry import OLD_VALUES, RENAMED

DOC = Path(__file__).resolve().parents[1] / "docs" / "cli.md"
MARKS = {
    name: (f"<!-- spellings: {name} (python -m chipcost.cli.spellings) -->", "<!-- /spellings -->")
    for name in ("options", "old")
}


def options(command: click.Command) -> Iterator[click.Option]:
    """A command's options as --help lists them: hidden ones and arguments left out."""
    return (p for p in command.params if isinstance(p, click.Option) and not p.hidden)


def shown(option: click.Option, command: click.Command, name: str) -> str:
    """The option as `chipcost NAME --help` lists it, click's own left column: '--warehouse,
    --db DB', '--wide', '--spot / --no-spot', '--format [table|csv|json]'."""
    record = option.get_help_record(click.Context(command, info_name=name))
    assert record is not None  # options() leaves hidden ones out
    return record[0]


def _cell(text: str) -> str:
    """Text as a Markdown table's cell: its '|' escaped."""
    return text.replace("|", "\\|")


def _ideas(text: str) -> dict[str, str]:
    """The page's idea of each option in its table, by the option's first spelling."""
    begin, end = MARKS["options"]
    rows = text.partition(begin)[2].partition(end)[0].strip().splitlines()[2:]
    return {
        row.split(" | ")[1].split("`")[1].split()[0].rstrip(","): row.split(" | ")[0][2:]
        for row in rows
    }


def spelling_cell(shown_by: dict[str, list[str]]) -> str:
    """How the commands' --help show one option: the spelling most of them show, then each
    other with the commands that show it ('`--out PATH`; `--out OUT` in `site`, `export`'),
    so that the table says where one idea has two spellings rather than hide them."""
    first, *others = sorted(shown_by, key=lambda s: -len(shown_by[s]))  # a tie: the first seen
    return "; ".join(
        [f"`{first}`", *(f"`{s}` in {', '.join(f'`{c}`' for c in shown_by[s])}" for s in others)]
    )


def options_table(ideas: dict[str, str]) -> str:
    """Every option two or more commands take: the idea, the spelling each command's --help
    shows, the commands."""
    seen: dict[str, tuple[str, dict[str, list[str]], list[str]]] = {}
    for name, command in every_command():
        for option in options(command):
            flag = option.opts[0]
            idea = ideas.get(flag) or (option.help or "").split(". ")[0].split(": ")[0]
            seen.setdefault(flag, (idea.rstrip("."), {}, []))
            seen[flag][1].setdefault(shown(option, command, name), []).append(name)
            seen[flag][2].append(f"`{name}`")
    lines = ["| idea | spelling | commands |", "|---|---|---|"]
    for _, (idea, shown_by, commands) in sorted(seen.items()):
        if len(commands) > 1:
            lines.append(f"| {idea} | {_cell(spelling_cell(shown_by))} | {', '.join(commands)} |")
    return "\n".join(lines)


def old_table() -> str:
    """Every old spelling the command line still takes, then the old values and the renamed."""
    lines = ["| old | new |", "|---|---|"]
    for name, command in every_command():
        if isinstance(command, Command):
            for old, _, new in command.old_spellings():
                said = old.option if old.kind != "argument" else old.name.upper()
                lines.append(f"| `{name} {said}` | `{name} {new}` |")
    lines += [f"| {_cell(old)} | {_cell(new)} |" for old, new in OLD_VALUES]
    lines += [
        f"| `{command} {old}` | `{command} {new}`: refused, the refusal naming it ({old} is "
        "another command's option) |"
        for (command, old), new in RENAMED.items()
    ]
    return "\n".join(lines)


def written(text: str) -> str:
    """docs/cli.md's text with both tables as the command line has them."""
    for name, table in (("options", options_table(_ideas(text))), ("old", old_table())):
        begin, end = MARKS[name]
        head, found, rest = text.partition(begin)
        if not found:
            raise ValueError(f"{DOC.name} has no {begin}")
        text = f"{head}{begin}\n{table}\n{end}{rest.partition(end)[2]}"
    return text


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    if (new := written(text)) != text:
        DOC.write_text(new, encoding="utf-8")
        sys.stdout.write(f"wrote {DOC.name}'s spellings from the command line\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
