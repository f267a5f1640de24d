"""Read queries behind `chipcost cost` and `chipcost throughput list`: all from the views."""

from __future__ import annotations

import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.figures import DEFAULT_SPEED
from chipcost.core.vocabulary import OFFER_KEY
from chipcost.transform.cost_fit import GROUP
from chipcost.transform.rows import FigureRow, figure_rows
from chipcost.warehouse.bound import execute, literal, relation
from chipcost.warehouse.db import OPEN_PRICE_ROWS, dict_rows, view_part
from chipcost.warehouse.fx import in_currency
from chipcost.warehouse.prices import SAMPLE, marked_on, marks_of
from chipcost.warehouse.reader import in_working_memory
from chipcost.warehouse.where import Where

if TYPE_CHECKING:
    import polars as pl


# Cheapest first, then a stable tie-break; an empty value before any other. The ranking of
# chipcost.transform.cost_fit keeps this order within "holds the model or not".
ORDER: tuple[str, ...] = (
    "usd_per_million_tokens",
    "chip",
    "provider",
    "region",
    "zone",
    "instance_type",
)
ORDER += ("payment", "plan")


@dataclass(frozen=True)
class Point:
    """The point each chip's figure is chosen at: `speed` ('max' or tokens/s per user as text;
    chipcost.core.figures.speed_value), a time-to-first-token bound in milliseconds (None: the
    default per request shape), a request shape (input, output tokens; lengths within 10%) and
    a precision class ('FP8'; chipcost.transform.precision), None for any."""

    speed: str = DEFAULT_SPEED
    ttft_ms: float | None = None
    shape: tuple[int, int] | None = None
    precision: str | None = None

    def arguments(self) -> str:
        """The named arguments of throughput_at and cost_per_token_at
        (warehouse/views/35_throughput_ranked.sql) for this point, the defaults left out: as
        a user may type them."""
        from chipcost.transform.precision import spellings

        given = {
            "speed": None if self.speed == DEFAULT_SPEED else literal_text(self.speed),
            "ttft": None if self.ttft_ms is None else _number(self.ttft_ms),
            "in_tokens": None if self.shape is None else str(int(self.shape[0])),
            "out_tokens": None if self.shape is None else str(int(self.shape[1])),
            "precisions": None
            if self.precision is None
            else "[" + ", ".join(literal_text(s) for s in spellings(self.precision)) + "]",
        }
        return ", ".join(f"{name} := {value}" for name, value in given.items() if value)

    def of(self, macro: str, models: Sequence[str] | None = None) -> str:
        """`macro` (throughput_at, cost_per_token_at) called at this point; of `models`'
        figures alone where given, each named as the throughput table names it (the others
        are not ranked; none given: none)."""
        arguments = self.arguments()
        if models is not None:
            listed = ", ".join(literal_text(m) for m in models)
            arguments += f"{', ' if arguments else ''}of_models := [{listed}]::VARCHAR[]"
        return f"{macro}({arguments})"


# The point every figure is chosen at unless one is asked: the views' (throughput_ranked,
# cost_per_token).
DEFAULT_POINT = Point()


@dataclass
class _Ranked:
    """A connection's figures ranked so far (throughput_at's call -> its temporary table),
    kept only on a read-only connection."""

    read_only: bool
    tables: dict[str, str] = field(default_factory=dict)


# The figures each read has ranked, by connection: a read ranks a model's figures at a point
# once (`cost` asks which chips have one, then prices them; the report asks each model many
# times), in a temporary table the connection drops when it closes.
_RANKED: weakref.WeakKeyDictionary[duckdb.DuckDBPyConnection, _Ranked] = weakref.WeakKeyDictionary()


def ranked_at(
    con: duckdb.DuckDBPyConnection, point: Point, models: Sequence[str] | None = None
) -> str:
    """What to read throughput_at's rows at `point` of `models` from (Point.of): on a read-only
    connection, a temporary table of them made by the read's first such ask and read by the
    others (nothing changes the figures under a read); on a writer, the macro's call, since
    what it writes may change them."""
    call = point.of("throughput_at", models)
    ranked = _RANKED.get(con)
    if ranked is None:
        ranked = _RANKED[con] = _Ranked(read_only=_read_only(con))
    if not ranked.read_only:
        return call
    if call not in ranked.tables:
        name = f"temp.main.chipcost_ranked_{len(ranked.tables) + 1}"
        execute(con, f"CREATE OR REPLACE TEMPORARY TABLE {name} AS FROM {call}")
        ranked.tables[call] = name
    return ranked.tables[call]


