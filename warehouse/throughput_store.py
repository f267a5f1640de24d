"""Writing throughput figures and models: reference rows replaced whole, user rows kept."""

from __future__ import annotations

import re
from collections.abc import Sequence
from datetime import UTC, datetime
from typing import NamedTuple

import duckdb

from chipcost.core.clean import from_spreadsheet, printable
from chipcost.core.commands import MEASUREMENTS
from chipcost.core.errors import UsageError
from chipcost.core.figures import COLUMNS, Figure
from chipcost.core.questions import COMMAND_LINE
from chipcost.warehouse.cost_per_token import DEFAULT_POINT
from chipcost.warehouse.db import dict_rows
from chipcost.warehouse.insert import insert_rows

SHAPE_COLUMNS = ("active_parameters", "layers", "kv_heads", "head_dim", "attention")


def replace_reference_models(con: duckdb.DuckDBPyConnection, models: Sequence[dict]) -> None:
    """Reference models are replaced; a user's own size for a model of the same name wins."""
    con.execute("DELETE FROM models WHERE origin = 'reference'")
    user_models = {r[0] for r in con.execute("SELECT model FROM models").fetchall()}
    rows = [
        [
            m["model"],
            m["parameters"],
            m["source"],
            m.get("source_date"),
            m.get("notes"),
            "reference",
            *(m.get(column) for column in SHAPE_COLUMNS),
        ]
        for m in models
        if m["model"] not in user_models
    ]
    columns = ["model", "parameters", "source", "source_date", "notes", "origin", *SHAPE_COLUMNS]
    insert_rows(con, "models", columns, rows)


def replace_generated_figures(con: duckdb.DuckDBPyConnection, figures: Sequence[Figure]) -> None:
    """Every figure that is not the user's (references and derivations) is replaced."""
    con.execute("DELETE FROM throughput WHERE origin IS DISTINCT FROM 'user'")
    # One statement, not one per row (warehouse/insert.py).
    insert_rows(
        con, "throughput", [*COLUMNS, "recorded_at"], [[*f.values(), None] for f in figures]
    )


def derivation_inputs(con: duckdb.DuckDBPyConnection) -> tuple[list[dict], list[dict]]:
    """(chips with their dense peaks, models with their sizes): what derivations read."""
    chips = dict_rows(
        con,
        "SELECT chip, family, dense_fp8_tflops, dense_bf16_tflops, memory_gb, "
        "memory_bandwidth_tbps, spec_source, spec_date FROM chips",
    )
    models = dict_rows(
        con,
        f"SELECT model, parameters, source, source_date, {', '.join(SHAPE_COLUMNS)} "
        "FROM models ORDER BY model",
    )
    return chips, models


def _next_user_number(con: duckdb.DuckDBPyConnection) -> int:
    ids = con.execute("SELECT throughput_id FROM throughput WHERE origin = 'user'").fetchall()
    numbers = [int(m.group(1)) for (i,) in ids if (m := re.fullmatch(r"user-(\d+)", i or ""))]
    return max(numbers, default=0) + 1


def add_user_figures(
    con: duckdb.DuckDBPyConnection,
    figures: Sequence[Figure],
    *,
    allow_above_peak: bool = False,
    recorded: Sequence[datetime | None] | None = None,
) -> Added:
    """Store measurements (all or none) under new ids user-N; returns the ids and those the
    choice rule uses. `recorded`: when each was recorded, where that is known (a listing
    imported), else now.

    A figure that needs more than the chip's dense peak is refused unless allowed: it is
    almost always a per-instance figure given as per chip. Both are read from one ranking of
    the new figures' models (the costliest part of an add: 90 ms on the sample).
    """
    if not figures:
        return Added([], set())
    first = _next_user_number(con)
    now = datetime.now(UTC)
    stored = [
        Figure(**{**f.__dict__, "throughput_id": f"user-{first + n}", "origin": "user"})
        for n, f in enumerate(figures)
    ]
    ids = [f.throughput_id for f in stored]
    con.execute("BEGIN TRANSACTION")
    try:
        insert_rows(
            con,
            "throughput",
            [*COLUMNS, "recorded_at"],
            [
                [*f.values(), when or now]
                for f, when in zip(stored, recorded or [None] * len(stored), strict=True)
            ],
        )
        ranked = _ranked(con, ids)
        impossible = [] if allow_above_peak else [r.above_peak for r in ranked if r.above_peak]
        con.execute("ROLLBACK" if impossible else "COMMIT")
    except duckdb.Error:
        con.execute("ROLLBACK")
        raise
    if impossible:
        shown = "; ".join(impossible[:_SHOWN]) + (
            f"; and {len(impossible) - _SHOWN:,} more such figures"
            if len(impossible) > _SHOWN
            else ""
        )
        raise UsageError(
            "nothing recorded: " + shown + ". If the figure was measured on a "
            f"whole instance, give {COMMAND_LINE.said('figure_per', 'instance')} "
            f"{COMMAND_LINE.said('chip_count', 'N')} (CSV: per=instance, chips=N); if it is right "
            f"(FP4, sparsity), pass {COMMAND_LINE.name('allow_above_peak')}"
        )
    return Added(ids, {r.throughput_id for r in ranked if r.chosen})


