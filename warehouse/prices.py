"""Read queries shared by the CLI and the reports."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.vocabulary import PRICING_MODELS
from chipcost.warehouse.bound import execute, relation
from chipcost.warehouse.db import dict_rows
from chipcost.warehouse.fx import in_currency
from chipcost.warehouse.where import Where

if TYPE_CHECKING:  # polars is loaded for frames only: the terminal table reads rows
    import polars as pl

# The order pricing models are listed in: the list price first, then commitments, then spot.

# A term's length in hours, so that terms sort by length ("1d", "7d", "14d"; "1mo", "1yr").
TERM_HOURS = r"""CASE
    WHEN regexp_matches(term, '^\d+d$') THEN CAST(rtrim(term, 'd') AS INTEGER) * 24
    WHEN regexp_matches(term, '^\d+h$') THEN CAST(rtrim(term, 'h') AS INTEGER)
    ELSE coalesce(
        [0, 168, 730, 2190, 4380, 8760, 17520, 26280][
            list_position(['none', '1w', '1mo', '3mo', '6mo', '1yr', '2yr', '3yr'], term)], 0)
    END"""

PRICE_COLUMNS = (
    "chip",
    "provider",
    "region",
    "zone",
    "instance_type",
    "chip_count",
    "pricing_model",
    "term",
    "payment",
    "plan",
    "price_per_chip_hour",
    "price_per_hour",
    "upfront",
    "source",
    "valid_from",
    "last_seen_at",
    # Provenance: the provider's id of the price and the archived payload it was read from.
    "sku",
    "payload_ref",
    # The host (vCPUs, memory and local disk, GB), where the source publishes it; else NULL.
    # Last, so that the columns before them keep their places in a CSV.
    "vcpus",
    "ram_gb",
    "disk_gb",
    # The currency its provider states the price in (a euro price is read in US dollars at
    # its day's ECB rate, or in the currency asked): where it is not the row's `currency`,
    # the price was converted.
    "stated_currency",
)


# An AWS spot price's frequency of interruption (the Spot Instance Advisor's bucket, Linux), as
# `si.interruption` beside per_chip_prices `p`: the prices read and the explorer's offers.
# Each condition an equality of the two sides (the buckets' provider and pricing model their
# own constants), so DuckDB hashes it; p.provider = 'aws' among them made it a nested loop.
SPOT_BUCKET_JOIN = """LEFT JOIN (
            SELECT 'aws' AS si_provider, 'spot' AS si_model, region AS si_region,
                instance_type AS si_type, interruption
            FROM spot_interruptions WHERE os = 'Linux'
        ) si ON si.si_provider = p.provider AND si.si_model = p.pricing_model
            AND si.si_region = p.region AND si.si_type = p.instance_type"""

# What an estimated price rests on, as a column of a query over per_chip_prices `p`: the
# record's extra says so (extract/_estimate.py; only the sample's estimates carry it), kept
# in price_marks as it loads (warehouse/load.py MARKED_RECORDS) for as long as a price rests
# on its payload, read for the payload the current price was loaded from, so a price quoted
# later is not. A subquery per price read over the few marked records, not every
# observation's extra (a LIKE over them all was a third of `prices --chip`'s time, and the
# observations window took the marks of prices older than it). An empty estimate is none.
ESTIMATE = """(
            SELECT min(o.estimate)
            FROM price_marks o
            WHERE o.payload_ref = p.payload_ref AND o.source = p.source
                AND o.region = p.region AND o.instance_type = p.instance_type
                AND o.pricing_model = p.pricing_model AND o.term = p.term
        )"""

# Whether a price row `p` is the bundled sample's: a run that read the archive run its payload
# is in (payload_ref's first part) replayed the sample. Runs are few: no observation is read.
SAMPLE = """coalesce((
            SELECT bool_or(r.sample) FROM runs r
            WHERE r.archive_run = split_part(p.payload_ref, '/', 1)
        ), FALSE)"""


def marks_of(rows: str, payload_ref: str = "payload_ref", *, doubts: bool = True) -> str:
    """What the prices of `rows` (a CTE of the query this is written into; their payload in
    the column `payload_ref`) rest on, from price_marks of their payloads, grouped by what a
    price row is matched on (m_ref, m_source, m_region, m_type, m_model, m_term; joined by
    marked_on): ESTIMATE's `estimate`, and with `doubts` a spot price's `spot_doubt`: why
    it is doubtful, not below its offer's on-demand price (the parse marks it,
    extract/_doubts.py: no discount, a stale or mislabelled price; NULL where it is not).
    A join of the marks of the rows' payloads, not a subquery per row: as one, DuckDB kept
    every listed row whole beside it (docs/performance.md)."""
    spot_doubt = ", min(spot_doubt) AS spot_doubt" if doubts else ""
    named = "" if doubts else "estimate IS NOT NULL AND "
    return f"""
            SELECT payload_ref AS m_ref, source AS m_source, region AS m_region,
                instance_type AS m_type, pricing_model AS m_model, term AS m_term,
                min(estimate) AS estimate{spot_doubt}
            FROM price_marks
            WHERE {named}payload_ref IN (SELECT DISTINCT {payload_ref} FROM {rows})
            GROUP BY ALL"""


def marked_on(row: str, payload_ref: str = "payload_ref", source: str = "source") -> str:
    """The join of marks_of's rows `m` to a price row `row`."""
    return f"""m.m_ref = {row}.{payload_ref} AND m.m_source = {row}.{source}
            AND m.m_region = {row}.region AND m.m_type = {row}.instance_type
            AND m.m_model = {row}.pricing_model AND m.m_term = {row}.term"""