def _read_only(con: duckdb.DuckDBPyConnection) -> bool:
    """Whether the warehouse `con` reads was opened read-only (a file's or a lake's)."""
    found = execute(
        con, "SELECT readonly FROM duckdb_databases() WHERE database_name = current_database()"
    ).fetchone()
    return bool(found and found[0])


def _number(value: float) -> str:
    """3000000.0 -> '3000000', 2.5 -> '2.5': as a user types a number."""
    return str(int(value)) if float(value).is_integer() else repr(float(value))


def literal_text(text: str) -> str:
    """A SQL string literal of `text`."""
    return "'" + str(text).replace("'", "''") + "'"


def _filters(
    model: str,
    workload: str,
    *,
    regions: list[str] | None = None,
    pricing_models: list[str] | None = None,
    providers: list[str] | None = None,
    instances: list[str] | None = None,
) -> Where:
    where = Where()
    where.add("model = {}", model)
    where.add("workload = {}", workload)
    where.places(regions)  # a region, or a zone as a row prints it
    where.pricing(pricing_models)
    where.any_of("provider", providers)
    where.any_of("instance_type", instances)
    return where


# The day a cost row's price is of (what converts it to another currency): its offer's last
# sighting in per_chip_prices, by the offer key and the price's source.
_SEEN = "LEFT JOIN (SELECT {key}, source, max(last_seen_at) AS fx_seen_at FROM per_chip_prices \
GROUP BY ALL) s ON {on} AND s.source = k.price_source".format(
    key=", ".join(OFFER_KEY),
    on=" AND ".join(f"s.{c} IS NOT DISTINCT FROM k.{c}" for c in OFFER_KEY),
)


# AWS's frequency of interruption bucket of a spot offer (the Spot Instance Advisor's, Linux),
# joined to each cost row: `interruption` its label, `interruption_max` its upper bound in
# percent; NULL for any other row, and for a spot offer whose risk no one publishes (other
# providers' spot, AWS types the advisor lacks). Equalities of the two sides alone (the
# buckets' pricing model and provider their own constants): a hash join, not a nested loop.
_SPOT = """LEFT JOIN (SELECT 'spot' AS si_model, 'aws' AS si_provider, region AS si_region,
    instance_type AS si_type, interruption, interruption_max
    FROM spot_interruptions WHERE os = 'Linux') si
    ON si.si_model = k.pricing_model AND si.si_provider = k.provider AND si.si_region = k.region
    AND si.si_type = k.instance_type"""
# What a discount rule matches on (chipcost.transform.discounts.Discount.matches).
_DISCOUNT_KEY = ("provider", "pricing_model", "chip", "region")


def _offers(con: duckdb.DuckDBPyConnection, point: Point, spot: bool, model: str) -> str:
    """The offers of cost_per_token at `point` (`f`), of `model` alone, with chip_memory_gb,
    the estimate's columns (empty: _estimated fills in those of the rows kept), and each spot
    offer's interruption bucket when `spot`: priced as cost_per_token_at prices them, on the
    figures the read has ranked (ranked_at)."""
    return f"""
        WITH k AS (
            SELECT p.*, c.memory_gb AS chip_memory_gb, FALSE AS estimate,
                CAST(NULL AS VARCHAR) AS estimate_basis
            FROM (WITH figures AS (FROM {ranked_at(con, point, [model])})
                {view_part("priced_figures")}) p
            LEFT JOIN chips c ON c.chip = p.chip
        ),
        f AS (
            SELECT k.*{", si.interruption, si.interruption_max" if spot else ""}
            FROM k {_SPOT if spot else ""}
        )"""


