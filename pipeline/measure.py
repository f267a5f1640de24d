"""What `chipcost measure` does: drive a load generator against the user's endpoint at a
point, and record each concurrency's result as a measured figure of theirs.

The point is the baseline's where one is named (chipcost.pipeline.measure_point), else the
tokens given. Everything that can be checked before the load is (the tool installed, the
model's size and the chip's roofline known, the endpoint answering and serving the model: the
name it lists and the name its answers carry are the model's, chipcost.pipeline.served), each
failure one line; then AIPerf runs once per concurrency; every point is checked (its
report's schema, no failed request, streamed, usage agreeing with the stream, every request
answered, the asked output length reached, under the roofline) before anything is written,
so a bad point records nothing. The tool's reports are archived like a source's payloads, in
a folder of the measurement's own (<archive>/measurements/<run stamp>[-N]/aiperf/), and each
figure names its own.
"""

from __future__ import annotations

import time
from dataclasses import dataclass
from datetime import UTC, datetime
from pathlib import Path
from typing import TypedDict

import duckdb

from chipcost.archive import ArchiveWriter, location, run_stamp
from chipcost.core.catalog import canonical_chips
from chipcost.core.commands import model_size
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.figures import Figure
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.scratch import scratch
from chipcost.core.settings import Settings
from chipcost.pipeline.aiperf_group import stopped_on_signals
from chipcost.pipeline.endpoint import Endpoint, served_models
from chipcost.pipeline.load_generator import (
    TOOL,
    Client,
    Run,
    aiperf_options,
    run_aiperf,
    tool_command,
)
from chipcost.pipeline.measure_point import Baseline
from chipcost.pipeline.served import answered_model, refuse_other_model
from chipcost.transform.measured import (
    MeasuredPoint,
    Roof,
    above_roof,
    failure_of,
    physical_roof,
    point_of,
)
from chipcost.transform.references import model_equivalents
from chipcost.transform.rows import number
from chipcost.transform.throughput_figures import figure_from_row
from chipcost.warehouse.db import dict_rows

# Where the reports go under the archive root: not a run stamp, so a replay of the archive
# passes it by (chipcost.archive.run_directories).
ARCHIVE_FOLDER = "measurements"
# Measurements archived within one second that each get a folder of their own.
MAX_SAME_SECOND = 1_000


@dataclass(frozen=True)
class Setup:
    """What was measured and how: the user's declaration, the point, and the bounds."""

    chip: str
    model: str
    chips: int
    instance: str | None
    precision: str
    software: str
    endpoint: Endpoint
    served_model: str | None
    tokenizer: str
    input_tokens: int
    output_tokens: int
    concurrencies: list[int]
    requests: int | None  # per concurrency (at least the concurrency); None: the baseline's
    seconds: float  # the whole sweep's
    request_timeout: float
    allow_above_roofline: bool = False
    baseline: Baseline | None = None  # the point matched (--match), its client with it
    asked_model: str | None = None  # the name given, when it stands for `model` (llama-3.3-70b)

    @property
    def client(self) -> Client:
        """How AIPerf sends the prompts: the matched baseline's client, else fixed lengths."""
        return self.baseline.client if self.baseline else Client()

    def requests_at(self, concurrency: int) -> int:
        """Requests at one concurrency: --requests (a concurrency is only reached with at
        least that many), else the baseline client's, else 4 x it, at least 8."""
        if self.requests:
            return max(self.requests, concurrency)
        if self.baseline and self.baseline.prompts_per_user:
            return self.baseline.prompts_per_user * concurrency
        return max(8, 4 * concurrency)


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
            f"{COMMAND_LINE.said('model', setup.model)}: chipcost knows no size of it, so no "
            f"roofline to check the measurement against: `{model_size(setup.model, '70B')}` first"
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
            f"{COMMAND_LINE.said('chip', setup.chip)}: core/data/chips.csv gives no dense "
            "peak or memory bandwidth for it, so no roofline to check a measurement against"
        )
    return physical_roof(
        total_parameters=number(models[0]["parameters"]),
        active_parameters=number(models[0]["active"]),
        precision=setup.precision,
        peak_tflops=number(peak),
        bandwidth_tbps=number(spec["bandwidth"]),
        chips=setup.chips,
        input_tokens=setup.input_tokens,
        output_tokens=setup.output_tokens,
    )


def check_endpoint(setup: Setup) -> str:
    """The model name to ask for, after asking the endpoint what it serves: a name it lists,
    and one that is the model measured (chipcost.pipeline.served)."""
    listed = served_models(setup.endpoint, setup.request_timeout)
    shown = setup.endpoint.url
    if setup.served_model is None:
        if not listed or len(listed) != 1:
            names = f"it serves {_some(listed)}" if listed else "it lists none"
            said = COMMAND_LINE.name("served_model")
            raise UsageError(f"{said}: name the model to ask {shown} for ({names})")
        served, how = listed[0], "lists only"
    elif listed is not None and setup.served_model not in listed:
        raise UsageError(
            f"{COMMAND_LINE.said('served_model', repr(setup.served_model))}: {shown} does not "
            f"serve it (it serves {_some(listed) or 'nothing'}); nothing recorded"
        )
    else:
        served, how = setup.served_model, f"is asked ({COMMAND_LINE.name('served_model')}) for"
    refuse_other_model(served, setup.model, setup.asked_model or setup.model, shown, how)
    return served


