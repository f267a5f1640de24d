"""`chipcost measure`: load your endpoint at a point no one publishes, record what it does."""

from __future__ import annotations

import os
import re
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

from chipcost.cli.options import Db
from chipcost.cli.parser import command
from chipcost.core.errors import UsageError
from chipcost.core.questions import Opt
from chipcost.core.vocabulary import API_KEY_VARIABLE

if TYPE_CHECKING:  # imported when the command runs: `chipcost --help` stays light
    import duckdb

    from chipcost.cli.consoles import Screen
    from chipcost.pipeline.measure import Setup
    from chipcost.pipeline.measure_point import Baseline

# Concurrencies swept when none are given: one user, a few, a busy server's handful.
DEFAULT_CONCURRENCY = "1,4,16"
# The largest concurrency taken: a load test from one machine, not a flood.
MAX_CONCURRENCY = 1024
PRECISIONS = ("fp4", "int4", "fp8", "int8", "bf16", "fp16")
_VARIABLE_NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")


def _concurrencies(text: str) -> list[int]:
    pieces = [v for v in text.replace(" ", "").split(",") if v]
    # ASCII digits only: int() also reads '1_0', '+4', '١٠٢٤' and '１６'
    values = [int(v) for v in pieces] if all(re.fullmatch(r"[0-9]+", v) for v in pieces) else []
    if not values or not all(1 <= v <= MAX_CONCURRENCY for v in values):
        raise UsageError(
            f"--concurrency {text!r}: give concurrencies from 1 to {MAX_CONCURRENCY} by comma, "
            f"e.g. {DEFAULT_CONCURRENCY}"
        )
    return list(dict.fromkeys(values))


def _tokenizer(text: str) -> str:
    """A tokenizer path made absolute (AIPerf runs elsewhere), or a name as given."""
    if not text.strip():  # Path('') is '.', the working directory
        raise UsageError(
            "--tokenizer is empty: give the model's tokenizer, a local folder or file or a hub "
            "name (meta-llama/Llama-3.1-70B-Instruct)"
        )
    path = Path(text).expanduser()
    if path.exists():
        return str(path.resolve())
    if text.startswith((".", "/", "~")) or text.count("/") > 1:
        raise UsageError(f"--tokenizer {text}: no such file or directory")
    return text  # a hub name: AIPerf fetches it (that needs the hub reachable)


def _api_key(variable: str | None) -> str | None:
    """The API key from the environment variable named (default API_KEY_VARIABLE); the name
    is not echoed back, in case a key was given in its place."""
    if variable is not None and not _VARIABLE_NAME.fullmatch(variable):
        raise UsageError(
            f"--api-key takes the name of the environment variable holding the key (default "
            f"{API_KEY_VARIABLE}), not the key: a key on a command line is readable by every "
            "user of the machine"
        )
    key = os.environ.get(variable or API_KEY_VARIABLE, "").strip()
    if variable is not None and not key:
        raise UsageError(
            "--api-key names an environment variable that is not set or is empty: export the "
            f"key in it (e.g. {API_KEY_VARIABLE})"
        )
    return key or None


def _matched_chip(con: duckdb.DuckDBPyConnection, match: str) -> str:
    """The chip --match names; a figure's id (as `throughput list` and the evidence lines
    print it) is refused naming its chip and the options that take its shape."""
    from chipcost.cli.options import resolve_chip
    from chipcost.core.names import shown

    found = con.execute(
        "SELECT chip, input_tokens, output_tokens FROM throughput WHERE throughput_id = ?",
        [match.strip()],
    ).fetchone()
    if found is None:
        return resolve_chip(match, "--match")
    chip, isl, osl = found
    shape = (
        f"--input-tokens {isl} --output-tokens {osl}" if isl and osl else
        "--input-tokens N --output-tokens N"
    )  # fmt: skip
    raise UsageError(
        f"--match {shown(match)} is a figure of {chip}, not a chip: give --match {chip} (its "
        f"figure at the asked --speed), or that figure's shape with {shape}"
    )