def cost_rows(
    con: duckdb.DuckDBPyConnection,
    model: str,
    workload: str,
    *,
    chips: list[str] | None = None,
    all_offers: bool = False,
    cheapest_of: tuple[str, ...] = (),
    currency: str | None = None,
    point: Point = DEFAULT_POINT,
    discount: Callable[[Mapping[str, object]], float] | None = None,
    max_interruption: float | None = None,
    **filters: list[str] | None,
) -> list[dict[str, object]]:
    """Rows of cost_per_token for a model and workload in ORDER (cheapest per million tokens
    first), with chip_memory_gb, one chip's memory (chips.csv), `estimate` (whether the price
    is an estimate, no price the provider publishes) and `estimate_basis`, what it rests on;
    their money in `currency` at the rate of the day each price was last seen, when given
    (chipcost.warehouse.fx). Unless `all_offers`, slices of a GPU and, unless regions name
    them, restricted regions are no chip's cheapest (docs/sources.md). The figures are chosen
    at `point`.

    `discount` gives your discount's factor for an offer (a mapping of its _DISCOUNT_KEY): the
    rows come in the order of their money times it, and of the offers alike in `cheapest_of`
    the cheapest after it and after the conversion to `currency` are kept, as your prices make
    them; the money itself is left as listed (or converted), for chipcost.reads.your_prices to
    discount. With `max_interruption`, spot offers whose interruption bucket may go above it,
    or whose risk no one publishes, are left out before the cut, and AWS's kept spot offers
    say their bucket (`interruption`; interruption_counts counts those left out)."""
    where = _filters(model, workload, **filters)
    where.any_of("chip", chips)
    if not all_offers:  # the cheapest offer of a chip: a whole chip anyone can rent
        where.conditions.append("chip_count >= 1")
        if not filters.get("regions"):  # a restricted region answers when --region names it
            where.conditions.append("NOT restricted_region(region)")
    spot = max_interruption is not None
    if spot:  # not spot, or a spot offer whose bucket's upper bound is within it
        most = where.bind(float(max_interruption))  # type: ignore[arg-type]
        where.conditions.append(f"(pricing_model <> 'spot' OR interruption_max <= {most})")
    # In US dollars at list prices the first query cuts and orders; otherwise the last, after
    # the conversion and your discounts, which may change which offer is cheapest.
    adjusted = bool(currency or discount)
    order = [f"{column} NULLS FIRST" for column in ORDER]
    sql = f"""{_offers(con, point, spot, model)}
        SELECT * {"EXCLUDE (interruption_max)" if spot else ""} FROM f WHERE {where.sql()}
    """
    if not adjusted:
        sql = _estimated(_kept(sql, all_offers, cheapest_of, order), order)
    if currency:  # each row's day
        sql = f"SELECT k.*, s.fx_seen_at FROM ({sql}) k {_SEEN}"
    sql, params = in_currency(
        con, sql, where.params, currency, day="fx_seen_at", drop=("fx_seen_at",)
    )
    if adjusted:
        joined, columns = _factors(con, discount) if discount else ("", "")
        factor = " * coalesce(d_factor, 1)" if discount else ""
        order[0] = f"usd_per_million_tokens{factor} NULLS FIRST"
        # your discount's factor kept for the cut and the order, then left out
        kept = _kept(f"SELECT * FROM ({sql}) q {joined}", all_offers, cheapest_of, order)
        sql = _estimated(kept, order, columns)
    rows = lambda: dict_rows(con, sql, params)  # noqa: E731
    if spot:  # a row with no bucket says none
        rows = lambda: [  # noqa: E731
            {k: v for k, v in row.items() if k != "interruption" or v is not None}
            for row in dict_rows(con, sql, params)
        ]
    if not cheapest_of and not adjusted:
        return rows()
    # every offer of the model read to keep a few: in bounded memory (reader.CUT_MEMORY)
    return in_working_memory(con, rows)


def _estimated(sql: str, order: list[str], hidden: str = "") -> str:
    """The rows of `sql` in `order`, with whether each price is an estimate and what it rests
    on (`estimate`, `estimate_basis`: warehouse.prices ESTIMATE's rule) and whether it is the
    bundled sample's (`sample`: warehouse.prices SAMPLE's rule), less the columns `hidden`
    names (an EXCLUDE). Read for the rows kept, not for every offer before the cut: on ten
    years of 50,000 offers a day that looked into the marks of 74,000 current prices (0.1 s
    of `cost`'s 0.5 s) to keep about 90; and the marks of the kept rows' payloads only
    (warehouse.prices marks_of), where a subquery per row read them all (20 ms more there).
    A spot price's doubt (`spot_doubt`: why it is not below its offer's on-demand price, as
    `prices` gives it; NULL on every other row) is read with them: the ranking marks it."""
    sample = SAMPLE.replace("p.payload_ref", "k.price_payload_ref")
    return f"""
        WITH kept AS ({sql}),
        marks AS ({marks_of("kept", "price_payload_ref")})
        SELECT k.* {hidden}
            REPLACE (m.estimate IS NOT NULL AS estimate, m.estimate AS estimate_basis),
            {sample} AS sample, m.spot_doubt
        FROM kept k LEFT JOIN marks m ON {marked_on("k", "price_payload_ref", "price_source")}
        ORDER BY {", ".join(order)}"""


