"""`chipcost history`: a chip's cheapest price per day per pricing model, as a table and chart."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import DbOption, FormatOption, out
from chipcost.core.errors import ChipcostError


def history(
    chip: Annotated[
        list[str],
        typer.Option(help="Chip or family, e.g. H100-SXM or H100 (repeatable: a chart each)."),
    ],
    provider: Annotated[list[str] | None, typer.Option(help="Provider, e.g. aws.")] = None,
    region: Annotated[list[str] | None, typer.Option(help="Region code, e.g. us-east-1.")] = None,
    model: Annotated[
        list[str] | None,
        typer.Option(help="Pricing model: on_demand, reserved, savings_plan, spot, ..."),
    ] = None,
    since: Annotated[
        str | None, typer.Option(help="First day, YYYY-MM-DD (default: the whole history).")
    ] = None,
    until: Annotated[str | None, typer.Option(help="Last day, YYYY-MM-DD.")] = None,
    output: FormatOption = OutputFormat.table,
    no_chart: Annotated[bool, typer.Option("--no-chart", help="The table only.")] = False,
    db: DbOption = None,
) -> None:
    """The cheapest per-chip-hour price per day per pricing model, with a terminal chart."""
    from chipcost.core.names import resolve_chip_names, split_values
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.prices import pricing_model_name
    from chipcost.reports.period import parse_day
    from chipcost.warehouse.db import connect
    from chipcost.warehouse.history import daily_cheapest

    chips = resolve_chip_names(chip) or []
    models = [pricing_model_name(m) for m in split_values(model) or []] or None
    first, last = parse_day(since, "--since"), parse_day(until, "--until")
    con = connect(load_settings(db=db).db_path, read_only=True)
    try:
        frame = daily_cheapest(
            con, chips, split_values(provider), split_values(region), models, first, last
        )
    finally:
        con.close()
    if frame.is_empty():
        raise ChipcostError(
            f"no prices of {', '.join(chips)} match these filters"
            f"{f' from {first}' if first else ''}: check --provider, --region and --model "
            "with `chipcost prices`, or run `chipcost collect`"
        )
    if output is OutputFormat.table:
        _show(frame, chips, chart=not no_chart)
    else:
        from chipcost.cli.formats import write_frame

        write_frame(output, frame)


def _show(frame, chips: list[str], *, chart: bool) -> None:
    import polars as pl

    from chipcost.cli.render_history import chart as draw
    from chipcost.cli.render_history import print_history

    width = min(out.width or 100, 120)
    for chip in chips:
        rows = frame.filter(pl.col("chip") == chip)
        if rows.is_empty():
            out.print(f"{chip}: no prices match these filters", highlight=False)
            continue
        print_history(out, chip, rows)
        if chart:
            out.print(
                draw(chip, rows, width, colour=out.is_terminal), highlight=False, markup=False
            )
