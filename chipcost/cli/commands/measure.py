"""`chipcost measure`: load your endpoint at a point no one publishes, record what it does."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

from chipcost.cli.options import Db
from chipcost.cli.parser import command
from chipcost.core.errors import UsageError
from chipcost.core.questions import Opt

# Concurrencies swept when none are given: one user, a few, a busy server's handful.
DEFAULT_CONCURRENCY = "1,4,16"
# The largest concurrency taken: a load test from one machine, not a flood.
MAX_CONCURRENCY = 1024
PRECISIONS = ("fp4", "int4", "fp8", "int8", "bf16", "fp16")


def _concurrencies(text: str) -> list[int]:
    try:
        values = [int(v) for v in text.replace(" ", "").split(",") if v]
    except ValueError:
        values = []
    if not values or not all(1 <= v <= MAX_CONCURRENCY for v in values):
        raise UsageError(
            f"--concurrency {text!r}: give concurrencies from 1 to {MAX_CONCURRENCY} by comma, "
            f"e.g. {DEFAULT_CONCURRENCY}"
        )
    return list(dict.fromkeys(values))


def _tokenizer(text: str) -> str:
    """A tokenizer path made absolute (AIPerf runs elsewhere), or a name as given."""
    path = Path(text).expanduser()
    if path.exists():
        return str(path.resolve())
    if text.startswith((".", "/", "~")) or text.count("/") > 1:
        raise UsageError(f"--tokenizer {text}: no such file or directory")
    return text  # a hub name: AIPerf fetches it (that needs the hub reachable)


def _chips(con: object, instance: str | None, chip: str | None, chips: float | None) -> tuple:
    """(chip, chips serving the endpoint) from the options and the instance type the warehouse
    knows: its chip, and its chip count unless --chips says the replica uses another."""
    from chipcost.cli.reads import resolve_chip
    from chipcost.pipeline.measure import instance_chips

    known = instance_chips(con, instance) if instance else None  # type: ignore[arg-type]
    name = resolve_chip(chip) if chip else None
    if known and name and name != known[0]:
        raise UsageError(f"--chip {name}: {instance} has {known[0]} chips, not {name}")
    name = name or (known[0] if known else None)
    if name is None:
        raise UsageError("--chip: name the chip measured (or an --instance chipcost knows)")
    chips = chips if chips is not None else (known[1] if known else None)
    if chips is None:
        raise UsageError(
            f"--chips: say how many chips serve the model{f' on {instance}' if instance else ''} "
            "(an --instance chipcost knows gives its count)"
        )
    if not 1 <= chips <= 16_384:
        raise UsageError(f"--chips {chips:g}: give 1 to 16,384 chips")
    return name, chips


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
    match: Annotated[
        str | None,
        Opt(
            "Measure at this chip's point: the input and output tokens of the figure cost "
            "uses for it."
        ),
    ] = None,
    speed: Annotated[
        str | None, Opt("With --match: the speed whose figure is matched (as cost --speed).")
    ] = None,
    input_tokens: Annotated[
        int | None, Opt("Prompt tokens per request (without --match).", low=1, high=1_000_000)
    ] = None,
    output_tokens: Annotated[
        int | None, Opt("Output tokens per request (without --match).", low=1, high=1_000_000)
    ] = None,
    concurrency: Annotated[
        str, Opt(f"Concurrencies to sweep, by comma (default {DEFAULT_CONCURRENCY}).")
    ] = DEFAULT_CONCURRENCY,
    requests: Annotated[
        int | None,
        Opt(
            "Requests per concurrency, at least it (default 4 x it, at least 8).",
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
    db: Db = None,
) -> None:
    """Measure your endpoint's throughput with AIPerf and record each concurrency as your figure."""
    from chipcost.cli.commands.throughput import _store
    from chipcost.cli.consoles import err, out
    from chipcost.core.figures import speed_value
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.measure import ARCHIVE_FOLDER, Setup, matched_point, roof_of
    from chipcost.pipeline.measure import measure as run_measure
    from chipcost.transform.throughput_figures import normalise_model
    from chipcost.warehouse.reader import read_connection

    if precision.lower() not in PRECISIONS:
        raise UsageError(f"--precision {precision!r}: give one of {', '.join(PRECISIONS)}")
    if match and (input_tokens or output_tokens):
        raise UsageError(
            "--match takes the tokens of the matched figure: leave out --input-tokens and "
            "--output-tokens"
        )
    if not match and not (input_tokens and output_tokens):
        raise UsageError(
            "give the point: --match CHIP (its figure's tokens), or --input-tokens and "
            "--output-tokens"
        )
    if speed is not None and not match:
        raise UsageError("--speed goes with --match")
    settings = load_settings(db=db)
    name = normalise_model(model)
    con = read_connection(settings)
    try:
        chip_name, count = _chips(con, instance, chip, chips)
        baseline = ""
        if match:
            from chipcost.cli.reads import resolve_chip

            input_tokens, output_tokens, baseline = matched_point(
                con, resolve_chip(match), name, speed_value(speed)
            )
        setup = Setup(
            chip=chip_name, model=name, chips=count, instance=instance, precision=precision.lower(),
            software=software, endpoint=endpoint, served_model=served_model,
            tokenizer=_tokenizer(tokenizer), input_tokens=int(input_tokens or 0),
            output_tokens=int(output_tokens or 0), concurrencies=_concurrencies(concurrency),
            requests=requests, seconds=float(max_seconds), request_timeout=float(request_timeout),
            allow_above_roofline=allow_above_roofline, baseline=baseline,
        )  # fmt: skip
        roof = roof_of(con, setup)
    finally:
        con.close()
    sweep = ", ".join(map(str, setup.concurrencies))
    err.say(
        f"measuring {setup.endpoint} at ISL/OSL {setup.input_tokens}/{setup.output_tokens}"
        f"{f' ({baseline})' if baseline else ''}, concurrency {sweep}"
        " (AIPerf; each concurrency takes half a minute or more)",
    )
    made = run_measure(settings, setup, roof)
    ids, _ = _store(db, made, allow_above_roofline)
    for ident, figure in zip(ids, made, strict=True):
        user = figure.tokens_per_second_per_user or 0.0
        # throughput_ranked takes a measured figure at an asked speed from half its per-user
        # speed up to that speed
        out.say(
            f"recorded {ident}: {figure.chip} {figure.model} at concurrency {figure.concurrency}, "
            f"{figure.tokens_per_second_per_chip:,.4g} tokens/s per chip, {user:,.3g} tokens/s "
            f"per user (measured; cost and compare take it at --speed {user / 2:,.3g} to "
            f"{user:,.3g})",
        )
    against = match or "CHIP"
    out.say(
        f"reports archived under {settings.archive_root}/{ARCHIVE_FOLDER}/; "
        f"`chipcost compare {setup.chip} {against} --model {setup.model} --workload inference "
        f"--speed N` answers from these; `chipcost throughput remove ID` takes one out",
    )


measure = command(measure_)
