"""What `cost` and `compare` were asked (the fields of chipcost.core.asks.COST and
COMPARE), checked in the asker's words, and made into the ranking to run.

The command, the fast-start path and the Python API hand over the same values by the same
names; only the Voice differs (`--speed 9x` on the command line, `speed '9x'` from Python).
"""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Any

import duckdb

from chipcost.core.asks import DEFAULT_BASELINE
from chipcost.core.errors import UsageError
from chipcost.core.figures import shape_value, speed_value, ttft_value
from chipcost.core.questions import Voice
from chipcost.reads.cost import (
    Ask,
    ask_of,
    baseline_chip,
    cost_question,
    interruption_percent,
    workload_name,
)
from chipcost.transform.cost import CostQuestion


def checked(asked: Mapping[str, Any], voice: Voice) -> dict[str, Any]:
    """The values a ranking needs that can be checked before the warehouse is opened: the
    model named, the workload, the baseline chip (and whether it was given), the speed and
    the most interruption; the rest as given."""
    model = asked["model"]
    if not isinstance(model, str) or not model.strip():
        said = voice.said("model", repr(model))
        raise UsageError(f"{said}: give a model name, e.g. 'llama-3-70b'")
    baseline = asked.get("baseline")
    # compare's baseline is its chip B, checked as such; it takes no --max-interruption
    declared = voice.takes
    return {
        **asked,
        "workload": workload_name(asked["workload"], voice.name("workload")),
        "baseline": baseline_chip(
            DEFAULT_BASELINE if baseline is None else baseline,
            voice.name("baseline") if declared("baseline") else "chip B",
        ),
        "baseline_given": baseline is not None,
        "speed": speed_value(asked["speed"], voice.name("speed"), _standing(model)),
        "ttft": ttft_value(asked.get("ttft"), voice.name("ttft")),
        **_point(asked, voice),
        "max_interruption": interruption_percent(
            asked["max_interruption"], voice.name("max_interruption")
        )
        if declared("max_interruption")
        else None,
    }


def _point(asked: Mapping[str, Any], voice: Voice) -> dict[str, Any]:
    """The request shape and precision class asked for (None: any), checked: a shape is
    inference's only."""
    from chipcost.transform.precision import precision_asked

    shape = shape_value(asked.get("shape"), voice.name("shape"))
    if shape is not None and workload_name(asked["workload"], "") == "training":
        raise UsageError(
            f"{voice.name('shape')} is a request shape of inference: training figures are "
            f"at their sequence length; leave {voice.name('shape')} out for training"
        )
    return {
        "shape": shape,
        "precision": precision_asked(asked.get("precision"), voice.name("precision")),
    }


def _standing(model: str) -> str:
    """The model whose figures answer for `model` as asked (a Hugging Face id's, an
    equivalent's: llama-3.3-70b is answered with llama-3-70b's), whose MLPerf bounds a named
    speed is (chipcost.core.figures.MLPERF_BOUNDS)."""
    from chipcost.transform.references import model_standing, repo_cut

    plain = repo_cut(model)[0] if "/" in model else None
    return model_standing(plain or model)[0]


def question(asked: Mapping[str, Any], voice: Voice) -> CostQuestion:
    """What `cost` asks beyond the ranking (tokens, overhead, break-even), checked; `asked`
    as `checked` returns it."""
    daily = asked["daily_tokens"]
    return cost_question(
        asked["workload"],
        asked["tokens"],
        asked["overhead"],
        asked["migration_cost"],
        daily if voice.api else (daily or None),  # a blank --daily-tokens is none
        currency=_currency(asked.get("currency")),
        voice=voice,
    )


def _currency(asked: object) -> str | None:
    """The ranking's currency as the read takes it (chipcost.reads.your_prices): the one
    asked, else $CHIPCOST_CURRENCY's; the migration cost is in it."""
    from chipcost.reads.your_prices import CURRENCY_ENV

    if asked is not None:
        return asked if isinstance(asked, str) else None  # refused by the read, naming it
    return os.environ.get(CURRENCY_ENV, "").strip() or None


def ranking(
    con: duckdb.DuckDBPyConnection,
    asked: Mapping[str, Any],
    voice: Voice,
    *,
    limit: int,
    stale_days: int,
) -> Ask:
    """The ranking asked for, its names resolved against the warehouse; `asked` as `checked`
    returns it."""
    from chipcost.reads.your_prices import for_read

    return ask_of(
        con,
        asked["model"],
        asked["workload"],
        chip=asked.get("chip"),
        baseline=asked["baseline"],
        baseline_given=asked["baseline_given"],
        region=asked["region"],
        pricing_model=asked["pricing_model"],
        provider=asked["provider"],
        instance=asked.get("instance"),
        all_offers=asked.get("all_offers", False),
        limit=limit,
        stale_days=stale_days,
        speed=asked["speed"],
        ttft=asked.get("ttft"),
        shape=asked.get("shape"),
        precision=asked.get("precision"),
        max_instances=asked.get("max_instances"),
        mine=for_read(con, asked["currency"], asked["list_prices"], voice=voice),
        max_interruption=asked["max_interruption"],
        voice=voice,
    )
