"""What `chipcost measure` does: drive a load generator against the user's endpoint at a
point, and record each concurrency's result as a measured figure of theirs.

The point is the baseline's where one is named (`--match H100-SXM`: the input and output
tokens of the figure `cost` and `compare` use for that chip, model and speed), else the
tokens given. Everything that can be checked before the load is (the tool installed, the
model's size and the chip's roofline known, the endpoint answering and serving the model),
each failure one line; then AIPerf runs once per concurrency; every point is checked (usage
reported, the asked output length reached, no failed request, under the roofline) before
anything is written, so a bad point records nothing. The tool's reports are archived like a
source's payloads (<archive>/measurements/<run stamp>/aiperf/) and each figure names its own.
"""

from __future__ import annotations

import tempfile
import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path

import duckdb

from chipcost.archive import ArchiveWriter, run_stamp
from chipcost.core.catalog import canonical_chips
from chipcost.core.clean import without_credentials
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.figures import Figure, speed_label
from chipcost.core.settings import Settings
from chipcost.pipeline.load_generator import (
    TOOL,
    Run,
    base_url,
    run_aiperf,
    served_models,
    tool_command,
)
from chipcost.transform.measured import (
    MeasuredPoint,
    Roof,
    above_roof,
    failure_of,
    physical_roof,
    point_of,
)
from chipcost.transform.throughput_figures import figure_from_row
from chipcost.warehouse.cost_per_token import at_speed, figures
from chipcost.warehouse.db import dict_rows

# Where the reports go under the archive root: not a run stamp, so a replay of the archive
# passes it by (chipcost.archive.run_directories).
ARCHIVE_FOLDER = "measurements"


@dataclass(frozen=True)
class Setup:
    """What was measured and how: the user's declaration, the point, and the bounds."""

    chip: str
    model: str
    chips: float
    instance: str | None
    precision: str
    software: str
    endpoint: str
    served_model: str | None
    tokenizer: str
    input_tokens: int
    output_tokens: int
    concurrencies: list[int]
    requests: int | None  # per concurrency (at least the concurrency); None: 4 x it, at least 8
    seconds: float  # the whole sweep's
    request_timeout: float
    allow_above_roofline: bool = False
    baseline: str = ""  # how the point was chosen, for the figure's notes


def matched_point(
    con: duckdb.DuckDBPyConnection, chip: str, model: str, speed: str
) -> tuple[int, int, str]:
    """(input tokens, output tokens, which figure) of the figure `cost` and `compare` use for
    `chip` and `model` at `speed`; a figure that states no request shape cannot be matched."""
    with at_speed(con, speed):
        rows = figures(con, model, "inference").rows
    chosen = [r for r in rows if r["chip"] == chip and r["chosen"]]
    if not chosen:
        raise UsageError(
            f"--match {chip}: chipcost has no {model} inference figure of {chip} "
            f"{speed_label(speed)}, so there is no point to match: give --input-tokens and "
            "--output-tokens"
        )
    row = chosen[0]
    name = f"{row['throughput_id']} ({row['kind']}, {row['scenario'] or row['source']})"
    if not row["input_tokens"] or not row["output_tokens"]:
        raise UsageError(
            f"--match {chip}: the figure chipcost uses for {chip} {speed_label(speed)}, "
            f"{name}, states no input and output tokens, so its shape cannot be matched: "
            "give --input-tokens and --output-tokens"
        )
    return int(row["input_tokens"]), int(row["output_tokens"]), f"{chip}'s {name}"  # type: ignore[call-overload]


def instance_chips(con: duckdb.DuckDBPyConnection, instance: str) -> tuple[str, float] | None:
    """(chip, chips) of an instance type the warehouse knows, else None."""
    rows = con.execute(
        "SELECT chip, chip_count FROM instance_types WHERE instance_type = ? "
        "AND chip_count >= 1 ORDER BY provider LIMIT 1",
        [instance],
    ).fetchall()
    return (str(rows[0][0]), float(rows[0][1])) if rows else None


