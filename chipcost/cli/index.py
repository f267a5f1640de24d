"""Every command by name, and the overview `chipcost` and `chipcost --help` print.

This module imports nothing beyond the standard library: the console script answers
`chipcost`, `--help` and `--version` from here without loading the CLI framework, rich or any
command (chipcost.cli.entry).
"""

from __future__ import annotations

import shutil
import textwrap

SUMMARY = "AI-accelerator prices with history: collect, query, compare."
# The options of `chipcost` itself (those of chipcost.cli.main's callback), as --help lists them.
OPTIONS = (
    ("-V, --version", "Print the version."),
    ("-h, --help", "Show this message and exit."),
)

# Every command, by name: its module in chipcost.cli.commands, the function (or Typer app)
# there, and the line `chipcost --help` shows for it. A command's module is imported only
# when the command runs or shows its own help, so `--help` and each command load only what
# they need (tests/cli/test_lazy_commands.py checks each line against the command's own help).
COMMANDS: dict[str, tuple[str, str, str]] = {
    "collect": (
        "collect",
        "collect",
        "Collect today's prices (or replay an archive) into the warehouse.",
    ),
    "prices": (
        "prices",
        "prices",
        "Current per-chip hourly prices, cheapest first per chip, pricing model and term.",
    ),
    "history": (
        "history",
        "history",
        "The cheapest per-chip-hour price per day per pricing model, with a terminal chart.",
    ),
    "index": (
        "price_index",
        "index",
        "The daily rental price index per chip, with its changes and constituents.",
    ),
    "sql": ("admin", "sql", "Run an ad hoc read-only query against the warehouse."),
    "cost": (
        "cost",
        "cost",
        "Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first.",
    ),
    "compare": (
        "compare",
        "compare",
        "Is chip A cheaper per token than chip B? Per pricing model, with the figures used.",
    ),
    "report": (
        "report",
        "report",
        "Write the report (HTML) and a CSV of every change; mail it, or write it as .eml.",
    ),
    "site": (
        "site",
        "site",
        "Write the price explorer: every current offer, sortable and filterable, no server.",
    ),
    "export": (
        "export",
        "export",
        "Export the whole price history under FOCUS's column names, as CSV and Parquet.",
    ),
    "backfill": (
        "backfill",
        "backfill",
        "Load AWS's past EC2 price lists (on-demand, reserved) as history, oldest first.",
    ),
    "migrate": (
        "admin",
        "migrate",
        "Create the warehouse or upgrade its schema to this version of chipcost.",
    ),
    "sources": (
        "admin",
        "sources",
        "List the registered sources, with each one's last successful run when a warehouse exists.",
    ),
    "remove-run": (
        "admin",
        "remove_run",
        "Take one run out of the warehouse and restate the price history from the rest.",
    ),
    "demo": (
        "demo",
        "demo",
        "Replay the bundled SAMPLE archive (synthetic prices) into the warehouse and show them.",
    ),
    "throughput": (
        "throughput",
        "throughput_app",
        "Throughput figures: references, derived figures and your own measurements.",
    ),
}


def overview(width: int | None = None) -> str:
    """What `chipcost --help` prints: usage, options, and each command's line, fitted to the
    terminal's width."""
    width = width or shutil.get_terminal_size((100, 24)).columns
    width = max(40, min(width, 100))
    lines = ["Usage: chipcost [OPTIONS] COMMAND [ARGS]...", "", SUMMARY, ""]
    for title, rows in (("Options", OPTIONS), ("Commands", _command_rows())):
        lines.append(f"{title}:")
        indent = 2 + max(len(name) for name, _ in rows) + 2
        for name, text in rows:
            lines += textwrap.wrap(
                text,
                width=width,
                initial_indent=f"  {name}".ljust(indent),
                subsequent_indent=" " * indent,
            )
        lines.append("")
    lines.append("`chipcost COMMAND --help` shows a command's options.")
    return "\n".join(lines) + "\n"


def _command_rows() -> tuple[tuple[str, str], ...]:
    return tuple((name, line) for name, (_, _, line) in COMMANDS.items())
