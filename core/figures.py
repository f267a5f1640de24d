"""Throughput figures: one row of the `throughput` table, and a derivation rule."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, fields
from operator import attrgetter

from chipcost.core.errors import UsageError
from chipcost.core.questions import COMMAND_LINE

WORKLOADS = ("training", "inference")
# The choice rule, best first: your own measurement, then a peer-reviewed benchmark result
# (MLPerf: submitted by vendors, but run to published rules and reviewed by the other
# submitters), then an independent measurement, then what a vendor claims, then an author's
# estimate, and last chipcost's own derivation.
KINDS = ("measured", "benchmark", "independent", "vendor-claim", "estimate", "derived")
# The choice rule's classes of figure, best first: your own measurement; a published one
# (MLPerf's, an independent benchmark's, a vendor's: among them the best throughput wins, the
# chip's frontier); an author's estimate; chipcost's derivation. Dates break ties only.
KIND_CLASSES = {
    "measured": 0, "benchmark": 1, "independent": 1, "vendor-claim": 1, "estimate": 2,
    "derived": 3,
}  # fmt: skip
# Where a figure was measured: at the largest batch the system takes (MLPerf Offline), under a
# per-user speed or latency bound (MLPerf Server and Interactive), at a stated batch with no
# per-user speed given, in training, or not said by the document (an author's estimate).
OPERATING_POINTS = ("max-throughput", "latency-bound", "fixed-batch", "training", "unstated")
ORIGINS = ("reference", "derived", "user")
# How a serving replica was deployed: on one node, or disaggregated (prefill and decode on
# separate workers, InferenceX's multi-node runs); '+mtp' where speculative decoding (MTP, a
# draft model) served it. Figures of different classes are not set against each other.
DEPLOYMENTS = ("single-node", "single-node+mtp", "disaggregated", "disaggregated+mtp")
# The speed a cost per token is asked at (`chipcost cost --speed`): tokens/s per user the
# figure must reach, or 'max' for the maximum-throughput point. The default is MLPerf Llama 2
# 70B Server's bound (99th percentile time per output token within 200 ms): every chip MLPerf
# measured has a figure there, and it is the point a throughput-oriented service runs at.
NAMED_SPEEDS = {"server": 5.0, "interactive": 25.0}  # Llama 2 70B's, for a model of no bound
DEFAULT_SPEED = f"{NAMED_SPEEDS['server']:g}"  # as the warehouse takes it: '5'
MAX_SPEED = 100_000.0  # tokens/s per user: above it no speed any figure could be read at
SPEED_EXAMPLES = (
    "max, server or interactive (MLPerf's bounds for the model: 5 and 25 tokens/s per user for "
    "Llama 2 70B) or a number such as 25"
)
# MLPerf Inference's bounds by model, scenario: (time to first token, time per output token),
# ms, 99th percentiles, as the catalogue's MLPerf rows quote each run's ttft_latency and
# tpot_latency (core/data/throughput/mlperf-inference*.csv). The key is the model whose
# figures stand for the benchmark's: llama-3-70b for Llama 2 70B, llama-3-8b for Llama 3.1 8B.
# A named speed is the model's own (`--speed interactive` for Llama 3.1 405B: 1000 / 80 ms,
# 12.5 tokens/s per user); a model MLPerf does not run takes Llama 2 70B's.
MLPERF_BOUNDS: dict[str, tuple[str, dict[str, tuple[float, float]]]] = {
    "llama-3-70b": ("Llama 2 70B", {"server": (2000, 200), "interactive": (450, 40)}),
    "llama-3-8b": ("Llama 3.1 8B", {"server": (2000, 100), "interactive": (500, 30)}),
    "llama-3.1-405b": ("Llama 3.1 405B", {"server": (6000, 175), "interactive": (4500, 80)}),
    "deepseek-r1": ("DeepSeek-R1", {"server": (2000, 80)}),
}


def _named(name: str, model: str | None) -> tuple[str, str, float] | None:
    """(benchmark model, scenario, tokens/s per user) of a named speed for `model`."""
    bench, scenarios = MLPERF_BOUNDS.get(model or "", MLPERF_BOUNDS["llama-3-70b"])
    if name not in scenarios:
        bench, scenarios = MLPERF_BOUNDS["llama-3-70b"]
    return bench, name, _per_user(scenarios[name][1])


def named_speeds(model: str) -> set[float]:
    """The model's own named speeds (MLPERF_BOUNDS): the roofline derives a figure at each, so
    a named speed is read at itself, not at the next speed of its grid."""
    _, scenarios = MLPERF_BOUNDS.get(model, ("", {}))
    return {_per_user(tpot) for _, tpot in scenarios.values()}


def _per_user(tpot_ms: float) -> float:
    """Tokens/s per user at a time per output token, to the hundredth (1000 / 30 ms: 33.33)."""
    return round(1000 / tpot_ms, 2)


# A speed as a number, or as outputs say it (speed_label): '25 tok/s', '25 tokens/s per user',
# 'at 25 or more tokens/s per user'.
_SPEED_SAID = re.compile(
    r"(?:at\s+)?(?P<number>[^\s/]+?)\s*(?:or more\s*)?"
    r"(?:tok(?:en)?s?\s*/\s*s(?:ec)?(?:\s*(?:per\s+|/\s*)user)?)?"
)


def said_speed(value: object) -> str:
    """A speed as outputs say it, without its words: a header's ('5 or more tokens/s per user
    (MLPerf Server bound ...)', 'at maximum throughput (MLPerf Offline, ...)'), a figure's
    ('25 tok/s'), `throughput list`'s point column ('@7.2/u', '@max') -> '5', 'maximum
    throughput', '25', '7.2', 'max'; a name ('server') as it is."""
    text = re.sub(r"\s*\(.*\)$", "", str(value).strip().lower()).removeprefix("at ")
    text = re.sub(r"^@\s*|\s*/\s*u$", "", text)
    said = _SPEED_SAID.fullmatch(text)
    return said["number"] if said else text