# What `--sort` puts first; then by chip, pricing model, term and price as always.
SORTS = {
    "chip": "",
    "price": "price_per_chip_hour, ",
    "provider": "provider, ",
    "region": "region, ",
}


def _price_query(
    *,
    chips: list[str] | None = None,
    regions: list[str] | None = None,
    models: list[str] | None = None,
    providers: list[str] | None = None,
    instance_types: list[str] | None = None,
    min_memory_gb: float | None = None,
    min_vcpus: float | None = None,
    min_ram_gb: float | None = None,
    chip_counts: list[float] | None = None,
    min_price: float | None = None,
    max_price: float | None = None,
    spot: bool | None = None,
    sort: str = "chip",
) -> tuple[str, dict[str, object]]:
    """The query of current per-chip prices (per_chip_prices) and its parameters; `sort` one
    of SORTS. The filters bound to parameters; the price bounds on list prices in USD."""
    where = Where()
    where.any_of("p.chip", chips)
    where.places(regions)  # a region, or a zone as a row prints it
    where.pricing(models)
    where.any_of("provider", providers)
    where.any_of("p.instance_type", instance_types)
    for condition, value in (
        ("c.memory_gb >= ", min_memory_gb),
        # An offer whose source publishes no host specs (NULL) is left out, not assumed.
        ("p.vcpus >= ", min_vcpus),
        ("p.ram_gb >= ", min_ram_gb),
        ("price_per_chip_hour >= ", min_price),
        ("price_per_chip_hour <= ", max_price),
    ):
        if value is not None:
            where.add(condition + "{}", float(value))
    if chip_counts:
        where.add("list_contains({}, chip_count)", [float(c) for c in chip_counts])
    if spot is not None:
        where.conditions.append("pricing_model " + ("=" if spot else "<>") + " 'spot'")
    order = ", ".join(f"'{m}'" for m in PRICING_MODELS)
    # One chip's memory (chips.csv) beside the chip count: what --min-memory filters on.
    columns = ", ".join(
        f"p.{c}, c.memory_gb" if c == "chip_count" else f"p.{c}" for c in PRICE_COLUMNS
    )
    first = SORTS[sort]
    sql = f"""
        WITH priced AS (
            SELECT {columns}, si.interruption
            FROM per_chip_prices p LEFT JOIN chips c ON c.chip = p.chip
            {SPOT_BUCKET_JOIN}
            WHERE {where.sql()}
        ),
        marks AS ({marks_of("priced")})
        SELECT q.*, m.estimate, m.spot_doubt
        FROM priced q LEFT JOIN marks m ON {marked_on("q")}
        ORDER BY {first}chip, coalesce(list_position([{order}], pricing_model), 99),
                 {TERM_HOURS}, term, price_per_chip_hour, region, zone, instance_type,
                 payment, plan, source
    """
    return sql, where.params


def _priced(
    con: duckdb.DuckDBPyConnection, currency: str | None, **filters
) -> tuple[str, dict[str, object]]:
    """_price_query, its prices in `currency` (chipcost.warehouse.fx) unless None."""
    return in_currency(con, *_price_query(**filters), currency, day="last_seen_at")


