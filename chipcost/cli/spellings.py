"""docs/cli.md's spellings, written from the commands' click options: every option two or more
commands take, with the commands that take it, and every old spelling still taken (a hidden
option whose value goes to its new one's, chipcost.cli.parser.Command). `python -m
chipcost.cli.spellings` writes both tables between their markers; tests/core/
test_one_spelling.py fails when the file holds anything else."""

from __future__ import annotations

import sys
from collections.abc import Iterator
from pathlib import Path

import click

from chipcost.cli.parser import RENAMED, Command, every_command

DOC = Path(__file__).resolve().parents[2] / "docs" / "cli.md"
# What an option shared by several commands stands for, in a few words (else its first help's
# first clause).
IDEAS = {
    "--warehouse": "the warehouse",
    "--format": "output format",
    "--limit": "how many rows",
    "--wide": "every column",
    "--pricing-model": "pricing model (its codes: on_demand, spot, ...)",
    "--chip": "chip",
    "--provider": "provider",
    "--region": "region",
    "--instance": "instance type",
    "--currency": "currency",
    "--list-prices": "list prices (your discounts set aside)",
    "--out": "output directory",
    "--stale-days": "days without a success before a source is stale",
    "--since": "first day",
    "--until": "last day",
    "--model": "the model (an LLM: llama-3-70b)",
    "--workload": "training or inference",
    "--speed": "tokens/s per user",
    "--data-dir": "where runs and payloads are kept",
    "--prefect": "run as a Prefect flow",
    "--precision": "precision class (fp8, bf16)",
    "--allow-above-peak": "keep a figure above the chip's dense peak",
    "--chip-count": "chips per instance",
    "--citation": "where a figure comes from (what was run, by whom)",
    "--spot": "spot prices (`prices`: only them or none; `backfill`: load theirs instead)",
    "--dry-run": "say what would be done, do none of it (`report`: write the e-mail as .eml)",
}
# Old spellings of values (not options), taken for one release with the same note.
OLD_VALUES = (
    ("`index --pricing-model 1yr`", "`index --pricing-model commitment` (term `1yr`)"),
    ("explorer address `model=spot`, `tokens=MODEL|WORKLOAD`, `cols=...pricing`",
     "`pricing_model=spot`, `model=MODEL|WORKLOAD`, `cols=...offer_label`"),
)  # fmt: skip
MARKS = {
    name: (f"<!-- spellings: {name} (python -m chipcost.cli.spellings) -->", "<!-- /spellings -->")
    for name in ("options", "old")
}


def options(command: Command) -> Iterator[click.Option]:
    """A command's options as --help lists them: hidden ones and arguments left out."""
    return (p for p in command.params if isinstance(p, click.Option) and not p.hidden)


def _shown(option: click.Option, command: Command) -> str:
    """'`--db DB` (or `--warehouse`)', '`--wide`', '`--spot` (or `--no-spot`)'."""
    first, *others = sorted(
        [*option.opts, *option.secondary_opts], key=lambda s: (s != _listed_flag(option), s)
    )
    value = "" if option.is_flag else f" {option.make_metavar(click.Context(command))}"
    return f"`{first}{value}`" + (f" (or {', '.join(f'`{o}`' for o in others)})" if others else "")


def _listed_flag(option: click.Option) -> str:
    """The flag an option is listed under: the one IDEAS names, else its first."""
    return next((s for s in option.opts if s in IDEAS), option.opts[0])


def _cell(text: str) -> str:
    """Text as a Markdown table's cell: its '|' escaped."""
    return text.replace("|", "\\|")


def options_table() -> str:
    """Every option two or more commands take: the idea, the spelling, the commands."""
    seen: dict[str, tuple[str, str, list[str]]] = {}
    for name, command in every_command():
        for option in options(command):
            flag = _listed_flag(option)
            idea = IDEAS.get(flag) or (option.help or "").split(". ")[0].split(": ")[0].rstrip(".")
            seen.setdefault(flag, (idea, _shown(option, command), []))[2].append(f"`{name}`")
    lines = ["| idea | spelling | commands |", "|---|---|---|"]
    for _, (idea, spelling, commands) in sorted(seen.items()):
        if len(commands) > 1:
            lines.append(f"| {idea} | {_cell(spelling)} | {', '.join(commands)} |")
    return "\n".join(lines)


def old_table() -> str:
    """Every old spelling the command line still takes, then the old values and the renamed."""
    lines = ["| old | new |", "|---|---|"]
    for name, command in every_command():
        for old in command.fields.values():
            if old.same_as is not None:
                said = old.option if old.kind != "argument" else old.name.upper()
                lines.append(f"| `{name} {said}` | `{name} {command.fields[old.same_as].option}` |")
    lines += [f"| {_cell(old)} | {_cell(new)} |" for old, new in OLD_VALUES]
    lines += [
        f"| `{command} {old}` | `{command} {new}`: refused, the refusal naming it ({old} is "
        "another command's option) |"
        for (command, old), new in RENAMED.items()
    ]
    return "\n".join(lines)


def written(text: str) -> str:
    """docs/cli.md's text with both tables as the command line has them."""
    for name, table in (("options", options_table()), ("old", old_table())):
        begin, end = MARKS[name]
        head, found, rest = text.partition(begin)
        if not found:
            raise ValueError(f"{DOC.name} has no {begin}")
        _, _, tail = rest.partition(end)
        text = f"{head}{begin}\n{table}\n{end}{tail}"
    return text


def main() -> int:
    text = DOC.read_text(encoding="utf-8")
    new = written(text)
    if new != text:
        DOC.write_text(new, encoding="utf-8")
        sys.stdout.write(f"wrote {DOC.name}'s spellings from the command line\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