def _chips(con: object, instance: str | None, chip: str | None, chips: float | None) -> tuple:
    """(chip, chips serving the endpoint) from the options and the instance type the warehouse
    knows: its chip, and its chip count unless --chips says the replica uses another."""
    from chipcost.cli.options import resolve_chip
    from chipcost.pipeline.measure import instance_chips
    from chipcost.transform.figure_bounds import whole_chips

    known = instance_chips(con, instance) if instance else None  # type: ignore[arg-type]
    name = resolve_chip(chip) if chip else None
    if known and name and name != known[0]:
        raise UsageError(f"--chip {name}: {instance} has {known[0]} chips, not {name}")
    name = name or (known[0] if known else None)
    if name is None and instance:
        raise UsageError(
            f"--instance {instance!r}: chipcost knows no such instance type (`chipcost prices "
            "--instance` lists those it prices); give --chip and --chips"
        )
    if name is None:
        raise UsageError("--chip: name the chip measured (or an --instance chipcost knows)")
    chips = chips if chips is not None else (known[1] if known else None)
    if chips is None:
        raise UsageError(
            f"--chips: say how many chips serve the model{f' on {instance}' if instance else ''} "
            "(an --instance chipcost knows gives its count)"
        )
    return name, whole_chips(chips, "inference", "--chips")


