"""What `chipcost prices` and chipcost.prices() do: the query of what was asked and its answer,
each price dated by its source's last run. The ask and its checks are chipcost.reads.price_ask,
the notes beside the rows chipcost.reads.price_notes."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.errors import UsageError
from chipcost.core.vocabulary import PRICING_MODELS, REGION_ROW_PLAN, gpu_alone, term_hours
from chipcost.reads.price_ask import (
    PriceAsk,
    check_named,
    known_or_unrated,
    named_filters_of,
    query_filters,
    within,
)
from chipcost.reads.your_prices import YourPrices
from chipcost.warehouse.freshness import Freshness, freshness
from chipcost.warehouse.prices import (
    as_spelled,
    instance_spellings,
    per_chip_price_rows,
    per_chip_price_schema,
)

if TYPE_CHECKING:  # frames for the API, csv and json; the terminal table reads rows
    import polars as pl

# Columns the read adds to the warehouse's: whether the price is the GPU's alone (its host
# billed beside it, core.vocabulary.gpu_alone: the rows carry the mark the table's note says),
# when the row's source last succeeded (what dates the price) and whether that run was the
# bundled sample.
READ_COLUMNS = ("gpu_alone", "source_as_of", "sample")


@dataclass(frozen=True)
class PriceResult:
    frame: pl.DataFrame  # every matching current price, cheapest first within chip, model and term
    freshness: Freshness  # of the sources in `frame`
    chips: list[str] | None  # the canonical chips the names asked for stood for
    mine: YourPrices = YourPrices()  # your discounts and currency, applied to `frame`


@dataclass(frozen=True)
class PriceRows:
    """The same as PriceResult, as rows (column -> value): what a terminal table reads."""

    rows: list[dict[str, object]]
    freshness: Freshness
    chips: list[str] | None
    mine: YourPrices = YourPrices()
    # the current prices the filters match that no rate converts (warehouse.fx.unrated_offers):
    # shown apart in their own currency, never left out unsaid
    unconverted: list[dict[str, object]] = field(default_factory=list)


def find_prices(
    con: duckdb.DuckDBPyConnection,
    ask: PriceAsk,
    *,
    stale_days: int,
    now: datetime | None = None,
    mine: YourPrices | None = None,
) -> PriceResult:
    """find_price_rows as a polars frame (the Python API, csv and json), each column of the
    warehouse's type: the same read, the same rows."""
    found = find_price_rows(con, ask, stale_days=stale_days, now=now, mine=mine)
    # A frame has no place for a price in another currency: the freshness names those no
    # rate converts (its `unconverted`), which csv and json say on stderr.
    fresh = found.freshness._replace(unconverted=tuple(found.unconverted))
    return PriceResult(
        frame=_frame(con, found.rows), freshness=fresh, chips=found.chips, mine=found.mine
    )


# A spot zone's offer in per_chip_prices is repeated once more as its region's row (plan
# REGION_ROW_PLAN, zone ''): sums and counts over a frame would take it twice. The API's frame
# marks the zone's row instead, in this column.
CHEAPEST_ZONE = "cheapest_in_region"


def each_offer_once(con: duckdb.DuckDBPyConnection, frame: pl.DataFrame) -> pl.DataFrame:
    """The prices with each offer once (the Python API): the spot region rows out, and
    `cheapest_in_region` on each zone's row instead (True for the zone spot_region_cheapest
    names, False for the region's others; null for an offer not priced per zone)."""
    import polars as pl

    from chipcost.warehouse.prices import cheapest_spot_zones

    if frame.height and set(frame["plan"]) == {REGION_ROW_PLAN}:  # asked for those rows only
        raise UsageError(
            f"pricing_model='spot, region cheapest' names the rows `chipcost prices` adds for "
            f"a region's cheapest spot zone; the Python API gives each offer once: ask "
            f"pricing_model='spot' and keep the rows whose {CHEAPEST_ZONE} is True"
        )
    cheapest = cheapest_spot_zones(con).with_columns(pl.lit(True).alias(CHEAPEST_ZONE))
    zoned = (pl.col("pricing_model") == "spot") & (pl.col("zone") != "")
    return (
        frame.filter(pl.col("plan") != REGION_ROW_PLAN)
        .with_row_index("_order")
        .join(cheapest, on=list(cheapest.columns[:-1]), how="left", nulls_equal=True)
        .sort("_order")
        .drop("_order")
        .with_columns(
            pl.when(zoned).then(pl.col(CHEAPEST_ZONE).fill_null(False)).alias(CHEAPEST_ZONE)
        )
    )


