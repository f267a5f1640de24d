"""docs/cli.md's spellings, written from the parser: every option two or more commands take,
with the commands that take it, and every old spelling still taken (a hidden option whose
value goes to its new one's, chipcost.cli.parser._Old). `python -m chipcost.cli.spellings`
writes both tables between their markers; tests/core/test_one_spelling.py fails when the file
holds anything else."""

from __future__ import annotations

import argparse
import sys
from collections.abc import Iterator
from pathlib import Path

from chipcost.cli.parser import COMMANDS, RENAMED, Group, _Old, load, parser_for

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


def parsers() -> Iterator[tuple[str, argparse.ArgumentParser]]:
    """('prices', its parser), ('throughput add', ...): every command's own parser."""
    for name in COMMANDS:
        found = load(name)
        subs = list(found.commands) if isinstance(found, Group) else [None]
        for sub in subs:
            args = [name] if sub is None else [name, sub]
            yield " ".join(args), parser_for(args).chosen


def options(parser: argparse.ArgumentParser) -> Iterator[argparse.Action]:
    """A parser's options and arguments, --help left out."""
    return (a for a in parser._actions if not isinstance(a, argparse._HelpAction))


def _shown(action: argparse.Action) -> str:
    """'`--db DB` (or `--warehouse`)', '`--wide`', '`CHIP_A`'."""
    if not action.option_strings:
        return f"`{action.metavar or action.dest.upper()}`"
    first, *others = sorted(action.option_strings, key=lambda s: (s != _listed_flag(action), s))
    takes = action.nargs != 0 and not isinstance(action, argparse.BooleanOptionalAction)
    metavar = action.metavar if isinstance(action.metavar, str) else None
    value = f" {metavar or action.dest.upper()}" if takes else ""
    text = f"`{first}{value}`"
    return text + (f" (or {', '.join(f'`{o}`' for o in others)})" if others else "")


def _listed_flag(action: argparse.Action) -> str:
    """The flag an option is listed under: the one IDEAS names, else its first."""
    return next((s for s in action.option_strings if s in IDEAS), action.option_strings[0])


def _cell(text: str) -> str:
    """Text as a Markdown table's cell: its '|' escaped."""
    return text.replace("|", "\\|")


def _first_clause(text: str | None) -> str:
    return (text or "").split(". ")[0].split(": ")[0].rstrip(".").replace("%%", "%")


def options_table() -> str:
    """Every option two or more commands take: the idea, the spelling, the commands."""
    seen: dict[str, tuple[str, str, list[str]]] = {}
    for command, parser in parsers():
        for action in options(parser):
            if action.help == argparse.SUPPRESS or not action.option_strings:
                continue
            flag = _listed_flag(action)
            idea = IDEAS.get(flag) or _first_clause(action.help)
            seen.setdefault(flag, (idea, _shown(action), []))[2].append(f"`{command}`")
    lines = ["| idea | spelling | commands |", "|---|---|---|"]
    for _, (idea, spelling, commands) in sorted(seen.items()):
        if len(commands) > 1:
            lines.append(f"| {idea} | {_cell(spelling)} | {', '.join(commands)} |")
    return "\n".join(lines)


def old_table() -> str:
    """Every old spelling the parser still takes, then the old values."""
    lines = ["| old | new |", "|---|---|"]
    for command, parser in parsers():
        for action in options(parser):
            if isinstance(action, _Old):
                old = action.option_strings[0] if action.option_strings else action.metavar
                lines.append(f"| `{command} {old}` | `{command} {action.new.option}` |")
    lines += [f"| {_cell(old)} | {_cell(new)} |" for old, new in OLD_VALUES]
    lines += [
        f"| `{command} {old}` | `{command} {new}`: refused, the refusal naming it ({old} is "
        "another command's option) |"
        for (command, old), new in RENAMED.items()
    ]
    return "\n".join(lines)


def written(text: str) -> str:
    """docs/cli.md's text with both tables as the parser has them."""
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
        sys.stdout.write(f"wrote {DOC.name}'s spellings from the parser\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
