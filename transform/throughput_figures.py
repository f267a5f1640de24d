"""Throughput figures from rows: the catalogue's references and your measurements, each field
checked (chipcost's own derived figures are derivation.py)."""

from __future__ import annotations

import itertools
import math
import re
from collections import Counter
from collections.abc import Iterable, Mapping
from datetime import UTC, datetime
from typing import TypedDict

from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.figures import (
    DEPLOYMENTS,
    KINDS,
    OPERATING_POINTS,
    WORKLOADS,
    Figure,
    said_speed,
)
from chipcost.core.names import did_you_mean, shown
from chipcost.transform.figure_bounds import rate_in_bounds, real_date, whole_chips
from chipcost.transform.precision import PRECISION_CLASSES, WEIGHT_BYTES
from chipcost.transform.tokens import (
    parse_quantity,
    tokens_per_second_per_chip,
)

# No accelerator chipcost knows was sold before this year (the oldest, NVIDIA's K80: 2014).
EARLIEST_FIGURE = "2000"
DATE_PATTERN = re.compile(r"\d{4}(-\d{2}(-\d{2})?)?|undated")


# MLPerf's benchmark names, as its results and chipcost's evidence lines print them: the model
# run ('llama2-70b-99': Llama 2 70B held to 99% of the reference accuracy; '-99.9', the
# interactive scenario's '-interactive', '-edge'; 'llama3.1-405b').
_MLPERF_NAME = re.compile(r"llama(\d(?:\.\d)?)-(\d+b)(?:-interactive)?(?:-edge)?(?:-99(?:\.9)?)?")


def normalise_model(name: str) -> str:
    """'Llama 3 70B' / 'llama_3_70b' -> 'llama-3-70b': models are named in lower kebab case;
    an MLPerf benchmark's name is its model's ('llama2-70b-99' -> 'llama-2-70b')."""
    model = re.sub(r"[^a-z0-9.]+", "-", name.strip().lower()).strip("-")
    found = _MLPERF_NAME.fullmatch(model)
    return f"llama-{found[1]}-{found[2]}" if found else model


def no_model(name: str) -> str:
    """Why a name normalise_model makes nothing of ('?', '--': punctuation alone) is refused."""
    return f"model {name!r} names no model (no letter or digit)"


MAX_INT = 2**31 - 1


def _optional_int(text: str | None, what: str) -> int | None:
    if text is None or not str(text).strip():
        return None
    value = parse_quantity(str(text), what)
    # The warehouse stores these as INTEGER: a larger number is a typo, not a batch size.
    if value != int(value) or not 0 < value <= MAX_INT:
        raise ChipcostError(f"{what} must be a whole number from 1 to {MAX_INT:,} (got {text!r})")
    return int(value)


def _optional_mfu(text: str | None) -> float | None:
    if text is None or not str(text).strip():
        return None
    try:
        value = float(str(text).rstrip("%")) / (100 if str(text).endswith("%") else 1)
    except ValueError:
        value = math.nan
    if not math.isfinite(value) or not 0 < value <= 1:
        raise UsageError(f"mfu must be a fraction in (0, 1], e.g. 0.45 or 45% (got {text!r})")
    return value


def _optional_number(row: Mapping[str, str | None], column: str) -> float | None:
    text = (row.get(column) or "").strip()
    return parse_quantity(text, column) if text else None


def _per_user(row: Mapping[str, str | None]) -> float | None:
    """A per-user speed, also as outputs print one ('25 tok/s', '@7.2/u')."""
    text = (row.get("tokens_per_second_per_user") or "").strip()
    return parse_quantity(said_speed(text), "tokens_per_second_per_user") if text else None


def _day_of(text: str) -> str:
    """A date as written, or the day of a time as outputs print one ('2026-11-21 06:00 UTC',
    '2026-11-21T06:00:00+00:00': its UTC day where it has an offset)."""
    if len(text) <= 10:
        return text
    try:
        moment = datetime.fromisoformat(re.sub(r"\s*UTC$", "+00:00", text))
    except ValueError:
        return text  # refused as it was written
    if moment.tzinfo is not None:
        moment = moment.astimezone(UTC)
    return moment.date().isoformat()


def _text(row: Mapping[str, str | None], column: str) -> str | None:
    return (row.get(column) or "").strip() or None


# A name and version (software, system, scenario) is a line: the catalogue's longest is 145.
MAX_LABEL = 300


def _label(row: Mapping[str, str | None], column: str) -> str | None:
    """A short one-line text (software, system, scenario), or a message naming the column."""
    text = _text(row, column)
    if text is not None and not text.isprintable():
        raise ChipcostError(f"{column} holds a control character (a line break, an escape)")
    if text is not None and len(text) > MAX_LABEL:
        raise ChipcostError(
            f"{column} holds {len(text):,} characters: a name and version is one short line "
            f"(at most {MAX_LABEL})"
        )
    return text


