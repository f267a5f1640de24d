"""The point `chipcost measure --match CHIP` measures at: the baseline's shape and client.

The baseline is the figure `cost` and `compare` use for the chip, model and speed. When it
states its request shape (input and output tokens), that shape is measured. When it states
none (MLPerf's rows: its dataset has no fixed shape), the shape is the user's
(`--input-tokens/--output-tokens`), else that of the nearest public curve of the chip and model
that has one: an InferenceX curve first (its client is known, and rerun as it runs), then the
curve whose per-user speed is nearest the asked one. What was taken is said.

A figure interpolated at the asked speed between two points of one curve (its id the faster
point's, `@speed` after it: warehouse/views/35_throughput_ranked.sql) is measured as the curve it
was read from: the curve of the point before the `@`, as the view draws curves (one source,
chip, model, shape, precision, software, scale and system).
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import duckdb

from chipcost.core.errors import UsageError
from chipcost.core.figures import speed_label
from chipcost.core.questions import COMMAND_LINE
from chipcost.pipeline.load_generator import Client
from chipcost.transform.rows import FigureRow, figure_rows
from chipcost.warehouse.cost_per_token import Point, figures
from chipcost.warehouse.db import dict_rows

# InferenceX's benchmark client, as its README's "Benchmark Client Configuration" gives it
# (InferenceMAX, a fork's README.md at commit 6458cb4f, github.com/jyothisambolu/InferenceMAX):
# `benchmark_serving.py --dataset-name random --random-range-ratio 0.8 --num-prompts
# $((CONC * 10)) --max-concurrency $CONC --request-rate inf --ignore-eos`: random prompts whose
# input and output lengths are drawn between 80% and 100% of the shape's, the end-of-sequence
# token ignored, ten prompts per concurrent user at each concurrency of its sweep.
# The names InferenceX's figures carry in their source, wherever in it ("SemiAnalysis InferenceX
# (formerly InferenceMAX), official CI run ..."), its former name with it.
INFERENCEX = ("InferenceX", "InferenceMAX")
INFERENCEX_CLIENT = Client(range_ratio=0.8, named="InferenceX's benchmark client")
INFERENCEX_PROMPTS_PER_USER = 10
# `measure` is asked on the command line only: the shape it may give instead of --match.
_SHAPE = f"{COMMAND_LINE.name('input_tokens')} and {COMMAND_LINE.name('output_tokens')}"


def is_inferencex(source: object) -> bool:
    """Whether a figure's source names InferenceX (INFERENCEX) anywhere, in any case."""
    said = str(source or "").casefold()
    return any(name.casefold() in said for name in INFERENCEX)


@dataclass(frozen=True)
class Baseline:
    """The point to measure and where it came from."""

    input_tokens: int
    output_tokens: int
    named: str  # the figure or curve the shape is taken from, for the figures' notes
    taken: str = ""  # how the shape was chosen when not the baseline figure's own, for the user
    concurrencies: tuple[int, ...] = ()  # the curve's sweep, when its client is rerun
    client: Client = Client()
    prompts_per_user: int | None = None  # requests per concurrency = this x the concurrency


def matched_point(
    con: duckdb.DuckDBPyConnection,
    chip: str,
    model: str,
    speed: str,
    given: tuple[int, int] | None = None,
) -> Baseline:
    """The baseline of `chip` and `model` at `speed`: the shape of the figure `cost` and
    `compare` use, or (when it states none) the `given` shape or the nearest shaped curve's."""
    rows = figures(con, model, "inference", Point(speed)).rows
    chosen = [r for r in rows if r["chip"] == chip and r["chosen"]]
    if not chosen:
        raise UsageError(
            f"{COMMAND_LINE.said('match', chip)}: chipcost has no {model} inference figure of "
            f"{chip} {speed_label(speed, model)}, so there is no point to match: give {_SHAPE} "
            f"without {COMMAND_LINE.name('match')}"
        )
    row = chosen[0]
    name = f"{chip}'s {row['throughput_id']} ({row['kind']}, {row['scenario'] or row['source']})"
    isl, osl = row["input_tokens"], row["output_tokens"]
    if isl and osl:
        shape = (isl, osl)
        if given and given != shape:
            raise UsageError(
                f"{COMMAND_LINE.said('match', chip)}: {name} was measured at {shape[0]}/{shape[1]} "
                f"input/output tokens; leave out {_SHAPE}, or {COMMAND_LINE.name('match')}"
            )
        point = str(row["throughput_id"])
        if row["interpolated"]:  # '<faster point>@<speed>': no row of its own, its curve's
            point = point.rpartition("@")[0]
        return _of_curve(con, point, name, *shape)
    if given:
        return Baseline(
            *given, named=f"{name}, at the shape given",
            taken=f"{name} states no input and output tokens: measured at the "
            f"{given[0]}/{given[1]} given",
        )  # fmt: skip
    return _nearest_curve(con, chip, model, speed, name)