def roof_of(con: duckdb.DuckDBPyConnection, setup: Setup) -> Roof:
    """The physical roofline of the declared chips serving the declared model."""
    models = dict_rows(
        con,
        "SELECT parameters, coalesce(active_parameters, parameters) AS active FROM models "
        "WHERE model = $model",
        {"model": setup.model},
    )
    if not models:
        raise UsageError(
            f"--model {setup.model}: chipcost knows no size of it, so no roofline to check the "
            f"measurement against: `chipcost throughput model {setup.model} --parameters 70B` "
            "first"
        )
    specs = dict_rows(
        con,
        "SELECT dense_fp4_tflops AS fp4, dense_fp8_tflops AS fp8, dense_bf16_tflops AS bf16, "
        "memory_bandwidth_tbps AS bandwidth FROM chips WHERE chip = $chip",
        {"chip": setup.chip},
    )
    spec = specs[0] if specs else {}
    peak = {
        "fp4": spec.get("fp4") or spec.get("fp8"),
        "int4": spec.get("fp8"),
        "fp8": spec.get("fp8"),
        "int8": spec.get("fp8"),
    }.get(setup.precision, spec.get("bf16")) or spec.get("bf16")
    if not peak or not spec.get("bandwidth"):
        raise UsageError(
            f"--chip {setup.chip}: chipcost/data/chips.csv gives no dense peak or memory "
            "bandwidth for it, so no roofline to check a measurement against"
        )
    return physical_roof(
        total_parameters=float(models[0]["parameters"]),  # type: ignore[arg-type]
        active_parameters=float(models[0]["active"]),  # type: ignore[arg-type]
        precision=setup.precision,
        peak_tflops=float(peak),
        bandwidth_tbps=float(spec["bandwidth"]),  # type: ignore[arg-type]
        chips=setup.chips,
        input_tokens=setup.input_tokens,
        output_tokens=setup.output_tokens,
    )


def check_endpoint(setup: Setup) -> tuple[str, str]:
    """(the server's root URL, the model name to ask for), after asking what it serves."""
    url = base_url(setup.endpoint)
    listed = served_models(url, setup.request_timeout)
    shown = without_credentials(url)
    if setup.served_model is None:
        if not listed or len(listed) != 1:
            names = f"it serves {', '.join(listed)}" if listed else "it lists none"
            raise UsageError(f"--served-model: name the model to ask {shown} for ({names})")
        return url, listed[0]
    if listed is not None and setup.served_model not in listed:
        raise UsageError(
            f"--served-model {setup.served_model!r}: {shown} does not serve it (it serves "
            f"{', '.join(listed) or 'nothing'}); nothing recorded"
        )
    return url, setup.served_model


def run_sweep(setup: Setup, url: str, served: str, roof: Roof) -> list[tuple[MeasuredPoint, Run]]:
    """Every concurrency measured and checked, or a ChipcostError naming the first bad one."""
    deadline = time.monotonic() + setup.seconds
    shown = without_credentials(url)
    done: list[tuple[MeasuredPoint, Run]] = []
    with tempfile.TemporaryDirectory(prefix="chipcost-measure-") as folder:
        for concurrency in setup.concurrencies:
            left = deadline - time.monotonic()
            if left <= 1:
                raise ChipcostError(
                    f"--max-seconds {setup.seconds:g} ran out before concurrency {concurrency}: "
                    "nothing recorded; give more time or fewer concurrencies"
                )
            run = run_aiperf(
                endpoint=url,
                served_model=served,
                tokenizer=setup.tokenizer,
                input_tokens=setup.input_tokens,
                output_tokens=setup.output_tokens,
                concurrency=concurrency,
                # a concurrency is only reached with at least that many requests
                requests=max(setup.requests or max(8, 4 * concurrency), concurrency),
                seconds=left,
                request_timeout=setup.request_timeout,
                out=Path(folder) / f"concurrency_{concurrency}",
            )
            if run.summary is None:
                reason = failure_of(run.records, run.last_line)
                raise ChipcostError(
                    f"endpoint {shown} {reason} (model {served}, concurrency {concurrency}): "
                    "nothing recorded"
                )
            point = point_of(run.summary, concurrency, shown, setup.output_tokens)
            beyond = above_roof(point, setup.chips, roof, setup.chip, setup.precision)
            if beyond and not setup.allow_above_roofline:
                raise ChipcostError(
                    f"nothing recorded: {beyond}. Check --chip, --chips and --precision; if the "
                    "server decodes speculatively, pass --allow-above-roofline"
                )
            done.append((point, run))
    return done


