"""A daily rental price index per chip: the level of per-chip-hour prices across providers.

The method (docs/price-index.md):
- **Pricing models**: on demand, spot, and 1-year commitments (reserved, savings plans and
  other commitments with a 1-year term: `commitment`, term `1yr`) are three indexes, never
  mixed.
- **Constituents**: per chip, bucket and UTC day, each provider's cheapest per-chip price in
  force at the end of that day (any region, instance size, payment or plan): the same "price in
  force" rule as `chipcost history`. One provider is one constituent, so a marketplace's 200
  offers count once, as a cloud's one offer does; every constituent weighs 1/n.
- **Level**: the median of the constituents (the mean of the middle two when n is even).
- **Glitches**: a provider's price that jumps by more than `jump` times against both the day
  before and the day after, while those two agree within that factor, is a jump-and-back
  glitch: left out of that day (named in `left_out`). The newest day has no day after: its
  level may be restated when the next day shows a glitch.
- **Failing sources**: a source whose latest attempt failed keeps its last good price in force;
  on the days after its last success that price is flagged (`failing`), and past the stale
  limit left out (named in `left_out`). A day whose every price is left out keeps its row with
  no level, so that `left_out` says why.
- **Entries and exits**: the level is the median of the providers present that day;
  `constituents_changed` says when the set differs from the day before, so a move that comes
  from a provider entering or leaving is told apart from prices moving.
- **Who can rent it**: a slice of a GPU (chip_count below 1: a MIG instance, a fractional VM)
  and a government, China or sovereign region (core/vocabulary.py RESTRICTED_REGIONS) are no
  constituents.
- **Restatement**: the index is computed on read from `price_history`; a late load (a
  backfill, a replayed archive) restates the days it covers. Nothing is stored.
"""

from __future__ import annotations

from collections.abc import Mapping
from datetime import date

import duckdb
import polars as pl

from chipcost.core.frames import frame_of
from chipcost.core.vocabulary import (
    GLANCE_KINDS,
    GPU_ALONE,
    GPU_ALONE_TYPES,
    PRICING_MODEL_TABLE,
    gpu_alone_types,
)
from chipcost.warehouse.bound import relation
from chipcost.warehouse.fx import RATE_COLUMNS, index_in_currency
from chipcost.warehouse.history import in_force_days, unrated_days
from chipcost.warehouse.prices import marked_on, marks_of
from chipcost.warehouse.where import Where

# The index's three pricing models: on demand, spot, and any 1-year commitment (reserved,
# savings plan, a neocloud's term) as one, named by the commitment model's code with its term.
BUCKETS = GLANCE_KINDS
COMMITMENT_TERM = "1yr"
# The pricing models that commit to a term (core/vocabulary.py's `commits`).
COMMITMENTS = tuple(m.code for m in PRICING_MODEL_TABLE if m.commits)

INDEX_COLUMNS = (
    "day",
    "chip",
    "pricing_model",
    "term",
    "level",
    "constituents",
    "change_1d_pct",
    "change_7d_pct",
    "change_30d_pct",
    "constituents_changed",
    "prices",
    "left_out",
    "failing",
)
# The constituents whose price carries a mark prices shows (docs/price-index.md), named as
# `prices` names them: after every column of INDEX_COLUMNS and the read's own, so that those
# keep their places. The level includes their prices.
MARK_COLUMNS = ("doubtful", "gpu_alone")
# The providers each of MARK_COLUMNS names, as a list in its order: what a note of the mark
# says of them (`chipcost index`), carried from the query where the note read them back out of
# the text. Asked for (price_index's `providers`), never written out.
MARK_PROVIDERS = ("doubtful_providers", "gpu_alone_providers")

# The bucket of each history row; rows outside the buckets asked are not expanded into days.
_BUCKET = """CASE
            WHEN h.pricing_model = 'on_demand' THEN 'on_demand'
            WHEN h.pricing_model = 'spot' THEN 'spot'
            WHEN list_contains({commitments}, h.pricing_model) AND h.term = '1yr'
                THEN 'commitment'
        END"""