def _nearest_curve(
    con: duckdb.DuckDBPyConnection, chip: str, model: str, speed: str, name: str
) -> Baseline:
    found = dict_rows(
        con,
        "SELECT throughput_id, source, kind, scenario, input_tokens, output_tokens, precision, "
        "chips, software, system, tokens_per_second_per_user, tokens_per_second_per_chip, "
        "source_date FROM throughput WHERE chip = $chip AND model = $model "
        "AND workload = 'inference' AND origin = 'reference' AND input_tokens > 0 "
        "AND output_tokens > 0 ORDER BY throughput_id",
        {"chip": chip, "model": model},
    )
    shaped = figure_rows(found)
    if not shaped:
        raise UsageError(
            f"{COMMAND_LINE.said('match', chip)}: {name} states no input and output tokens, and no "
            f"public {chip} curve of {model} has a fixed shape: give {_SHAPE}"
        )
    newest_first = sorted(shaped, key=lambda r: str(r["source_date"] or ""), reverse=True)
    best = min(newest_first, key=lambda r: _distance(r, speed))
    isl, osl = best["input_tokens"], best["output_tokens"]
    assert isl and osl  # the query keeps only figures with both counts
    curve = f"{chip}'s {best['throughput_id']} ({best['source']})"
    taken = (
        f"{name} states no input and output tokens: measured at {isl}/{osl}, the shape of "
        f"{chip}'s nearest public curve with one, {best['throughput_id']} ({best['source']})"
    )
    return _of_curve(con, str(best["throughput_id"]), curve, isl, osl, taken)


def _distance(row: FigureRow, speed: str) -> tuple[bool, float]:
    """InferenceX's first, then the nearest per-user speed (at 'max', the highest per chip)."""
    own = not is_inferencex(row["source"])
    user = row["tokens_per_second_per_user"]
    if speed == "max":
        return own, -(row["tokens_per_second_per_chip"] or 0)
    return own, abs(math.log(user / float(speed))) if user else math.inf


def _of_curve(
    con: duckdb.DuckDBPyConnection, point: str, name: str, isl: int, osl: int, taken: str = ""
) -> Baseline:
    """The baseline at a shaped figure (`point`, a figure of the throughput table); an InferenceX
    figure brings its curve's client and sweep: the concurrencies of every point of its curve,
    as throughput_ranked draws the curve, a concurrency of 1 among them kept (it is one of the
    sweep's runs; `chipcost measure` refuses a plan of it alone)."""
    found = dict_rows(
        con,
        "WITH ranked AS (SELECT r.throughput_id, r.source, r.curve, r.concurrency, "
        "r.interpolated FROM throughput_ranked r JOIN throughput t "
        "ON t.chip = r.chip AND t.model = r.model AND t.workload = r.workload "
        "WHERE t.throughput_id = $point) "
        "SELECT DISTINCT c.concurrency, f.source FROM ranked f JOIN ranked c ON c.curve = f.curve "
        "WHERE f.throughput_id = $point AND NOT c.interpolated AND c.concurrency > 0 "
        "ORDER BY c.concurrency",
        {"point": point},
    )
    if not found or not is_inferencex(found[0]["source"]):
        return Baseline(isl, osl, named=name, taken=taken)
    return Baseline(
        isl, osl, named=f"{name}, with InferenceX's client", taken=taken,
        concurrencies=tuple(int(r["concurrency"]) for r in found), client=INFERENCEX_CLIENT,
        prompts_per_user=INFERENCEX_PROMPTS_PER_USER,
    )  # fmt: skip