def _kept(sql: str, all_offers: bool, cheapest_of: tuple[str, ...], order: list[str]) -> str:
    """The rows of `sql` that are each chip's cheapest offer (unless `all_offers`), first in
    `order` (`expression NULLS FIRST`, each) within GROUP; or the cheapest of the offers alike
    in `cheapest_of` (ties kept); or all of them. Unordered.

    Each GROUP's first row is taken whole by arg_min over the order's expressions as one key
    (each preceded by whether it is known, so that an unknown one comes first): a window
    ordering every offer's whole row made a one-year warehouse's `cost` 0.44 s of CPU against
    0.37 s, and numbering the offers to keep the first's number kept every offer whole
    beside the cut (60 ms of a ten-year `cost`; docs/performance.md)."""
    if not all_offers:
        terms = [term.removesuffix(" NULLS FIRST") for term in order]
        key = ", ".join(f"({term}) IS NOT NULL, {term}" for term in terms)
        return f"""
            SELECT unnest(arg_min(q, ({key})))
            FROM ({sql}) q GROUP BY {", ".join(f"q.{c}" for c in GROUP)}
        """
    if cheapest_of:
        window = f"rank() OVER (PARTITION BY {', '.join(cheapest_of)} ORDER BY {order[0]})"
        return f"SELECT * FROM ({sql}) QUALIFY {window} = 1"
    return sql


def _factors(
    con: duckdb.DuckDBPyConnection, discount: Callable[[Mapping[str, object]], float]
) -> tuple[str, str]:
    """The join of `q` to your discount's factor (d_factor) of each offer key it changes,
    every key asked once (their number grows with providers, chips and regions, not with
    offers); and the EXCLUDE of its columns."""
    # the offers cost_per_token prices (warehouse/views/40_cost_per_token.sql)
    keys = con.execute(f"SELECT DISTINCT {', '.join(_DISCOUNT_KEY)} FROM per_chip_prices")
    changed = ["(NULL, NULL, NULL, NULL, CAST(1 AS DOUBLE))"]
    for key in keys.fetchall():
        value = discount(dict(zip(_DISCOUNT_KEY, key, strict=True)))
        if value != 1:
            changed.append(f"({', '.join(literal(v) for v in (*key, float(value)))})")
    names = [f"d_{c}" for c in (*_DISCOUNT_KEY, "factor")]
    on = " AND ".join(f"d_{c} IS NOT DISTINCT FROM q.{c}" for c in _DISCOUNT_KEY)
    return (
        f"LEFT JOIN (VALUES {', '.join(changed)}) d({', '.join(names)}) ON {on}",
        f"EXCLUDE ({', '.join(names)})",
    )


def interruption_counts(
    con: duckdb.DuckDBPyConnection,
    model: str,
    workload: str,
    most: float,
    *,
    point: Point = DEFAULT_POINT,
    **filters: list[str] | None,
) -> tuple[int, int]:
    """Of the offers cost_rows(all_offers=True, max_interruption=most) reads, the spot offers
    it leaves out: AWS's whose bucket may go above `most`, and those whose risk no one
    publishes."""
    where = _filters(model, workload, **filters)
    bound = where.bind(float(most))
    sql = f"""{_offers(con, point, True, model)}
        SELECT count(*) FILTER (WHERE interruption_max > {bound}),
            count(*) FILTER (WHERE interruption_max IS NULL)
        FROM f WHERE pricing_model = 'spot' AND {where.sql()}
    """
    above, unknown = execute(con, sql, where.params).fetchone()  # type: ignore[misc]
    return int(above), int(unknown)