def measure_(
    endpoint: Annotated[
        str, Opt("The OpenAI-compatible server, http://HOST:PORT.", cli_required=True)
    ],
    model: Annotated[
        str, Opt("The model served, as chipcost names it: llama-3-70b.", cli_required=True)
    ],
    tokenizer: Annotated[
        str, Opt("The model's tokenizer: a local folder or file, or a hub name.", cli_required=True)
    ],
    precision: Annotated[
        str, Opt(f"Weights as served: {', '.join(PRECISIONS)}.", cli_required=True)
    ],
    software: Annotated[
        str, Opt("The serving software and version: 'vLLM 0.11.0'.", cli_required=True)
    ],
    chip: Annotated[str | None, Opt("The chip serving it: Trainium2.")] = None,
    instance: Annotated[
        str | None, Opt("The instance type: trn2.48xlarge (gives --chip; --chips unless given).")
    ] = None,
    chips: Annotated[
        float | None, Opt("Chips behind the endpoint: one replica's, the scale compare matches.")
    ] = None,
    served_model: Annotated[
        str | None, Opt("The name the server knows the model by (default: the one it lists).")
    ] = None,
    api_key: Annotated[
        str | None,
        Opt(
            f"The environment variable holding the endpoint's API key (default "
            f"{API_KEY_VARIABLE}, when set); never the key itself."
        ),
    ] = None,
    match: Annotated[
        str | None,
        Opt(
            "Measure at this chip's point: the input and output tokens of the figure cost "
            "uses for it (the shape given, or its nearest public curve's, when it states none)."
        ),
    ] = None,
    speed: Annotated[
        str | None, Opt("With --match: the speed whose figure is matched (as cost --speed).")
    ] = None,
    input_tokens: Annotated[
        int | None, Opt("Prompt tokens per request.", low=1, high=1_000_000)
    ] = None,
    output_tokens: Annotated[
        int | None, Opt("Output tokens per request.", low=1, high=1_000_000)
    ] = None,
    concurrency: Annotated[
        str | None,
        Opt(
            f"Concurrencies to sweep, by comma (default: the matched curve's, else "
            f"{DEFAULT_CONCURRENCY})."
        ),
    ] = None,
    requests: Annotated[
        int | None,
        Opt(
            "Requests per concurrency, at least it (default: the matched client's, else 4 x "
            "it, at least 8).",
            low=1,
            high=100_000,
        ),
    ] = None,
    max_seconds: Annotated[
        int, Opt("Time for the whole sweep, seconds.", low=1, high=86_400)
    ] = 1800,
    request_timeout: Annotated[int, Opt("Seconds one request may take.", low=1, high=86_400)] = 600,
    allow_above_roofline: Annotated[
        bool, Opt("Keep a point above the chip's roofline (speculative decoding).")
    ] = False,
    dry_run: Annotated[
        bool,
        Opt(
            "Show the plan (the point, the client, the sweep, AIPerf's command at each "
            "concurrency); send nothing to the endpoint, record nothing."
        ),
    ] = False,
    db: Db = None,
) -> None:
    """Measure your endpoint's throughput with AIPerf and record each concurrency as your figure."""
    from signal import SIGINT

    from chipcost.cli.commands.throughput import _store, model_named
    from chipcost.cli.consoles import err, out
    from chipcost.cli.failures import interrupted
    from chipcost.core.figures import speed_value
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.endpoint import endpoint_of
    from chipcost.pipeline.measure import ARCHIVE_FOLDER, Setup, roof_of
    from chipcost.pipeline.measure import measure as run_measure
    from chipcost.pipeline.measure_point import matched_point
    from chipcost.transform.references import model_standing, repo_id_refused
    from chipcost.transform.throughput_figures import MAX_LABEL, normalise_model
    from chipcost.warehouse.reader import read_connection

    if precision.lower() not in PRECISIONS:
        raise UsageError(f"--precision {precision!r}: give one of {', '.join(PRECISIONS)}")
    if not software.strip():  # what tells two figures' serving apart (compare names it)
        raise UsageError(
            "--software is empty: give the serving software and version, 'vLLM 0.11.0'"
        )
    if not software.isprintable() or len(software) > MAX_LABEL:  # before the sweep, not after
        raise UsageError(
            f"--software: give the serving software and version on one line, at most {MAX_LABEL} "
            "characters ('vLLM 0.11.0')"
        )
    if not model.strip():
        raise UsageError(
            "--model is empty: give the model served, as chipcost names it (llama-3-70b)"
        )
    if served_model is not None and not served_model.strip():  # else read as not given
        raise UsageError(
            "--served-model is empty: give the name the server knows the model by, or leave "
            "the option out for the one it lists"
        )
    tokenizer = _tokenizer(tokenizer)
    given = (input_tokens, output_tokens) if input_tokens and output_tokens else None
    if bool(input_tokens) != bool(output_tokens):
        raise UsageError("give --input-tokens and --output-tokens together")
    if not match and not given:
        raise UsageError(
            "give the point: --match CHIP (its figure's tokens), or --input-tokens and "
            "--output-tokens"
        )
    if speed is not None and not match:
        raise UsageError("--speed goes with --match")
    target = endpoint_of(endpoint, _api_key(api_key))
    settings = load_settings(db=db)
    if refused := repo_id_refused(model):  # the id the server serves goes in --served-model
        raise UsageError(f"--{refused} (the id the server serves goes in --served-model)")
    name, why = model_standing(model)  # llama-3.3-70b is recorded as llama-3-70b, saying so
    con = read_connection(settings)
    try:
        chip_name, count = _chips(con, instance, chip, chips)
        baseline = None
        if match:
            baseline = matched_point(
                con, _matched_chip(con, match), name, speed_value(speed, model=name), given
            )
            given = (baseline.input_tokens, baseline.output_tokens)
        sweep = concurrency or (
            ",".join(map(str, baseline.concurrencies))
            if baseline and baseline.concurrencies
            else DEFAULT_CONCURRENCY
        )
        if baseline and baseline.concurrencies and _concurrencies(sweep) == [1]:
            raise UsageError(_single_stream(baseline, given_sweep=bool(concurrency)))
        setup = Setup(
            chip=chip_name, model=name, asked_model=normalise_model(model) if why else None,
            chips=count, instance=instance, precision=precision.lower(),
            software=software, endpoint=target, served_model=served_model,
            tokenizer=tokenizer, input_tokens=given[0], output_tokens=given[1],
            concurrencies=_concurrencies(sweep), requests=requests, seconds=float(max_seconds),
            request_timeout=float(request_timeout), allow_above_roofline=allow_above_roofline,
            baseline=baseline,
        )  # fmt: skip
        roof = roof_of(con, setup)
    finally:
        con.close()
    if dry_run:
        _show_plan(out, setup, bool(concurrency), bool(requests))
        return
    _say_point(err, setup, bool(concurrency), bool(requests))
    try:
        made = run_measure(settings, setup, roof)
    except KeyboardInterrupt as exc:  # Ctrl-C, or any stop signal (Signalled)
        # AIPerf's group was ended and its files removed on the way here
        interrupted("AIPerf's run ended; nothing recorded", getattr(exc, "signum", SIGINT))
    # a point's own report: no repeat; the model as given, never a sweep's run refused after it
    stored, _, _ = _store(db, made, allow_above_roofline, new_model=True)
    ids = list(stored)
    for ident, figure in zip(ids, made, strict=True):
        user = figure.tokens_per_second_per_user or 0.0
        # throughput_ranked reads the run's points as one curve: a point answers any asked
        # speed up to its own, and speeds between two points are read between them
        out.say(
            f"recorded {ident}: {figure.chip} {model_named(figure)} at concurrency "
            f"{figure.concurrency}, "
            f"{figure.tokens_per_second_per_chip:,.4g} tokens/s per chip, {user:,.3g} tokens/s "
            f"per user (measured; one point of this run's curve, which cost and compare read at "
            f"--speed up to {user:,.3g} within the first-token bound)",
        )
    against = match or "CHIP"
    out.say(
        f"reports archived under {settings.archive_root}/{ARCHIVE_FOLDER}/; "
        f"`chipcost compare {setup.chip} {against} --model {setup.model} --workload inference "
        f"--speed N` answers from these; `chipcost throughput remove ID` takes one out",
    )