def find_price_rows(
    con: duckdb.DuckDBPyConnection,
    ask: PriceAsk,
    *,
    stale_days: int,
    now: datetime | None = None,
    mine: YourPrices | None = None,
) -> PriceRows:
    """Current per-chip prices matching `ask`, each dated by its source's last successful run,
    as rows (column -> value): what the terminal table reads, without importing polars."""
    named = named_filters_of(ask)
    if named["instances"]:  # '1x A100, 40 GB' (Modal's) is one type, split at its comma
        named["instances"] = as_spelled(named["instances"], instance_spellings(con))
    mine = mine or YourPrices()
    filters = query_filters(ask, named, mine.currency)
    # A bound is on the prices shown, as the explorer's filter is: in your currency, after
    # your discounts, so those are bounded once they are applied; plain USD in the query.
    bounds = {k: filters[k] for k in ("min_price", "max_price")} if mine.active else {}
    rows = per_chip_price_rows(
        con, currency=mine.converting, **{**filters, **dict.fromkeys(bounds)}
    )
    # A name the rows show is known: only the others are looked up (the usual case: none).
    check_named(con, named, seen=rows, known=known_or_unrated, voice=ask.voice)
    shown = sorted({str(r["source"]) for r in rows})
    chips, providers = filters["chips"], named["providers"]
    fresh = freshness(con, shown, stale_days=stale_days, now=now, chips=chips, providers=providers)
    dated = {s.source: (s.last_ok_at, s.sample) for s in fresh.sources}
    for row in rows:
        row["gpu_alone"] = gpu_alone(row["source"], row["instance_type"])
        row["source_as_of"], row["sample"] = dated.get(str(row["source"]), (None, False))
    if mine.active:
        rows = within(mine.rows(rows), **bounds)
        if mine.discounts is not None:  # a discount may change which offer is cheaper
            rows.sort(key=lambda row: price_order(row, filters["sort"]))
    from chipcost.warehouse.fx import unrated_offers

    unconverted = fresh.unrated.count and unrated_offers(
        con,
        chips=chips,
        providers=providers,
        regions=named["regions"],
        pricing_models=named["pricing_models"],
        instances=named["instances"],
    )
    return PriceRows(
        rows=rows, freshness=fresh, chips=filters["chips"], mine=mine,
        unconverted=unconverted or [],
    )  # fmt: skip


def _frame(con: duckdb.DuckDBPyConnection, rows: list[dict[str, object]]) -> pl.DataFrame:
    """The rows as a frame: the warehouse's columns of their types, then what the read added
    (READ_COLUMNS, and your prices' columns where they apply)."""
    import polars as pl

    from chipcost.reads.your_prices import DISCOUNT_COLUMN, LIST_COLUMN, RATE_COLUMNS

    schema = dict(per_chip_price_schema(con))
    types = {
        **schema,
        "gpu_alone": pl.Boolean(),
        "source_as_of": schema["last_seen_at"],
        "sample": pl.Boolean(),
        LIST_COLUMN: pl.Float64(),
        DISCOUNT_COLUMN: pl.String(),
        **dict(zip(RATE_COLUMNS, (pl.String(), pl.Float64(), pl.Date()), strict=True)),
    }
    names = list(rows[0]) if rows else [*schema, *READ_COLUMNS]
    return pl.DataFrame(
        {name: [row[name] for row in rows] for name in names},
        schema={name: types[name] for name in names},
    )


def price_order(row: dict, sort: str) -> tuple:
    """The order of warehouse.prices' query, in Python: for rows whose prices changed on read."""
    model = str(row["pricing_model"])
    first = {"chip": (), "price": (row["price_per_chip_hour"],)}.get(sort, (str(row.get(sort)),))
    return (
        *first,
        str(row["chip"]),
        PRICING_MODELS.index(model) if model in PRICING_MODELS else 99,
        term_hours(str(row["term"])),
        str(row["term"]),
        row["price_per_chip_hour"],
        *(str(row.get(c) or "") for c in ("region", "zone", "instance_type", "payment", "plan")),
        str(row["source"]),
    )