def figures_of(
    setup: Setup, points: list[tuple[MeasuredPoint, Run]], refs: list[str]
) -> list[Figure]:
    """One measured figure per point, its point and provenance on it."""
    today = datetime.now(UTC).date().isoformat()
    system = f"{setup.chips:g} x {setup.chip}" + (
        f" (on {setup.instance})" if setup.instance else ""
    )
    shown = without_credentials(base_url(setup.endpoint))
    made = []
    for (point, _), ref in zip(points, refs, strict=True):
        tool = point.tool_version
        shape = f"ISL/OSL {setup.input_tokens}/{setup.output_tokens}"
        notes = (
            f"Measured with AIPerf {tool} against {shown} ({point.requests} requests, streamed, "
            f"token counts from the server's usage: {point.output_tokens:,.0f} output tokens "
            f"per request on average)."
            + (f" Point matched to {setup.baseline}." if setup.baseline else "")
        )
        row = {
            "chip": setup.chip,
            "model": setup.model,
            "workload": "inference",
            "tokens_per_second": f"{point.output_tokens_per_second!r}",
            "per": "instance",
            "chips": f"{setup.chips:g}",
            "precision": setup.precision,
            "source": f"chipcost measure (AIPerf {tool})",
            "source_date": today,
            "notes": notes,
            "stated_as": f"{point.output_tokens_per_second:,.1f} output tokens/s on {system}, "
            f"{point.tokens_per_second_per_user:,.1f} per user, concurrency {point.concurrency}",
            "operating_point": "latency-bound",
            "scenario": f"{shape}, concurrency {point.concurrency}",
            "tokens_per_second_per_user": f"{point.tokens_per_second_per_user!r}",
            "ttft_ms": "" if point.ttft_ms is None else f"{point.ttft_ms!r}",
            "tpot_ms": "" if point.tpot_ms is None else f"{point.tpot_ms!r}",
            "input_tokens": str(setup.input_tokens),
            "output_tokens": str(setup.output_tokens),
            "concurrency": str(point.concurrency),
            "software": setup.software,
            "system": system,
            "source_url": f"archive:{ARCHIVE_FOLDER}/{ref}",
        }
        made.append(
            figure_from_row(row, chips=canonical_chips(), origin="user", throughput_id="new")
        )
    return made


def archive_reports(
    settings: Settings, setup: Setup, points: list[tuple[MeasuredPoint, Run]]
) -> list[str]:
    """Each point's AIPerf summary archived as a payload; their refs (<stamp>/aiperf/NNNN...)."""
    root = settings.archive_root
    folder = f"{root}/{ARCHIVE_FOLDER}"
    writer = ArchiveWriter(folder, run_stamp(datetime.now(UTC)), TOOL)
    shown = without_credentials(base_url(setup.endpoint))
    refs = []
    for point, run in points:
        payload = writer.write(
            run.summary or b"",
            f"{shown} (concurrency {point.concurrency})",
            request={"command": [TOOL, *run.command[run.command.index("profile") :]]},
        )
        refs.append(payload.ref)
    return refs


def measure(settings: Settings, setup: Setup, roof: Roof) -> list[Figure]:
    """Measure every concurrency (all checked first) and return the figures to store; the
    reports are archived. `roof` is roof_of's, read before: no warehouse is held while the
    load runs."""
    url, served = check_endpoint(setup)
    tool_command()
    points = run_sweep(setup, url, served, roof)
    refs = archive_reports(settings, setup, points)
    return figures_of(setup, points, refs)