# A failing source's prices (`carried`: its latest attempt failed, so each day after its last
# successful run still shows that run's price) are flagged in `failing`; past `stale_days`
# after that run they are left out and named in `left_out`.
_INDEX = """,
failing_sources(source, last_ok_day) AS ({failing}),
marks AS ({marks}),
sourced AS (
    SELECT d.*, d.day > f.last_ok_day AS carried,
        d.day > f.last_ok_day + {stale_days} AS stale, f.last_ok_day,
        m.spot_doubt IS NOT NULL AS doubtful,
        list_contains({alone_sources}, d.source)
            OR list_contains({alone_types}, d.source || ' ' || d.instance_type) AS gpu_alone
    FROM days d LEFT JOIN failing_sources f ON f.source = d.source
    LEFT JOIN marks m ON {marked_on}
),
-- A provider's price is marked when every offer at that price is: an unmarked offer at the
-- same price would make the same constituent.
provider_day AS (
    SELECT day, chip, bucket, provider,
        min(price_per_chip_hour) FILTER (WHERE stale IS NOT TRUE) AS price,
        coalesce(min(price_per_chip_hour) FILTER (WHERE stale IS NOT TRUE AND NOT doubtful)
            > min(price_per_chip_hour) FILTER (WHERE stale IS NOT TRUE), TRUE) AS doubtful,
        coalesce(min(price_per_chip_hour) FILTER (WHERE stale IS NOT TRUE AND NOT gpu_alone)
            > min(price_per_chip_hour) FILTER (WHERE stale IS NOT TRUE), TRUE) AS gpu_alone,
        arg_min(source, price_per_chip_hour) FILTER (WHERE stale IS NOT TRUE AND carried)
            AS failing_source,
        min(price_per_chip_hour) FILTER (WHERE stale) AS stale_price,
        arg_min(source || ' failing, no successful run since ' || last_ok_day,
            price_per_chip_hour) FILTER (WHERE stale) AS stale_why
    FROM sourced GROUP BY ALL
),
neighbours AS (
    SELECT *,
        lag(price) OVER w AS before, lag(day) OVER w AS before_day,
        lead(price) OVER w AS after, lead(day) OVER w AS after_day
    FROM provider_day WHERE price IS NOT NULL
    WINDOW w AS (PARTITION BY chip, bucket, provider ORDER BY day)
),
judged AS (
    SELECT *,
        coalesce(
            before_day = day - 1 AND after_day = day + 1
            AND greatest(price / before, before / price) > {jump}
            AND greatest(price / after, after / price) > {jump}
            AND greatest(before / after, after / before) <= {jump},
            FALSE
        ) AS glitch
    FROM neighbours
),
outs AS (
    SELECT day, chip, bucket, provider,
        provider || ' ' || printf('%.4f', price) || ' (a jump and back)' AS why
    FROM judged WHERE glitch
    UNION ALL
    SELECT day, chip, bucket, provider,
        provider || ' ' || printf('%.4f', stale_price) || ' (' || stale_why || ')'
    FROM provider_day WHERE price IS NULL
),
kept AS (
    SELECT day, chip, bucket,
        median(price) AS level,
        count(*) AS constituents,
        string_agg(provider || ' ' || printf('%.4f', price), '; ' ORDER BY price, provider)
            AS prices,
        string_agg(provider, ',' ORDER BY provider) AS members,
        string_agg(provider || ' (' || failing_source || ')', '; ' ORDER BY provider)
            AS failing,
        string_agg(provider || ' ' || printf('%.4f', price), '; ' ORDER BY price, provider)
            FILTER (WHERE doubtful) AS doubtful,
        string_agg(provider || ' ' || printf('%.4f', price), '; ' ORDER BY price, provider)
            FILTER (WHERE gpu_alone) AS gpu_alone,
        list(provider ORDER BY price, provider) FILTER (WHERE doubtful) AS doubtful_providers,
        list(provider ORDER BY price, provider) FILTER (WHERE gpu_alone) AS gpu_alone_providers
    FROM judged WHERE NOT glitch GROUP BY ALL
),
-- Every day a provider had a price, kept or not: a day whose every price is left out (a
-- one-provider chip's glitch) keeps its row, with no level, so that `left_out` says why.
levels AS (
    SELECT k.day, k.chip, k.bucket, kept.level, coalesce(kept.constituents, 0) AS constituents,
        kept.prices, kept.members, kept.failing, kept.doubtful, kept.gpu_alone,
        kept.doubtful_providers, kept.gpu_alone_providers,
        (SELECT string_agg(o.why, '; ' ORDER BY o.provider) FROM outs o
         WHERE (o.day, o.chip, o.bucket) = (k.day, k.chip, k.bucket)) AS left_out
    FROM (SELECT DISTINCT day, chip, bucket FROM provider_day) k
    LEFT JOIN kept ON (kept.day, kept.chip, kept.bucket) = (k.day, k.chip, k.bucket)
),
dated AS (
    SELECT l.*,
        l.level / p1.level - 1 AS change_1d,
        l.level / p7.level - 1 AS change_7d,
        l.level / p30.level - 1 AS change_30d,
        p1.members IS NOT NULL AND p1.members IS DISTINCT FROM l.members AS constituents_changed
    FROM levels l
    LEFT JOIN levels p1 ON (p1.chip, p1.bucket, p1.day) = (l.chip, l.bucket, l.day - 1)
    LEFT JOIN levels p7 ON (p7.chip, p7.bucket, p7.day) = (l.chip, l.bucket, l.day - 7)
    LEFT JOIN levels p30 ON (p30.chip, p30.bucket, p30.day) = (l.chip, l.bucket, l.day - 30)
)
SELECT d.* FROM dated d, bounds b
WHERE d.day BETWEEN b.first_day AND b.last_day
ORDER BY chip, bucket, day
"""


