"""Throughput figures: one row of the `throughput` table, and a derivation rule."""

from __future__ import annotations

import re
from dataclasses import dataclass, fields
from operator import attrgetter

from chipcost.core.questions import COMMAND_LINE

WORKLOADS = ("training", "inference")
# The choice rule, best first: your own measurement, then a peer-reviewed benchmark result
# (MLPerf: submitted by vendors, but run to published rules and reviewed by the other
# submitters), then an independent measurement, then what a vendor claims, then an author's
# estimate, and last chipcost's own derivation.
KINDS = ("measured", "benchmark", "independent", "vendor-claim", "estimate", "derived")
# Where a figure was measured: at the largest batch the system takes (MLPerf Offline), under a
# per-user speed or latency bound (MLPerf Server and Interactive), at a stated batch with no
# per-user speed given, in training, or not said by the document (an author's estimate).
OPERATING_POINTS = ("max-throughput", "latency-bound", "fixed-batch", "training", "unstated")
ORIGINS = ("reference", "derived", "user")
# The speed a cost per token is asked at (`chipcost cost --speed`): tokens/s per user the
# figure must reach, or 'max' for the maximum-throughput point. Named speeds are MLPerf's
# bounds for Llama 2 70B (99th percentile time per output token within 200 ms for Server,
# 40 ms for Interactive). The default is Server's: every chip MLPerf measured has a figure
# there, and it is the point a throughput-oriented service runs at.
NAMED_SPEEDS = {"server": 5.0, "interactive": 25.0}
DEFAULT_SPEED = f"{NAMED_SPEEDS['server']:g}"  # as the warehouse takes it: '5'
SPEED_EXAMPLES = "max, server (5 tokens/s per user), interactive (25) or a number such as 25"


# A speed as a number, or as outputs say it (speed_label): '25 tok/s', '25 tokens/s per user',
# 'at 25 or more tokens/s per user'.
_SPEED_SAID = re.compile(
    r"(?:at\s+)?(?P<number>[^\s/]+?)\s*(?:or more\s*)?"
    r"(?:tok(?:en)?s?\s*/\s*s(?:ec)?(?:\s*(?:per\s+|/\s*)user)?)?"
)


def speed_value(value: object, option: str = COMMAND_LINE.name("speed")) -> str:
    """The asked speed as the warehouse takes it: 'max' or tokens/s per user as text ('25').
    None is the default (MLPerf Server's bound)."""
    from chipcost.core.errors import UsageError

    if value is None:
        return DEFAULT_SPEED
    # a header's whole words: '5 or more tokens/s per user (MLPerf Server bound ...)',
    # 'at maximum throughput (MLPerf Offline, ...)'
    text = re.sub(r"\s*\(.*\)$", "", str(value).strip().lower()).removeprefix("at ")
    if text in ("max", "maximum throughput"):
        return "max"
    if text in NAMED_SPEEDS:
        return f"{NAMED_SPEEDS[text]:g}"
    said = _SPEED_SAID.fullmatch(text)
    try:
        number = float(said["number"] if said else "nan")
    except ValueError:
        number = float("nan")
    if not (0 < number < 100_000) or isinstance(value, bool):
        raise UsageError(f"{option} {value!r}: give {SPEED_EXAMPLES}")
    return f"{number:g}"


# The time-to-first-token bound a figure must meet to answer a speed, where the user sets
# none (`--ttft`): by the request shape's input tokens, MLPerf's own Server bounds: 2 s for
# Llama 2 70B and Llama 3.1 8B (prompts up to about 2,000 tokens), 6 s for Llama 3.1 405B
# (prompts of thousands of tokens). warehouse/views/35_throughput_ranked.sql applies it.
DEFAULT_TTFT_NOTE = "2 s for prompts up to 2,048 tokens, 6 s beyond"


def ttft_value(value: object, option: str = COMMAND_LINE.name("ttft")) -> float | None:
    """The asked time-to-first-token bound in milliseconds ('2s', '500ms', '1.5' seconds), or
    None for the default per request shape."""
    from chipcost.core.errors import UsageError

    if value is None:
        return None
    text = str(value).strip().lower()
    scale = 1.0
    if text.endswith("ms"):
        text = text.removesuffix("ms")
    else:
        text, scale = text.removesuffix("s"), 1000.0
    try:
        number = float(text) * scale
    except ValueError:
        number = float("nan")
    if isinstance(value, bool) or not (1 <= number <= 3_600_000):
        raise UsageError(
            f"{option} {value!r}: give a time to first token such as 2s, 500ms or 1.5 (seconds), "
            "from 1 ms to an hour"
        )
    return number


def speed_label(speed: str) -> str:
    """How outputs name the asked speed: 'at maximum throughput (...)', 'at 25 or more
    tokens/s per user (MLPerf Interactive bound for Llama 2 70B)'."""
    if speed == "max":
        return "at maximum throughput (MLPerf Offline, a vendor's maximum-load tables)"
    named = {f"{v:g}": k for k, v in NAMED_SPEEDS.items()}
    label = f"at {speed} or more tokens/s per user"
    if speed in named:
        label += f" (MLPerf {named[speed].title()} bound for Llama 2 70B)"
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
