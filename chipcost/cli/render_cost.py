"""Terminal output of `chipcost cost`: the ranking, then where every figure came from."""

from __future__ import annotations

from collections.abc import Mapping, Sequence

import polars as pl
from rich.console import Console
from rich.table import Table
from rich.text import Text

from chipcost.cli.render import SAMPLE_BANNER, shown
from chipcost.pipeline.cost import CostRanking
from chipcost.transform.tokens import human_count


def pricing_label(row: Mapping[str, object]) -> str:
    """'reserved 1yr all_upfront standard'; 'none' and 'default' parts are left out."""
    parts = [row["pricing_model"], row["term"], row["payment"], row["plan"]]
    return " ".join(str(p) for p in parts if p not in (None, "none", "default"))


def _money(value: float | None, digits: int = 2) -> str:
    return "" if value is None else f"${value:,.{digits}f}"


def _change(savings: float | None) -> str:
    """A saving of 0.47 shows as the cost change it is: '−47%' (dearer: '+12%')."""
    if savings is None:
        return ""
    change = round(-100 * savings)
    return "0%" if change == 0 else f"{change:+d}%".replace("-", "\u2212")


def _break_even(row: Mapping[str, object], baseline: object) -> str:
    tokens, days = row.get("break_even_tokens"), row.get("break_even_days")
    if row["chip"] == baseline:
        return "baseline"
    if row.get("baseline_cost_per_million") is None:
        return ""
    if tokens is None:
        return "never (no saving)"
    return human_count(float(tokens)) + (f" / {float(days):,.0f} d" if days is not None else "")


def ranking_table(
    rows: Sequence[Mapping[str, object]], refs: Mapping[str, int], ask: Mapping[str, object]
) -> Table:
    """The ranking, cheapest per million tokens first."""
    title = f"cost per million tokens: {ask['model']} {ask['workload']} ({ask['scope']})"
    table = Table(title=title, title_justify="left")
    headers = ["#", "chip", "pricing", "provider", "region", "$/chip-hr", "tok/s/chip"]
    headers += ["throughput", "$/M tokens"]
    if ask["tokens"]:
        headers.append(f"cost of {human_count(float(ask['tokens']))} tok")
    headers.append(f"vs {ask['baseline']}")
    if ask["migration_cost"] is not None:
        headers.append("break-even")
    for header in headers:
        numeric = header.startswith(("$", "tok/s", "cost", "vs", "#"))
        table.add_column(header, justify="right" if numeric else "left")
    for n, row in enumerate(rows, start=1):
        cells = [
            str(n),
            str(row["chip"]),
            shown(pricing_label(row)),
            shown(row["provider"]),
            shown(row["region"]),
            _money(float(row["price_per_chip_hour"]), 4),
            f"{float(row['tokens_per_second_per_chip']):,.0f}",
            f"{row['throughput_kind']} [{refs[str(row['throughput_id'])]}]",
            _money(float(row["cost_per_million_tokens"]), 4),
        ]
        if ask["tokens"]:
            cells.append(_money(row["cost_for_tokens"], 0))  # type: ignore[arg-type]
        cells.append(_change(row["savings_vs_baseline"]))  # type: ignore[arg-type]
        if ask["migration_cost"] is not None:
            cells.append(_break_even(row, ask["baseline"]))
        table.add_row(*cells)
    return table


def reference_numbers(rows: Sequence[Mapping[str, object]]) -> dict[str, int]:
    """Footnote number per throughput figure, in order of first use."""
    numbers: dict[str, int] = {}
    for row in rows:
        numbers.setdefault(str(row["throughput_id"]), len(numbers) + 1)
    return numbers


def print_sources(
    console: Console, rows: Sequence[Mapping[str, object]], refs: Mapping[str, int]
) -> None:
    """One line per throughput figure used: id, kind, figure, implied MFU, source and date.

    Derived figures share the model's parameter source: it is printed once, after them.
    """
    seen: set[str] = set()
    shared: dict[str, None] = {}
    for row in rows:
        ident = str(row["throughput_id"])
        if ident in seen:
            continue
        seen.add(ident)
        mfu = row.get("implied_mfu")
        derived = row["throughput_origin"] == "derived"
        implied = f", needs {100 * float(mfu):.0f}% of peak" if mfu is not None else ""
        source, dated = str(row["throughput_source"]), f" ({row['throughput_source_date']})"
        if derived:
            source, _, parameters = source.partition("; parameters: ")
            shared[parameters] = None
            implied = dated = ""
        # A Text, not markup: the source is what a user typed or a reference file holds.
        line = (
            f"[{refs[ident]}] {ident}: {row['throughput_kind']}, "
            f"{float(row['tokens_per_second_per_chip']):,.0f} tok/s per chip{implied}; "
        )
        console.print(shown(f"{line}{source}{dated}"), highlight=False)
    for parameters in shared:
        console.print(shown(f"    derived figures' parameter count: {parameters}"), highlight=False)


def print_set_aside(console: Console, frame: pl.DataFrame) -> None:
    for row in frame.iter_rows(named=True):
        console.print(
            f"[yellow]set aside[/] {row['throughput_id']} ({row['kind']}, "
            f"{row['tokens_per_second_per_chip']:,.0f} tok/s per chip on {row['chip']}): "
            f"{row['set_aside_because']}, so it cannot be right",
            highlight=False,
        )


def print_footer(console: Console, notes: Sequence[str], last: tuple | None) -> None:
    for note in notes:
        note_line = Text.assemble(("note", "dim"), " ", shown(note))
        console.print(note_line, highlight=False, soft_wrap=True)
    if last is not None:
        run_id, observed_at, sample, _ = last
        console.print(f"prices as of {observed_at:%Y-%m-%d %H:%M} UTC (run {run_id})")
        if sample:
            console.print(SAMPLE_BANNER)


def print_ranking(console: Console, ranking: CostRanking) -> None:
    """The ranking, the figures it used, what was set aside or left out, and the method."""
    refs = reference_numbers(ranking.rows)
    console.print(ranking_table(ranking.rows, refs, ranking.header))
    if ranking.more:
        console.print(f"{ranking.more} more rows: narrow with --chip/--region or --limit")
    print_sources(console, ranking.rows, refs)
    print_set_aside(console, ranking.set_aside)
    print_footer(console, ranking.notes, ranking.last_run)