def known_models(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with a parameter count or at least one throughput figure."""
    rows = con.execute(
        "SELECT model FROM models UNION SELECT model FROM throughput ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


def is_encoder(con: duckdb.DuckDBPyConnection, model: str) -> bool:
    """Whether `model` is an encoder (models.attention 'none': BERT), which decodes no token
    after another: no speed per user is its question (throughput_at holds its figures at every
    speed, as training's)."""
    found = execute(con, "SELECT attention FROM models WHERE model = $m", {"m": model}).fetchone()
    return bool(found and found[0] == "none")


def derived_points(con: duckdb.DuckDBPyConnection, chip: str, model: str, workload: str) -> str:
    """Where chipcost derives `chip`'s figures of `model` and `workload`, whatever the point
    asked: '1,000 in / 1,000 out tokens, FP8' (inference), 'BF16-FP16' (training); '' where it
    derives none."""
    from chipcost.transform.precision import precision_class

    found = execute(
        con,
        "SELECT DISTINCT precision, input_tokens, output_tokens FROM throughput "
        "WHERE origin = 'derived' AND chip = $c AND model = $m AND workload = $w ORDER BY ALL",
        {"c": chip, "m": model, "w": workload},
    ).fetchall()
    points = []
    for precision, given, made in found:
        shape = f"{given:,} in / {made:,} out tokens, " if given and made else ""
        points.append(f"{shape}{precision_class(precision) or 'precision not stated'}")
    return " or ".join(dict.fromkeys(points))


def model_parameters(con: duckdb.DuckDBPyConnection, model: str) -> float | None:
    rows = execute(con, "SELECT parameters FROM models WHERE model = $m", {"m": model}).fetchall()
    return rows[0][0] if rows else None


def chips_with_prices(con: duckdb.DuckDBPyConnection) -> list[str]:
    """The chips of per_chip_prices, whose rows are current_prices' with a chip count (and the
    cheapest zone of each spot offer, a row of the same chip): read from OPEN_PRICE_ROWS."""
    rows = con.execute(
        f"SELECT DISTINCT chip FROM ({OPEN_PRICE_ROWS}) WHERE chip_count > 0 ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


class Figures:
    """The throughput figures of one model and workload (throughput_ranked), read once: a
    ranking asks which chips have one, which have one not derived, and which were set aside,
    and the view is the costliest part of each such question."""

    def __init__(self, rows: list[dict[str, object]]) -> None:
        self.rows = figure_rows(rows)  # chip and throughput_id order

    def chips(self, *, derived: bool = True) -> list[str]:
        """Chips with a chosen figure (a derived one counts only if `derived`)."""
        return sorted(
            {
                str(r["chip"])
                for r in self.rows
                if r["chosen"] and (derived or r["origin"] not in (None, "derived"))
            }
        )

    def set_aside(self, chips: list[str]) -> list[FigureRow]:
        """Figures the choice rule refused for these chips (they need more than the chip's
        peak), each with what says so."""
        return [
            {
                "throughput_id": r["throughput_id"], "chip": r["chip"],
                "tokens_per_second_per_chip": r["tokens_per_second_per_chip"], "kind": r["kind"],
                "set_aside_because": r["set_aside_because"], "source": r["source"],
            }
            for r in self.rows
            if r["usable"] is False and r["chip"] in chips
        ]  # fmt: skip


def figures(
    con: duckdb.DuckDBPyConnection, model: str, workload: str, point: Point = DEFAULT_POINT
) -> Figures:
    """The figures of `model` and `workload` as chosen at `point`."""
    return Figures(
        dict_rows(
            con,
            "SELECT chip, model, workload, throughput_id, chosen, choice_rank, usable, origin, "
            "tokens_per_second_per_chip, kind, set_aside_because, source, at_speed, "
            "input_tokens, output_tokens, precision, chips, sequence_length, batch_size, "
            "published_model, scenario, tokens_per_second_per_user, operating_point, source_date, "
            "software, system, ttft_ms, tpot_ms, concurrency, ttft_bound_ms, single_stream, "
            "interpolated, source_url, curve, deployment, lower_bound, superseded, within_bounds "
            f"FROM {ranked_at(con, point, [model])} "
            "WHERE model = $model AND workload = $workload ORDER BY chip, throughput_id",
            {"model": model, "workload": workload},
        )
    )


def throughput_listing(
    con: duckdb.DuckDBPyConnection,
    *,
    models: list[str] | None = None,
    chips: list[str] | None = None,
    workloads: list[str] | None = None,
    origins: list[str] | None = None,
) -> pl.DataFrame:
    """throughput_ranked filtered, chosen figure first within chip, model and workload."""
    from chipcost.core.frames import frame_of

    where = Where()
    where.any_of("chip", chips)
    where.any_of("workload", workloads)
    where.any_of("origin", origins)
    ranked = "throughput_ranked"
    if models:  # those models' figures alone ranked, each named as the table names it
        asked = ", ".join(literal(m.lower()) for m in models)
        named = con.execute(
            f"SELECT DISTINCT model FROM throughput WHERE list_contains([{asked}], lower(model))"
        ).fetchall()
        ranked = DEFAULT_POINT.of("throughput_at", [m for (m,) in named])
    return frame_of(
        relation(
            con,
            f"SELECT * EXCLUDE (within_bounds) FROM {ranked} WHERE {where.sql()} "
            "ORDER BY model, workload, chip, choice_rank",
            where.params or None,
        )
    )