def check_answers(setup: Setup, served: str) -> str | None:
    """The model the endpoint's answers name, when one does (chipcost.pipeline.served), after
    refusing one that is not the model measured."""
    answered = answered_model(setup.endpoint, served, setup.request_timeout)
    if answered is not None and answered != served:
        how = f"answers a request for {served!r} as"
        shown = setup.endpoint.url
        refuse_other_model(answered, setup.model, setup.asked_model or setup.model, shown, how)
    return answered


def _some(names: list[str], shown: int = 10) -> str:
    more = f" and {len(names) - shown:,} more" if len(names) > shown else ""
    return ", ".join(names[:shown]) + more


def run_sweep(setup: Setup, served: str, roof: Roof) -> list[tuple[MeasuredPoint, Run]]:
    """Every concurrency measured and checked, or a ChipcostError naming the first bad one.
    AIPerf's files live in a temporary folder removed on every way out, a stop signal's
    between two runs included (stopped_on_signals)."""
    deadline = time.monotonic() + setup.seconds
    done: list[tuple[MeasuredPoint, Run]] = []
    with stopped_on_signals(), scratch("chipcost-measure") as folder:
        for concurrency in setup.concurrencies:
            left = deadline - time.monotonic()
            if left <= 1:
                raise ChipcostError(
                    f"{COMMAND_LINE.said('max_seconds', f'{setup.seconds:g}')} ran out before "
                    f"concurrency {concurrency}: "
                    "nothing recorded; give more time or fewer concurrencies"
                )
            out = Path(folder) / f"concurrency_{concurrency}"
            run = run_aiperf(**run_at(setup, served, concurrency, left, out))
            done.append((_checked(setup, run, served, concurrency, roof), run))
    return done


class RunAt(TypedDict):
    """run_aiperf's keywords at one concurrency of a sweep."""

    endpoint: Endpoint
    served_model: str
    tokenizer: str
    input_tokens: int
    output_tokens: int
    concurrency: int
    requests: int
    seconds: float
    request_timeout: float
    out: Path
    client: Client


def run_at(setup: Setup, served: str, concurrency: int, seconds: float, out: Path) -> RunAt:
    """What AIPerf is run with at one concurrency of the sweep: the sweep's own runs and the
    plan `measure --dry-run` shows are made of it, so the plan shown is the one run."""
    return RunAt(
        endpoint=setup.endpoint, served_model=served, tokenizer=setup.tokenizer,
        input_tokens=setup.input_tokens, output_tokens=setup.output_tokens,
        concurrency=concurrency, requests=setup.requests_at(concurrency), seconds=seconds,
        request_timeout=setup.request_timeout, out=out, client=setup.client,
    )  # fmt: skip


def planned_commands(setup: Setup, served: str, folder: str) -> list[list[str]]:
    """AIPerf's command line at each concurrency of the sweep, as run_sweep runs it (the whole
    sweep's time given to each; `folder` standing for its temporary folder)."""
    planned = []
    for concurrency in setup.concurrencies:
        out = Path(folder) / f"concurrency_{concurrency}"
        planned.append(
            [TOOL, *aiperf_options(**run_at(setup, served, concurrency, setup.seconds, out))]
        )
    return planned


def _checked(setup: Setup, run: Run, served: str, concurrency: int, roof: Roof) -> MeasuredPoint:
    """The run's point, or a ChipcostError: no report, a report cut short by --max-seconds or
    failing its checks (chipcost.transform.measured), or a point above the roofline."""
    shown = setup.endpoint.url
    if run.tokenizer_error:
        raise ChipcostError(
            f"{COMMAND_LINE.said('tokenizer', setup.tokenizer)}: AIPerf could not load it "
            f"({run.tokenizer_error}); nothing recorded. Give the served model's tokenizer: a "
            "folder holding tokenizer.json, or a hub name"
        )
    if run.summary is None:
        reason = failure_of(run.records, run.last_line)
        raise ChipcostError(
            f"endpoint {shown} {reason} (model {served}, concurrency {concurrency}): "
            "nothing recorded"
        )
    asked = setup.requests_at(concurrency)
    point = point_of(
        run.summary, concurrency, shown, setup.output_tokens, setup.client.range_ratio or 1.0
    )
    if point.requests < asked:
        raise ChipcostError(
            f"concurrency {concurrency} was cut short by "
            f"{COMMAND_LINE.said('max_seconds', f'{setup.seconds:g}')}: "
            f"{point.requests} of its {asked} requests answered, so it is no measurement of "
            "the point; nothing recorded. Give more time, fewer requests or fewer concurrencies"
        )
    beyond = above_roof(point, setup.chips, roof, setup.chip, setup.precision)
    if beyond and not setup.allow_above_roofline:
        raise ChipcostError(
            f"nothing recorded: {beyond}. Check {COMMAND_LINE.name('chip')}, "
            f"{COMMAND_LINE.name('chips')} and {COMMAND_LINE.name('precision')}; if the server "
            f"decodes speculatively, pass {COMMAND_LINE.name('allow_above_roofline')}"
        )
    return point