class SpeedOutOfBounds(UsageError):
    """A speed given as a number no user is served at (0, negative, 100,000 and more)."""


def speed_value(
    value: object, option: str = COMMAND_LINE.name("speed"), model: str | None = None
) -> str:
    """The asked speed as the warehouse takes it: 'max' or tokens/s per user as text ('25').
    None is the default (MLPerf Llama 2 70B Server's bound); 'server' and 'interactive' are
    the bounds of `model` (the model its figures are kept under), MLPERF_BOUNDS."""
    from chipcost.core.errors import UsageError

    if value is None:
        return DEFAULT_SPEED
    text = said_speed(value)
    if text in ("max", "maximum throughput"):
        return "max"
    if text in NAMED_SPEEDS:
        return f"{_named(text, model)[2]:g}"
    try:
        number = float(text)
    except ValueError:
        number = float("nan")
    if math.isnan(number) or isinstance(value, bool):
        raise UsageError(f"{option} {value!r}: give {SPEED_EXAMPLES}")
    if not 0 < number < MAX_SPEED:
        # a number, but no speed a user is served at: say which bound it is outside
        raise SpeedOutOfBounds(
            f"{option} {value!r}: a speed is tokens/s per user, above 0 and below {MAX_SPEED:,.0f}"
        )
    return f"{number:g}"


# A request shape as asked (`--shape`): input/output tokens, "k" a thousand and twenty-four
# as InferenceX names its shapes (1k/1k is 1,024 in and 1,024 out). A figure answers it when
# both its lengths are within SHAPE_TOLERANCE of the asked ones (1,000/1,000 answers 1k/1k).
SHAPE_TOLERANCE = 1.1
SHAPE_EXAMPLES = "input/output tokens such as 1k/1k, 8k/1k or 1024/8192"
# A length as asked (1k, 1024) or as outputs print it (1,024: a comma only between groups of
# three digits); a shape as headers print it too ('1,024 in / 1,024 out tokens', point_label).
_LENGTH = r"\d{1,3}(?:,\d{3})+|\d+(?:\.\d+)?"
_SHAPE = re.compile(
    rf"(?P<input>{_LENGTH})(?P<ik>k?)(?:\s*in)?\s*/\s*(?P<output>{_LENGTH})(?P<ok>k?)"
    r"(?:\s*out)?(?:\s*tokens)?"
)


