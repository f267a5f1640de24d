"""`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect."""

from __future__ import annotations

from typing import Annotated

import typer

from chipcost.cli.formats import FormatOption, OutputFormat, notices
from chipcost.cli.options import DEFAULT_TABLE_ROWS, DbOption, LimitOption, WideOption, out
from chipcost.core.errors import ChipcostError
from chipcost.core.settings import load_settings

ChipFilter = Annotated[
    list[str] | None,
    typer.Option(
        "--chip",
        help="Chip or family: H100-SXM, H100 (SXM, PCIe, NVL), A100, Trainium, Hopper. "
        "Repeat it or give a comma list.",
    ),
]


def prices(
    chip: ChipFilter = None,
    region: Annotated[
        list[str] | None, typer.Option(help="Region code, e.g. us-east-1 (repeat or comma list).")
    ] = None,
    pricing_model: Annotated[
        list[str] | None,
        typer.Option(
            "--pricing-model",
            help="on_demand, reserved, savings_plan, commitment, capacity_block, spot.",
        ),
    ] = None,
    model: Annotated[
        list[str] | None, typer.Option("--model", hidden=True, help="Old name of --pricing-model.")
    ] = None,
    provider: Annotated[
        list[str] | None, typer.Option(help="Provider, e.g. aws, runpod (repeat or comma list).")
    ] = None,
    min_memory: Annotated[
        float | None, typer.Option("--min-memory", help="At least this much memory per chip, GB.")
    ] = None,
    chips: Annotated[
        list[str] | None, typer.Option("--chips", help="Chips per instance: 8 (or 1,8).")
    ] = None,
    min_price: Annotated[
        float | None, typer.Option("--min-price", help="At least this many USD per chip-hour.")
    ] = None,
    max_price: Annotated[
        float | None, typer.Option("--max-price", help="At most this many USD per chip-hour.")
    ] = None,
    spot: Annotated[
        bool | None,
        typer.Option("--spot/--no-spot", help="Only spot prices, or none of them (default: all)."),
    ] = None,
    limit: LimitOption = None,
    wide: WideOption = False,
    format: FormatOption = OutputFormat.table,
    db: DbOption = None,
) -> None:
    """Current per-chip hourly prices, cheapest first within each chip and pricing model."""
    from chipcost.pipeline.prices import PriceAsk, find_price_rows, find_prices, why_empty
    from chipcost.warehouse.db import connect

    settings = load_settings(db=db)
    ask = PriceAsk(
        chips=chip,
        regions=region,
        pricing_models=[*(pricing_model or []), *(model or [])] or None,
        providers=provider,
        min_memory_gb=min_memory,
        chip_counts=chips,
        min_price=min_price,
        max_price=max_price,
        spot=spot,
    )
    table = format is OutputFormat.table
    con = connect(settings.warehouse, read_only=True, wait=settings.read_wait)
    try:
        # The table reads rows (no polars to import); csv and json write the frame.
        if table:
            rows = find_price_rows(con, ask, stale_days=settings.stale_days)
            empty = why_empty(con, rows.chips) if not rows.rows else None
        else:
            result = find_prices(con, ask, stale_days=settings.stale_days)
            empty = why_empty(con, result.chips) if result.frame.is_empty() else None
    finally:
        con.close()
    if table:
        from chipcost.cli.render_prices import print_prices

        if empty:
            raise ChipcostError(empty)
        print_prices(out, rows, limit=limit or DEFAULT_TABLE_ROWS, wide=wide)
        return
    from chipcost.cli.formats import write_frame
    from chipcost.cli.render_fresh import print_freshness

    frame = result.frame if limit is None else result.frame.head(limit)
    write_frame(format, frame)
    if result.frame.height > frame.height:
        notices(format).print(f"{result.frame.height - frame.height} more rows (--limit)")
    if empty:
        notices(format).print(f"note: {empty}", highlight=False)
    print_freshness(notices(format), result.freshness)