def _constituents(chips: list[str] | None, buckets: list[str]) -> tuple[Where, str]:
    """The conditions on price_history (as `h`) of the index's constituents of `chips` (None:
    any) in `buckets`, and the SQL of a row's bucket."""
    where = Where()
    where.any_of("h.chip", chips)
    bucket = _BUCKET.format(commitments=where.bind(list(COMMITMENTS)))
    where.conditions += ["h.price_per_hour > 0", "h.chip <> 'unknown'"]
    # A slice of a GPU (chip_count below 1) and a region most buyers cannot rent in are no
    # constituents: the index is of whole chips anyone can rent (docs/price-index.md).
    where.conditions.append("h.chip_count >= 1")
    where.add(f"list_contains({{}}, {bucket})", buckets)
    # The region's pattern last: DuckDB tests a filter's conditions in the order written, and
    # the pattern matched on every row of ten years of history took 0.96 s of the index's 3.3 s
    # query, against 0.2 s on the rows of the pricing models asked alone.
    where.conditions.append("NOT restricted_region(h.region)")
    return where, bucket


def buckets_held(con: duckdb.DuckDBPyConnection, chips: list[str] | None) -> list[str]:
    """The index's pricing models (BUCKETS' codes, in their order) the whole history holds a
    constituent of `chips` (None: any) in."""
    where, bucket = _constituents(chips, list(BUCKETS))
    sql = f"SELECT DISTINCT {bucket} FROM price_history h WHERE {where.sql()}"
    held = {row[0] for row in relation(con, sql, where.params).fetchall()}
    return [b for b in BUCKETS if b in held]


def index_unrated(
    con: duckdb.DuckDBPyConnection,
    chips: list[str] | None,
    buckets: list[str],
    since: date | None,
    until: date | None,
) -> list[dict[str, object]]:
    """The constituents of `chips` in `buckets` the index leaves out of some of its days from
    `since` to `until` for want of a rate, one row per run of such days, in their own
    currency (chipcost.warehouse.history.unrated_days)."""
    return unrated_days(con, _constituents(chips, buckets)[0], since, until)


def price_index(
    con: duckdb.DuckDBPyConnection,
    chips: list[str] | None = None,
    buckets: list[str] | None = None,
    since: date | None = None,
    until: date | None = None,
    *,
    jump: float = 3.0,
    failing: Mapping[str, date] | None = None,
    stale_days: int = 2,
    currency: str | None = None,
    providers: bool = False,
) -> pl.DataFrame:
    """The index per chip, bucket and day (INDEX_COLUMNS), from `since` to `until` inclusive
    (default: the whole history). Days before `since` (up to 31) are read for the glitch rule
    and the changes, not shown. `jump` is the glitch factor (chipcost.pipeline.jumps).
    `failing`: each source whose latest attempt failed, with the day of its last success; its
    prices after that day are flagged, and left out more than `stale_days` after it.
    `currency`: the levels and changes in it (chipcost.warehouse.fx.index_in_currency), with
    its RATE_COLUMNS; the constituents' prices stay the US dollars they were judged in.
    `providers`: MARK_PROVIDERS after the rest, the providers each mark column names."""
    chosen = buckets or list(BUCKETS)
    unknown = sorted(set(chosen) - set(BUCKETS))
    if unknown:
        raise ValueError(f"unknown index bucket(s): {', '.join(unknown)}")
    where, bucket = _constituents(chips, chosen)
    days = in_force_days(
        where=where.sql(),
        since=where.bind(since),
        until=where.bind(until),
        # what a price's marks are matched on (warehouse/prices.py marked_on)
        columns=f"h.chip, h.provider, h.source, {bucket} AS bucket, h.region, h.instance_type, "
        "h.pricing_model, h.term, h.payload_ref",
        lookback_days=31,
    )
    # The failing sources as a table of two lists: one parameter each, whatever their number.
    sources = where.bind([str(s) for s in (failing or {})])
    last_ok = where.bind(list((failing or {}).values()))
    sql = days + _INDEX.format(
        jump=float(jump),
        failing=f"SELECT unnest({sources}::VARCHAR[]), unnest({last_ok}::DATE[])",
        stale_days=int(stale_days),
        marks=marks_of("rows"),
        marked_on=marked_on("d"),
        alone_sources=where.bind(list(GPU_ALONE)),
        alone_types=where.bind([f"{s} {t}" for s in GPU_ALONE_TYPES for t in gpu_alone_types(s)]),
    )
    params = where.params
    if currency:
        sql, params = index_in_currency(sql, params, currency)
    frame = frame_of(relation(con, sql, params))
    # Named as every read names them: the pricing model and its term; changes in percent.
    frame = frame.with_columns(
        pricing_model=pl.col("bucket"),
        term=pl.when(pl.col("bucket") == "commitment")
        .then(pl.lit(COMMITMENT_TERM))
        .otherwise(pl.lit("none")),
        **{f"change_{n}_pct": pl.col(f"change_{n}") * 100 for n in ("1d", "7d", "30d")},
    )
    return frame.select(
        *INDEX_COLUMNS,
        *(RATE_COLUMNS if currency else ()),
        *MARK_COLUMNS,
        *(MARK_PROVIDERS if providers else ()),
    )
