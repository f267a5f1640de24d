"""Read queries behind `chipcost cost` and `chipcost throughput list`: all from the views."""

from __future__ import annotations

import duckdb
import polars as pl

from chipcost.core.frames import frame_of


def _any_of(column: str, values: list[str] | None, where: list[str], params: list) -> None:
    if values:
        where.append(f"lower({column}) IN ({', '.join('?' for _ in values)})")
        params.extend(v.lower() for v in values)


# One row per chip, pricing model and term unless every offer is asked for: the cheapest
# offer stands for the others (its provider, region, payment and plan are shown).
GROUP = ("chip", "pricing_model", "term")


def _filters(
    model: str,
    workload: str,
    *,
    regions: list[str] | None = None,
    pricing_models: list[str] | None = None,
    providers: list[str] | None = None,
) -> tuple[list[str], list]:
    where, params = ["model = ?", "workload = ?"], [model, workload]
    _any_of("region", regions, where, params)
    _any_of("pricing_model", pricing_models, where, params)
    _any_of("provider", providers, where, params)
    return where, params


def cost_rows(
    con: duckdb.DuckDBPyConnection,
    model: str,
    workload: str,
    *,
    chips: list[str] | None = None,
    all_offers: bool = False,
    **filters: list[str] | None,
) -> pl.DataFrame:
    """Rows of cost_per_token for a model and workload, cheapest per million tokens first,
    with chip_memory_gb, one chip's memory (chips.csv)."""
    where, params = _filters(model, workload, **filters)
    _any_of("chip", chips, where, params)
    order = "cost_per_million_tokens, chip, provider, region, zone, instance_type, payment, plan"
    qualify = (
        ""
        if all_offers
        else f"QUALIFY row_number() OVER (PARTITION BY {', '.join(GROUP)} ORDER BY {order}) = 1"
    )
    sql = f"""
        WITH k AS (
            SELECT k.*, c.memory_gb AS chip_memory_gb
            FROM cost_per_token k LEFT JOIN chips c ON c.chip = k.chip
        )
        SELECT * FROM k WHERE {" AND ".join(where)} {qualify} ORDER BY {order}
    """
    return frame_of(con.sql(sql, params=params))


def known_models(con: duckdb.DuckDBPyConnection) -> list[str]:
    """Models with a parameter count or at least one throughput figure."""
    rows = con.execute(
        "SELECT model FROM models UNION SELECT model FROM throughput ORDER BY 1"
    ).fetchall()
    return [r[0] for r in rows]


def model_parameters(con: duckdb.DuckDBPyConnection, model: str) -> float | None:
    rows = con.execute("SELECT parameters FROM models WHERE model = ?", [model]).fetchall()
    return rows[0][0] if rows else None


def chips_with_prices(con: duckdb.DuckDBPyConnection) -> list[str]:
    rows = con.execute("SELECT DISTINCT chip FROM per_chip_prices ORDER BY 1").fetchall()
    return [r[0] for r in rows]


def chips_with_throughput(
    con: duckdb.DuckDBPyConnection, model: str, workload: str, *, derived: bool = True
) -> list[str]:
    """Chips with a chosen figure for the model and workload (derived ones only if asked)."""
    only = "" if derived else "AND origin <> 'derived'"
    rows = con.execute(
        "SELECT DISTINCT chip FROM throughput_ranked WHERE chosen AND model = ? AND workload = ? "
        f"{only} ORDER BY 1",
        [model, workload],
    ).fetchall()
    return [r[0] for r in rows]


def set_aside(
    con: duckdb.DuckDBPyConnection, model: str, workload: str, chips: list[str]
) -> pl.DataFrame:
    """Figures the choice rule refused for these chips (they need more than the chip's peak)."""
    if not chips:
        return pl.DataFrame()
    marks = ", ".join("?" for _ in chips)
    return frame_of(
        con.sql(
            "SELECT throughput_id, chip, tokens_per_second_per_chip, kind, set_aside_because, "
            f"source FROM throughput_ranked WHERE NOT usable AND model = ? AND workload = ? "
            f"AND chip IN ({marks}) ORDER BY chip, throughput_id",
            params=[model, workload, *chips],
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
    where: list[str] = ["TRUE"]
    params: list = []
    _any_of("model", models, where, params)
    _any_of("chip", chips, where, params)
    _any_of("workload", workloads, where, params)
    _any_of("origin", origins, where, params)
    return frame_of(
        con.sql(
            f"SELECT * FROM throughput_ranked WHERE {' AND '.join(where)} "
            "ORDER BY model, workload, chip, choice_rank",
            params=params,
        )
    )