def _precision(row: Mapping[str, str | None]) -> str | None:
    """The precision as stated, lower case, when it is one chipcost can class."""
    text = _text(row, "precision")
    if text is None:
        return None
    if text.lower() not in PRECISION_CLASSES:
        others = ", ".join(k for k in PRECISION_CLASSES if k not in WEIGHT_BYTES)
        raise ChipcostError(
            f"precision {shown(text, 40)} is none chipcost knows: give one of "
            f"{', '.join(WEIGHT_BYTES)} (or {others})"
        )
    return text.lower()


def _point(row: Mapping[str, str | None], workload: str, kind: str) -> str | None:
    """The figure's operating point; a reference must state one (or say `unstated`, which
    only an author's estimate may); a measurement of yours may leave it out."""
    point = _text(row, "operating_point")
    if point is None:
        if "operating_point" in row:
            raise ChipcostError(
                f"operating_point is empty: give one of {', '.join(OPERATING_POINTS)}"
            )
        return "training" if workload == "training" else None
    if point not in OPERATING_POINTS:
        raise ChipcostError(
            f"operating_point {point!r} is not one of {', '.join(OPERATING_POINTS)}"
        )
    if (point == "training") != (workload == "training"):
        raise ChipcostError(f"operating_point {point!r} does not fit a {workload} figure")
    if point == "unstated" and kind != "estimate":
        raise ChipcostError("operating_point 'unstated' is for an author's estimate only")
    return point


class _Published(TypedDict):
    """A Figure's fields that say where and how it was measured."""

    scenario: str | None
    tokens_per_second_per_user: float | None
    ttft_ms: float | None
    tpot_ms: float | None
    input_tokens: int | None
    output_tokens: int | None
    concurrency: int | None
    software: str | None
    system: str | None
    source_url: str | None


def _published(row: Mapping[str, str | None]) -> _Published:
    """Where and how a figure was measured, as its document states it."""
    return {
        "scenario": _label(row, "scenario"),
        "tokens_per_second_per_user": _per_user(row),
        "ttft_ms": _optional_number(row, "ttft_ms"),
        "tpot_ms": _optional_number(row, "tpot_ms"),
        "input_tokens": _optional_int(row.get("input_tokens"), "input_tokens"),
        "output_tokens": _optional_int(row.get("output_tokens"), "output_tokens"),
        "concurrency": _optional_int(row.get("concurrency"), "concurrency"),
        "software": _label(row, "software"),
        "system": _label(row, "system"),
        "source_url": _text(row, "source_url"),
    }


def _deployment(row: Mapping[str, str | None]) -> str | None:
    """How the replica was deployed (DEPLOYMENTS), None where the row does not say."""
    value = (row.get("deployment") or "").strip().lower()
    if not value:
        return None
    if value not in DEPLOYMENTS:
        raise ChipcostError(f"deployment {value!r} is not one of {', '.join(DEPLOYMENTS)}")
    return value


def _required(row: Mapping[str, str | None], column: str) -> str:
    value = (row.get(column) or "").strip()
    if not value:
        raise ChipcostError(f"{column} is empty")
    return value


def figure_from_row(
    row: Mapping[str, str | None],
    *,
    chips: Iterable[str],
    origin: str,
    throughput_id: str,
    equivalents: Mapping[str, tuple[str, str]] | None = None,
) -> Figure:
    """A checked Figure from a CSV-like row; raises ChipcostError naming the bad field.

    `equivalents` maps a published model to (the model it stands for, why): a figure published
    for llama-2-70b counts for llama-3-70b and says so (core/data/model_equivalents.csv).
    """
    _short_enough(row)
    equivalents = equivalents or {}
    chip = _required(row, "chip")
    if chip not in set(chips):
        raise ChipcostError(
            f"chip {chip!r} is not a canonical chip{did_you_mean(chip, sorted(chips))} "
            "(see core/data/chips.csv)"
        )
    workload = _required(row, "workload").lower()
    if workload not in WORKLOADS:
        raise ChipcostError(f"workload {workload!r} is neither training nor inference")
    kind = "measured" if origin == "user" else _required(row, "kind")
    if kind not in KINDS:
        raise ChipcostError(f"kind {kind!r} is not one of {', '.join(KINDS)}")
    date = _day_of((row.get("source_date") or "undated").strip())
    if not DATE_PATTERN.fullmatch(date):
        raise ChipcostError(f"source_date {date!r} is not YYYY, YYYY-MM, YYYY-MM-DD or undated")
    real_date(date)
    today = datetime.now(UTC).date().isoformat()
    if date != "undated" and date > today[: len(date)]:
        # The newest date wins the choice rule: a future one would win for good.
        raise ChipcostError(f"source_date {date!r} is in the future (today is {today})")
    if date != "undated" and date < EARLIEST_FIGURE:
        raise ChipcostError(
            f"source_date {date!r} is before {EARLIEST_FIGURE}: no chip chipcost knows was "
            "measured then; give the day it was measured"
        )
    stated = parse_quantity(_required(row, "tokens_per_second"), "tokens_per_second")
    per = (row.get("per") or "chip").strip().lower()
    per = "instance" if per == "system" else per  # a benchmark's system is an instance
    count = row.get("chips")
    chip_count = parse_quantity(count, "chips") if count and count.strip() else None
    if chip_count is not None:
        chip_count = whole_chips(chip_count, workload)
    # A published per-GPU figure states the replica's scale beside it (InferenceX's tp); one
    # of yours given per chip with a chip count is the usual sign of a mix-up, and refused.
    scale_only = per == "chip" and origin == "reference"
    per_chip = rate_in_bounds(
        tokens_per_second_per_chip(stated, per, None if scale_only else chip_count)
    )
    unit = f"per instance of {chip_count:g} chips" if per == "instance" else "per chip"
    model, published = _model(_required(row, "model"), equivalents)
    notes = (row.get("notes") or "").strip() or None
    if published:
        rule = equivalence_note(published, model, equivalents[published][1])
        notes = f"{rule} {notes}" if notes else rule
    return Figure(
        chip=chip,
        model=model,
        workload=workload,
        batch_size=_optional_int(row.get("batch_size"), "batch_size"),
        precision=_precision(row),
        sequence_length=_optional_int(row.get("sequence_length"), "sequence_length"),
        tokens_per_second_per_chip=per_chip,
        mfu=_optional_mfu(row.get("mfu")),
        kind=kind,
        source=_required(row, "source"),
        notes=notes,
        throughput_id=throughput_id,
        origin=origin,
        source_date=date,
        stated_as=(row.get("stated_as") or "").strip() or f"{stated:,.6g} tokens/s {unit}",
        operating_point=_point(row, workload, kind),
        published_model=published,
        chips=chip_count,
        deployment=_deployment(row),
        **_published(row),
    )