def shape_value(value: object, option: str = COMMAND_LINE.name("shape")) -> tuple[int, int] | None:
    """The asked request shape as (input, output) tokens ('1k/1k' -> (1024, 1024)), or None
    where none is asked (every shape answers); as headers print it too ('1,024 in / 1,024 out
    tokens', point_label, and '1,024/1,024')."""
    from chipcost.core.errors import UsageError

    if value is None:
        return None
    text = str(value).strip().lower().removeprefix(",").strip()  # point_label's ', 1,024 in ...'
    said = _SHAPE.fullmatch(text.removeprefix("at ")) if not isinstance(value, bool) else None
    lengths = []
    for number, k in ((said["input"], said["ik"]), (said["output"], said["ok"])) if said else ():
        lengths.append(round(float(number.replace(",", "")) * (1024 if k else 1)))
    if len(lengths) != 2 or not all(1 <= n <= 10_000_000 for n in lengths):
        raise UsageError(f"{option} {value!r}: give {SHAPE_EXAMPLES}")
    return lengths[0], lengths[1]


def point_label(shape: object, precision: object) -> str:
    """', 1,024 in / 1,024 out tokens, FP8' for the request shape and precision class asked
    (a header's words after the speed), '' where neither is."""
    said = ""
    if isinstance(shape, tuple | list) and len(shape) == 2:
        said += f", {shape[0]:,} in / {shape[1]:,} out tokens"
    if precision:
        said += f", {precision}"
    return said


# The time-to-first-token bound a figure must meet to answer a speed, where the user sets
# none (`--ttft`): by the request shape's input tokens, MLPerf's own Server bounds: 2 s for
# Llama 2 70B and Llama 3.1 8B (prompts up to about 2,000 tokens), 6 s for Llama 3.1 405B
# (prompts of thousands of tokens). warehouse/views/35_throughput_ranked.sql applies it.
DEFAULT_TTFT_NOTE = "2 s for prompts up to 2,048 tokens, 6 s beyond"


# A time to first token as asked or as outputs print it: '2s', '500 ms', '1.5' (seconds),
# 'first token within 2 s' (a header's words), '2,000 ms (--ttft)' (a note's).
_TTFT_SAID = re.compile(
    r"(?:first token )?(?:within )?(?P<number>\d{1,3}(?:,\d{3})+(?:\.\d+)?|\d*\.?\d+)"
    r"\s*(?P<unit>ms|s)?"
)
# A number without a unit is seconds up to this many: a larger one (2000) is milliseconds
# typed without their unit far more often than a wait of half an hour, and is not guessed.
BARE_TTFT_SECONDS = 60


def ttft_value(value: object, option: str = COMMAND_LINE.name("ttft")) -> float | None:
    """The asked time-to-first-token bound in milliseconds ('2s', '500ms', '1.5' seconds, and
    as outputs print it: 'first token within 2 s', '2,000 ms'), or None for the default per
    request shape."""
    from chipcost.core.errors import UsageError

    if value is None:
        return None
    text = re.sub(r"\s*\(.*\)$", "", str(value).strip().lower())
    said = _TTFT_SAID.fullmatch(text) if not isinstance(value, bool) else None
    number = float(said["number"].replace(",", "")) if said else float("nan")
    unit = said["unit"] if said else None
    if said and unit is None and number > BARE_TTFT_SECONDS:
        raise UsageError(
            f"{option} {value!r}: a number without a unit is seconds, and "
            f"{number:,g} s is no first-token bound; give {said['number']}ms for milliseconds "
            f"(or {said['number']}s)"
        )
    number *= 1.0 if unit == "ms" else 1000.0
    if not (1 <= number <= 3_600_000):
        raise UsageError(
            f"{option} {value!r}: give a time to first token such as 2s, 500ms or 1.5 (seconds), "
            "from 1 ms to an hour"
        )
    return number


