"""Read queries behind `chipcost cost` and `chipcost throughput list`: all from the views."""

from __future__ import annotations

from dataclasses import dataclass
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.figures import DEFAULT_SPEED
from chipcost.core.vocabulary import OFFER_KEY
from chipcost.transform.cost_fit import GROUP
from chipcost.transform.rows import FigureRow, figure_rows
from chipcost.warehouse.bound import execute
from chipcost.warehouse.db import OPEN_PRICE_ROWS, dict_rows
from chipcost.warehouse.fx import in_currency
from chipcost.warehouse.prices import ESTIMATE
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

    def of(self, macro: str) -> str:
        """`macro` (throughput_at, cost_per_token_at) called at this point."""
        return f"{macro}({self.arguments()})"


# The point every figure is chosen at unless one is asked: the views' (throughput_ranked,
# cost_per_token).
DEFAULT_POINT = Point()


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
    **filters: list[str] | None,
) -> list[dict[str, object]]:
    """Rows of cost_per_token for a model and workload in ORDER (cheapest per million tokens
    first), with chip_memory_gb, one chip's memory (chips.csv), `estimate` (whether the price
    is an estimate, no price the provider publishes) and `estimate_basis`, what it rests on;
    their money in `currency` at the rate of the day each price was last seen, when given
    (chipcost.warehouse.fx). Unless `all_offers`, slices of a GPU and, unless regions name
    them, restricted regions are no chip's cheapest (docs/sources.md). The figures are chosen
    at `point`."""
    where = _filters(model, workload, **filters)
    where.any_of("chip", chips)
    if not all_offers:  # the cheapest offer of a chip: a whole chip anyone can rent
        where.conditions.append("chip_count >= 1")
        if not filters.get("regions"):  # a restricted region answers when --region names it
            where.conditions.append("NOT restricted_region(region)")
    order = ", ".join(f"{column} NULLS FIRST" for column in ORDER)
    qualify = (
        f"QUALIFY row_number() OVER (PARTITION BY {', '.join(GROUP)} ORDER BY {order}) = 1"
        if not all_offers
        # of the offers alike in `cheapest_of` the cheapest only, ties kept (chipcost cost)
        else f"QUALIFY rank() OVER (PARTITION BY {', '.join(cheapest_of)} "
        "ORDER BY usd_per_million_tokens) = 1"
        if cheapest_of
        else ""
    )
    sql = f"""
        WITH k AS (
            SELECT * EXCLUDE (estimate_basis), estimate_basis IS NOT NULL AS estimate,
                estimate_basis
            FROM (
                SELECT p.* EXCLUDE (payload_ref, source), c.memory_gb AS chip_memory_gb,
                    {ESTIMATE} AS estimate_basis
                FROM (
                    SELECT *, price_payload_ref AS payload_ref, price_source AS source
                    FROM {point.of("cost_per_token_at")}
                ) p LEFT JOIN chips c ON c.chip = p.chip
            )
        )
        SELECT * FROM k WHERE {where.sql()} {qualify} ORDER BY {order}
    """
    if currency:  # each row's day, its order kept
        sql = f"SELECT k.*, s.fx_seen_at FROM ({sql}) k {_SEEN} ORDER BY {order}"
    sql, params = in_currency(
        con, sql, where.params, currency, day="fx_seen_at", drop=("fx_seen_at",)
    )
    if not cheapest_of:
        return dict_rows(con, sql, params)
    # every offer of the model read to keep a few: in bounded memory (reader.CUT_MEMORY)
    return in_working_memory(con, lambda: dict_rows(con, sql, params))


def known_models(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with a parameter count or at least one throughput figure."""
    rows = con.execute(
        "SELECT model FROM models UNION SELECT model FROM throughput ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


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
            "interpolated, source_url, curve, deployment, lower_bound, superseded "
            f"FROM {point.of('throughput_at')} "
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
    where.any_of("model", models)
    where.any_of("chip", chips)
    where.any_of("workload", workloads)
    where.any_of("origin", origins)
    return frame_of(
        con.sql(
            f"SELECT * FROM throughput_ranked WHERE {where.sql()} "
            "ORDER BY model, workload, chip, choice_rank",
            params=where.params or None,
        )
    )