def _single_stream(baseline: Baseline, *, given_sweep: bool) -> str:
    """Why a plan of concurrency 1 alone is refused where a curve's client is rerun."""
    if given_sweep:
        sweep = ",".join(map(str, baseline.concurrencies))
        return (
            f"--concurrency 1: a single stream answers no load question, so it measures no point "
            f"of {baseline.named}: give its sweep, --concurrency {sweep}, or leave the option out"
        )
    return (
        f"--match: {baseline.named} was swept at concurrency 1 alone, a single stream, which "
        "answers no load question: give --concurrency with concurrencies above 1"
    )


def _sweep_words(setup: Setup, given_sweep: bool, given_requests: bool) -> str:
    """'concurrency 4, 8 (the curve's sweep), requests 40, 80 (10 prompts per concurrent user)'."""
    baseline = setup.baseline
    own = baseline.concurrencies if baseline else ()
    if given_sweep:
        whose = f"given; the curve's: {', '.join(map(str, own))}" if own else "given"
    else:
        whose = "the curve's sweep" if own else f"the default, {DEFAULT_CONCURRENCY}"
    prompts = baseline.prompts_per_user if baseline else None
    if given_requests:
        per = "--requests, at least the concurrency"
    elif prompts:
        per = f"{prompts} prompts per concurrent user"
    else:
        per = "4 x the concurrency, at least 8"
    counts = ", ".join(f"{setup.requests_at(c):,}" for c in setup.concurrencies)
    sweep = ", ".join(map(str, setup.concurrencies))
    return f"concurrency {sweep} ({whose}), requests {counts} ({per})"


def _client_words(setup: Setup) -> str:
    """How AIPerf sends the prompts: the lengths and the end-of-sequence token."""
    client = setup.client
    isl, osl = setup.input_tokens, setup.output_tokens
    if client.range_ratio is None:
        return (
            f"fixed lengths, {isl} input and {osl} output tokens a request, the end-of-sequence "
            "token ignored"
        )
    share = f"{client.range_ratio * 100:g}-100%"
    return (
        f"{client.named or 'a client drawing its lengths'}: input lengths drawn from "
        f"{client.shortest(isl)}-{isl} tokens and output lengths from {client.shortest(osl)}-{osl} "
        f"({share} of the shape), the end-of-sequence token ignored"
    )


def _say_point(err: Screen, setup: Setup, given_sweep: bool, given_requests: bool) -> None:
    """What is about to be measured, and how the point was chosen when --match had to."""
    baseline = setup.baseline
    if baseline and baseline.taken:
        err.say(f"--match: {baseline.taken}")
    named = f" ({baseline.named})" if baseline else ""
    err.say(
        f"measuring {setup.endpoint.url} at ISL/OSL {setup.input_tokens}/{setup.output_tokens}"
        f"{named}, {_sweep_words(setup, given_sweep, given_requests)}; "
        f"{_client_words(setup)} (AIPerf; each concurrency takes half a minute or more)",
        indent="  ",
    )


# What stands for the served model in the plan when --served-model is not given: the endpoint
# is asked for it only when the measurement runs.
SERVED_PLACEHOLDER = "SERVED_MODEL"


def _show_plan(out: Screen, setup: Setup, given_sweep: bool, given_requests: bool) -> None:
    """measure --dry-run: the point, the client, the sweep and AIPerf's command line at each
    concurrency, as the measurement would run them; nothing sent, nothing recorded."""
    import shlex

    from chipcost.pipeline.measure import planned_commands

    baseline = setup.baseline
    out.say(f"plan for {setup.endpoint.url} (--dry-run: nothing sent to it, nothing recorded)")
    if baseline and baseline.taken:
        out.say(f"--match: {baseline.taken}", indent="  ")
    named = f" of {baseline.named}" if baseline else ""
    out.say(f"point: ISL/OSL {setup.input_tokens}/{setup.output_tokens}{named}", indent="  ")
    out.say(f"client: {_client_words(setup)}", indent="  ")
    out.say(f"sweep: {_sweep_words(setup, given_sweep, given_requests)}", indent="  ")
    served = setup.served_model or SERVED_PLACEHOLDER
    if not setup.served_model:
        out.say(
            f"{SERVED_PLACEHOLDER}: the model the endpoint lists, asked when the measurement "
            "runs (or give --served-model)",
            indent="  ",
        )
    # AIPerf's files go to a temporary folder of the run's own, removed when it ends
    planned = planned_commands(setup, served, "TEMPORARY_FOLDER")
    for concurrency, line in zip(setup.concurrencies, planned, strict=True):
        out.say(f"AIPerf at concurrency {concurrency}:")
        out.command("  ", shlex.join(line))


measure = command(measure_)