def ttft_words(ms: float) -> str:
    """A time-to-first-token bound as outputs say it, and ttft_value takes back: '2 s',
    '1.5 s', '500 ms', '2,000 s'."""
    return f"{ms / 1000:,g} s" if ms >= 1000 else f"{ms:,g} ms"


def speed_label(speed: str, model: str | None = None) -> str:
    """How outputs name the asked speed: 'at maximum throughput (...)', 'at 25 or more
    tokens/s per user (MLPerf Interactive's 40 ms per output token for Llama 2 70B)'. A speed
    that is one of the model's MLPerf bounds is named as such (its time per output token: the
    first-token bound is said apart); the default, Llama 2 70B Server's, is named as the default
    for any other model."""
    if speed == "max":
        return "at maximum throughput (MLPerf Offline, a vendor's maximum-load tables)"
    label = f"at {speed} or more tokens/s per user"
    bench, scenarios = MLPERF_BOUNDS.get(model or "", MLPERF_BOUNDS["llama-3-70b"])
    for scenario, (_, tpot) in scenarios.items():
        if speed == f"{_per_user(tpot):g}":
            return (
                label + f" (MLPerf {scenario.title()}'s {tpot:g} ms per output token for {bench})"
            )
    if speed == DEFAULT_SPEED:  # the model's own bounds are others
        return label + " (the default: MLPerf Server's 200 ms per output token for Llama 2 70B)"
    _, fallback = MLPERF_BOUNDS["llama-3-70b"]
    for scenario, (_, tpot) in fallback.items():
        if scenario not in scenarios and speed == f"{_per_user(tpot):g}":
            # a named speed the model's benchmark has no scenario for: Llama 2 70B's, said so
            return label + (
                f" (MLPerf {scenario.title()}'s {tpot:g} ms per output token for Llama 2 70B: "
                f"MLPerf runs no {scenario.title()} scenario of {bench})"
            )
    return label


@dataclass(frozen=True)
class Figure:
    """One row of the `throughput` table (columns in table order after schema 5)."""

    chip: str
    model: str
    workload: str
    batch_size: int | None
    precision: str | None
    sequence_length: int | None
    tokens_per_second_per_chip: float
    mfu: float | None
    kind: str
    source: str
    notes: str | None
    throughput_id: str
    origin: str
    source_date: str
    stated_as: str
    # The operating point and where the figure was published (schema 60); None where the
    # document does not say, and for derived figures.
    operating_point: str | None = None
    scenario: str | None = None  # the document's own name for the point: Offline, ISL/OSL ...
    tokens_per_second_per_user: float | None = None
    ttft_ms: float | None = None
    tpot_ms: float | None = None
    input_tokens: int | None = None
    output_tokens: int | None = None
    concurrency: int | None = None
    software: str | None = None
    system: str | None = None  # the system measured, with its chip count as published
    published_model: str | None = None  # the model as published, when it stands for another
    source_url: str | None = None
    # The scale (schema 97): chips of the published system or serving replica, or of the
    # whole training run; None where the document does not say.
    chips: int | None = None
    # How the replica was deployed (schema 101): one of DEPLOYMENTS; None where not said.
    deployment: str | None = None

    def values(self) -> list:
        # Every field is a plain value: read in column order, without asdict's deep copy
        # (a seed writes some 7,000 figures).
        return list(_values(self))


COLUMNS = tuple(f.name for f in fields(Figure))
_values = attrgetter(*COLUMNS)


@dataclass(frozen=True)
class Assumption:
    """How chipcost derives a workload's throughput where no figure exists (derivation.csv)."""

    workload: str
    mfu: float
    precision: str  # the peak used: fp8 falls back to bf16 on chips without FP8
    why: str
    not_on: frozenset[str] = frozenset()  # chip families that cannot run the workload at all