def figures_of(
    setup: Setup,
    points: list[tuple[MeasuredPoint, Run]],
    refs: list[str],
    served: tuple[str, str | None] = ("", None),
) -> list[Figure]:
    """One measured figure per point, its point and provenance on it: `served` is the model's
    name on the endpoint and the one its answers gave (None: they gave none), said in the
    notes."""
    today = datetime.now(UTC).date().isoformat()
    system = f"{setup.chips} x {setup.chip}" + (f" (on {setup.instance})" if setup.instance else "")
    by = _served_words(*served)
    made = []
    for (point, _), ref in zip(points, refs, strict=True):
        tool = point.tool_version
        shape = f"ISL/OSL {setup.input_tokens}/{setup.output_tokens}"
        notes = (
            f"Measured with AIPerf {tool} against {setup.endpoint.url} ({point.requests} "
            "requests, streamed; output tokens the lower of the server's usage and the streamed "
            f"text's count by the model's tokenizer: {point.output_tokens:,.0f} per request on "
            "average)."
            + (f" Point matched to {setup.baseline.named}." if setup.baseline else "")
            + by
        )
        row = {
            "chip": setup.chip,
            "model": setup.asked_model or setup.model,
            "workload": "inference",
            "tokens_per_second": f"{point.output_tokens_per_second!r}",
            "per": "instance",
            "chips": str(setup.chips),
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
            figure_from_row(
                row, chips=canonical_chips(), origin="user", throughput_id="new",
                equivalents=model_equivalents(),
            )
        )  # fmt: skip
    return made


def _served_words(name: str, answered: str | None) -> str:
    """' Served as 'llama-3-70b'.' for a figure's notes; the name the answers gave too when
    another ('llama-3-70b-0528')."""
    if not name:
        return ""
    other = f", its answers naming {answered!r}" if answered not in (None, name) else ""
    return f" Served as {name!r}{other}."


def archive_reports(
    settings: Settings, setup: Setup, points: list[tuple[MeasuredPoint, Run]]
) -> list[str]:
    """Each point's AIPerf summary archived as a payload under a folder of this measurement's
    own; their refs (<stamp>[-N]/aiperf/NNNN.json.gz)."""
    folder = f"{settings.archive_root}/{ARCHIVE_FOLDER}"
    writer = ArchiveWriter(folder, claim_folder(folder, run_stamp(datetime.now(UTC))), TOOL)
    refs = []
    for point, run in points:
        payload = writer.write(
            run.summary or b"",
            f"{setup.endpoint.url} (concurrency {point.concurrency})",
            request={"command": run.command},
        )
        refs.append(payload.ref)
    return refs


def claim_folder(folder: str, stamp: str) -> str:
    """A folder name under `folder` no other measurement has: the run stamp, else the stamp
    with -2, -3, ... (two measurements in one second). Made at once on a local disk, so two
    processes cannot both take one name; on an object store, the first name not yet there."""
    root = location(folder)
    remote = "://" in folder
    if not remote:
        root.mkdir(parents=True, exist_ok=True)
    for n in range(1, MAX_SAME_SECOND + 1):
        name = stamp if n == 1 else f"{stamp}-{n}"
        if remote:
            if not (root / name).exists():
                return name
            continue
        try:
            (root / name).mkdir()
            return name
        except FileExistsError:
            continue
    raise ChipcostError(
        f"{folder}: {MAX_SAME_SECOND} measurements already archived in the second {stamp}; "
        "run again"
    )


def measure(settings: Settings, setup: Setup, roof: Roof) -> list[Figure]:
    """Measure every concurrency (all checked first) and return the figures to store; the
    reports are archived. `roof` is roof_of's, read before: no warehouse is held while the
    load runs."""
    served = check_endpoint(setup)
    tool_command()
    answered = check_answers(setup, served)
    points = run_sweep(setup, served, roof)
    # every figure through the gate (chipcost.transform.figure_bounds) before any report is
    # archived: a point the gate refuses leaves nothing behind
    figures_of(setup, points, ["not archived yet"] * len(points), (served, answered))
    refs = archive_reports(settings, setup, points)
    return figures_of(setup, points, refs, (served, answered))
