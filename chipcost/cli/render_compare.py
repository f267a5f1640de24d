"""Terminal output of `chipcost compare`: one line per pricing model, then the figures."""

from __future__ import annotations

from typing import TYPE_CHECKING

from rich.console import Console

from chipcost.cli.render import shown
from chipcost.cli.render_cost import figure_point, print_footer
from chipcost.core.figures import speed_label
from chipcost.pipeline.compare import CompareResult, Comparison
from chipcost.transform.cost import money_sign
from chipcost.transform.tokens import change_words

if TYPE_CHECKING:
    import polars as pl


def _offer(row: dict) -> str:
    sign = money_sign(str(row.get("currency") or "USD"))
    mark = f" (your discount {row['discount']})" if row.get("discount") else ""
    return (
        f"{row['provider']} {row['region']} {sign}{float(row['price_per_chip_hour']):,.4f}"
        f"/chip-hr, {sign}{float(row['cost_per_million_tokens']):,.4f}/M tokens{mark}"
    )


def _range(line: Comparison) -> str:
    if line.best is None or line.worst is None:
        return "one figure each: no range"
    return f"range over the figures held: {change_words(line.best)} to {change_words(line.worst)}"


def _figure(row: dict) -> str:
    return (
        f"{row['throughput_id']}: {row['throughput_kind']}, "
        f"{float(row['tokens_per_second_per_chip']):,.1f} tok/s per chip{figure_point(row)}; "
        f"{row['throughput_source']} ({row['throughput_source_date']})"
    )


def print_comparison(console: Console, result: CompareResult) -> None:
    header = result.ranking.header
    at = f", {speed_label(str(header['speed']))}" if header.get("speed") else ""
    console.print(
        f"{result.chip_a} against {result.chip_b}: {header['model']} {header['workload']}{at}",
        highlight=False,
    )
    for line in result.lines:
        where = "same provider" if line.same_provider else "each chip's cheapest offer"
        off = [str(r["chip"]) for r in (line.a, line.b) if r.get("throughput_at_speed") is False]
        caveat = f"; not at the asked speed: {', '.join(off)}" if off else ""
        console.print(
            shown(
                f"{line.pricing}: {result.chip_a} is {line.words} per token than "
                f"{result.chip_b} ({_range(line)}{caveat})"
            ),
            highlight=False,
        )
        console.print(shown(f"    {result.chip_a} {_offer(line.a)}"), highlight=False)
        console.print(shown(f"    {result.chip_b} {_offer(line.b)} ({where})"), highlight=False)
    used = {}
    for line in result.lines:
        for row in (line.a, line.b):
            used.setdefault(str(row["chip"]), row)
    console.print("figures used:", highlight=False)
    for chip, row in used.items():
        held = len(result.figures.get(chip, []))
        count = f"{held} published figures held" if held else "no published figure held"
        console.print(shown(f"  {chip}: {_figure(row)} ({count})"), highlight=False)
    print_footer(console, result.notes, result.ranking.freshness)


def comparison_frame(result: CompareResult) -> pl.DataFrame:
    """One row per pricing model: both offers, the change (negative = cheaper) and its range."""
    import polars as pl

    rows = []
    for line in result.lines:
        rows.append(
            {
                "chip": result.chip_a,
                "compared_with": result.chip_b,
                "pricing": line.pricing,
                "cost_change": line.change,
                "in_words": f"{result.chip_a} is {line.words} per token than {result.chip_b}",
                "best_case_change": line.best,
                "worst_case_change": line.worst,
                "same_provider": line.same_provider,
                **{
                    f"{k}_{name}": line_row.get(name)
                    for k, line_row in (("a", line.a), ("b", line.b))
                    for name in (
                        "provider",
                        "region",
                        "instance_type",
                        "price_per_chip_hour",
                        "tokens_per_second_per_chip",
                        "cost_per_million_tokens",
                        "currency",
                        "discount",
                        "throughput_id",
                        "throughput_kind",
                        "throughput_operating_point",
                    )
                },
            }
        )
    return pl.DataFrame(rows, infer_schema_length=None)