def repeats(con: duckdb.DuckDBPyConnection, figures: Sequence[Figure]) -> list[str | None]:
    """For each figure, the id of a measurement of the user's already recorded with every
    field the same (a file imported twice, the same `add` run again), else None."""
    names = [c for c in COLUMNS if c != "throughput_id"]
    recorded = {
        _same(row[1:]): row[0]
        for row in con.execute(
            f"SELECT throughput_id, {', '.join(names)} FROM throughput WHERE origin = 'user' "
            "ORDER BY recorded_at DESC, throughput_id DESC"
        ).fetchall()
    }
    return [recorded.get(_fields(f)) for f in figures]


def repeated_within(figures: Sequence[Figure]) -> list[int | None]:
    """For each figure, the position of an earlier one of `figures` with every field the same
    (a row given twice in one file), else None: compared as `repeats` compares a figure with
    those recorded, so that a file's repeated row is refused as a second import of it is."""
    first: dict[tuple, int] = {}
    found: list[int | None] = []
    for n, figure in enumerate(figures):
        fields = _fields(figure)
        found.append(first.get(fields))
        first.setdefault(fields, n)
    return found


def _fields(figure: Figure) -> tuple:
    """A user figure's fields as repeats compares them (its id left out)."""
    names = [c for c in COLUMNS if c != "throughput_id"]
    return _same(["user" if n == "origin" else getattr(figure, n) for n in names])


def _same(values: Sequence[object]) -> tuple:
    """A figure's fields as repeats compares them: a number to 12 significant digits (a rate
    per instance divided by its chips again, read back from a listing, may differ in the last
    bit), and text as a listing's CSV gives it back (line breaks as spaces, no control
    characters, no leading ' a spreadsheet would take for its own)."""
    return tuple(_compared(v) for v in values)


def _compared(value: object) -> object:
    if isinstance(value, float):
        return float(f"{value:.12g}")
    return printable(from_spreadsheet(value)) if isinstance(value, str) else value


def _listed(ids: Sequence[str]) -> str:
    """The user ids add_user_figures gave, as a SQL list: thousands of Python parameters cost
    DuckDB an import attempt each (10,000 rows imported in 12 s), and these ids are chipcost's
    own ('user-12'), checked here."""
    assert all(_USER_ID.fullmatch(i) for i in ids), "not a user id chipcost gave"
    return ", ".join(f"'{i}'" for i in ids)


_USER_ID = re.compile(r"user-\d+")


class Added(NamedTuple):
    """Figures add_user_figures stored: their ids, and those the choice rule uses for their
    chip, model and workload."""

    ids: list[str]
    chosen: set[str]


class _Ranked(NamedTuple):
    throughput_id: str
    chosen: bool
    above_peak: str  # the figure in words where it needs more than its chip's dense peak


def _ranked(con: duckdb.DuckDBPyConnection, ids: list[str]) -> list[_Ranked]:
    """The new figures as throughput_ranked ranks them among their models' alone
    (throughput_at's of_models: not every model's figures ranked to keep a few)."""
    listed = _listed(ids)
    models = con.execute(
        f"SELECT DISTINCT model FROM throughput WHERE throughput_id IN ({listed})"
    ).fetchall()
    rows = con.execute(
        "SELECT throughput_id, coalesce(chosen, false), implied_mfu > 1, chip, model, workload, "
        "tokens_per_second_per_chip, implied_mfu, peak_tflops "
        f"FROM {DEFAULT_POINT.of('throughput_at', [m for (m,) in models])} "
        f"WHERE throughput_id IN ({listed}) ORDER BY throughput_id"
    ).fetchall()
    return [
        _Ranked(
            throughput_id,
            chosen,
            f"{tps:,.0f} tokens/s per chip of {model} {workload} on {chip} needs "
            f"{100 * mfu:,.0f}% of its dense peak ({peak:g} TFLOPS)"
            if above
            else "",
        )
        for throughput_id, chosen, above, chip, model, workload, tps, mfu, peak in rows
    ]


# The figures past their chip's peak a refusal names, the rest counted: 7,000 of them made one
# line of 700 KB.
_SHOWN = 5


def remove_user_figure(con: duckdb.DuckDBPyConnection, throughput_id: str) -> None:
    """Delete one of the user's measurements; references cannot be removed."""
    rows = con.execute(
        "SELECT origin FROM throughput WHERE throughput_id = ?", [throughput_id]
    ).fetchall()
    if not rows:  # the id given names nothing: a usage error, as remove-run's run
        raise UsageError(
            f"no throughput figure {throughput_id!r}: `{MEASUREMENTS}` "
            "shows your measurements and their ids"
        )
    if rows[0][0] != "user":
        raise UsageError(
            f"{throughput_id} is a {rows[0][0]} figure, not one of your measurements: it cannot "
            "be removed, but any measurement you add for that chip, model and workload wins over it"
        )
    con.execute("DELETE FROM throughput WHERE throughput_id = ?", [throughput_id])


def put_user_model(
    con: duckdb.DuckDBPyConnection, model: str, parameters: float, source: str
) -> None:
    """Record (or replace) the size of a user's own model, inside the caller's transaction."""
    con.execute("DELETE FROM models WHERE model = ?", [model])
    con.execute(
        "INSERT INTO models (model, parameters, source, source_date, notes, origin) "
        "VALUES (?, ?, ?, ?, ?, 'user')",
        [model, parameters, source, datetime.now(UTC).date().isoformat(), None],
    )