def equivalence_note(published: str, model: str, why: str) -> str:
    """What a figure's notes say first when its model stands for another."""
    return f"Published for {published}; stands for {model} ({why})."


def _model(name: str, equivalents: Mapping[str, tuple[str, str]]) -> tuple[str, str | None]:
    """(the model a figure counts for, the model as published when a rule maps it)."""
    published = normalise_model(name)
    if not published:
        raise ChipcostError(no_model(name))
    if published in equivalents:
        return equivalents[published][0], published
    return published, None


def figures_from_rows(
    rows: Iterable[Mapping[str, str | None]],
    *,
    chips: Iterable[str],
    origin: str,
    where: str,
    lines: Iterable[int] | None = None,
    equivalents: Mapping[str, tuple[str, str]] | None = None,
    models: Iterable[str] | None = None,
) -> list[Figure]:
    """Every row checked; all problems reported at once, by line, before anything is used.

    `lines` are the rows' line numbers in their file (default: 2, 3, ... after a header).
    """
    known = frozenset(chips)
    known_models = frozenset(models or ())
    figures, problems = [], []
    numbers = iter(lines) if lines is not None else itertools.count(2)
    on_line: Counter[int] = Counter()  # a JSON list on one line has all its rows on line 1
    for line, row in zip(numbers, rows, strict=False):
        nth, on_line[line] = on_line[line], on_line[line] + 1
        ident = (row.get("id") or "").strip() or f"{origin}-{line}" + (f".{nth}" if nth else "")
        try:
            figure = figure_from_row(
                row, chips=known, origin=origin, throughput_id=ident, equivalents=equivalents
            )
            if models is not None and figure.model not in known_models:
                raise ChipcostError(
                    f"model {figure.model!r} has no config in core/data/models.csv and no "
                    "rule in core/data/model_equivalents.csv: add one of them"
                )
            figures.append(figure)
        except ChipcostError as exc:
            problems.append(f"line {line}: {exc}")
    if problems:
        raise ChipcostError(f"{where} has bad rows (nothing was loaded)", details=problems)
    ids = [f.throughput_id for f in figures]
    duplicates = sorted(i for i, n in Counter(ids).items() if n > 1)
    if duplicates:
        raise ChipcostError(f"{where} repeats the id(s) {', '.join(duplicates)}")
    return figures


# The fields outputs show with a figure beside the labels _label holds to MAX_LABEL (software,
# system, scenario): its citation, how it was stated, the model as published; the
# catalogue's longest is 255 characters. A longer one is refused, not carried into every
# report, e-mail and table that names the figure; `notes` and a URL keep what more there is.
SHOWN_FIELDS = ("source", "stated_as", "published_model")
MAX_SHOWN = 500


def _short_enough(row: Mapping[str, str | None]) -> None:
    for name in SHOWN_FIELDS:
        if len(value := row.get(name) or "") > MAX_SHOWN:
            raise ChipcostError(
                f"{name} holds {len(value):,} characters, more than the {MAX_SHOWN} a figure "
                "shows with it (reports, e-mail, tables): put the rest in notes"
            )