def per_chip_prices(
    con: duckdb.DuckDBPyConnection, currency: str | None = None, **filters
) -> pl.DataFrame:
    """Current per-chip prices, cheapest first within chip, pricing model and term (shortest
    term first); in `currency` at each price's day's ECB rate when given.

    Filters (all optional): chips, regions, models, providers, instance_types (lists, any
    case);
    min_memory_gb (one chip's memory, chips.csv); min_vcpus and min_ram_gb (the host's, where
    its source publishes them: an offer without them is left out); chip_counts;
    min_price/max_price bound the per-chip-hour price; spot True keeps only spot prices, False
    leaves them out.
    """
    from chipcost.core.frames import frame_of

    sql, params = _priced(con, currency, **filters)
    return frame_of(relation(con, sql, params))


def per_chip_price_rows(
    con: duckdb.DuckDBPyConnection, currency: str | None = None, **filters
) -> list[dict[str, object]]:
    """The same as per_chip_prices, as rows: what a terminal table needs, without polars."""
    sql, params = _priced(con, currency, **filters)
    return dict_rows(con, sql, params)


def per_chip_price_schema(con: duckdb.DuckDBPyConnection) -> pl.Schema:
    """The polars type of each column of per_chip_prices' rows (no row read)."""
    from chipcost.core.frames import frame_of

    return frame_of(con.sql(f"SELECT * FROM ({_price_query()[0]}) LIMIT 0")).schema


def cheapest_spot_zones(con: duckdb.DuckDBPyConnection) -> pl.DataFrame:
    """Each spot offer's cheapest zone in its region (spot_region_cheapest), keyed as its zone
    row in per_chip_prices is: provider, source, region, instance_type, term, payment, plan,
    zone."""
    from chipcost.core.frames import frame_of

    return frame_of(
        con.sql(
            "SELECT DISTINCT provider, source, region, instance_type, term, payment, plan, "
            "cheapest_zone AS zone FROM spot_region_cheapest"
        )
    )


def holds_current_prices(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether any offer has a price now (in any currency): none before the first collect."""
    return bool(
        con.execute("SELECT EXISTS (FROM price_history WHERE valid_to IS NULL)").fetchall()[0][0]
    )


def known_values(con: duckdb.DuckDBPyConnection, column: str) -> list[str]:
    """Distinct values of a per_chip_prices column (for 'did you mean' messages)."""
    rows = con.execute(f"SELECT DISTINCT {column} FROM per_chip_prices ORDER BY 1").fetchall()
    return [r[0] for r in rows]


def chip_values(
    con: duckdb.DuckDBPyConnection, chips: Sequence[str], column: str, table: str
) -> list[str]:
    """Distinct values of a name column among the prices of `chips` in `table`
    (per_chip_prices: now; price_history: ever), for saying where a chip's prices are."""
    if column not in ("provider", "region", "pricing_model") or table not in (
        "per_chip_prices",
        "price_history",
    ):
        raise ValueError(f"not a name column of {table}: {column!r}")
    rows = execute(
        con,
        f"SELECT DISTINCT {column} FROM {table} WHERE list_contains($chips, chip) ORDER BY 1",
        {"chips": list(chips)},
    ).fetchall()
    return [r[0] for r in rows]


def instance_spellings(
    con: duckdb.DuckDBPyConnection,
    known: Callable[[duckdb.DuckDBPyConnection, str], list[str]] = known_values,
) -> dict[str, str]:
    """Each instance type (`known` lists them: the current offers' by default) by the names
    a user types for it: itself in any case, and Azure's without the "Standard_" its SKU
    names start with (the portal's)."""
    spelled: dict[str, str] = {}
    for name in map(str, known(con, "instance_type")):
        spelled.setdefault(name.lower().removeprefix("standard_"), name)
        spelled[name.lower()] = name
    return spelled


def as_spelled(names: Sequence[str], spellings: Mapping[str, str]) -> list[str]:
    """Instance names (split at commas) as the warehouse spells them (instance_spellings),
    a piece joined back to the one before where together they name a type and that one alone
    does not: Modal's '1x A100, 40 GB'."""
    joined: list[str] = []
    for name in names:
        both = f"{joined[-1]}, {name}" if joined else ""
        if both.lower() in spellings and joined[-1].lower() not in spellings:
            joined[-1] = both
        else:
            joined.append(name)
    return [spellings.get(name.lower(), name) for name in joined]


def last_run(con: duckdb.DuckDBPyConnection) -> tuple | None:
    """(run_id, observed_at, sample, status) of the newest run that loaded prices, or None.

    A failed run loads nothing, so it never dates the prices; per source freshness (what
    the read commands show) is chipcost.warehouse.freshness.
    """
    rows = con.execute(
        "SELECT run_id, observed_at, sample, status FROM runs WHERE status <> 'failed' "
        "ORDER BY observed_at DESC, "
        "started_at DESC LIMIT 1"
    ).fetchall()
    return rows[0] if rows else None
