"""The cost ranking's derived columns: cost of N tokens, savings and break-even vs a baseline."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass

from chipcost.transform.tokens import (
    break_even_days,
    break_even_tokens,
    cost_to_train,
    savings_fraction,
)

# The published articles' allowance for checkpointing, data loading and restarts on a
# training run; an inference job has none of these, so it defaults to no overhead.
DEFAULT_OVERHEAD = {"training": 0.15, "inference": 0.0}


@dataclass(frozen=True)
class CostQuestion:
    """What the user asked beyond the ranking itself."""

    tokens: float | None = None
    overhead: float = 0.0
    migration_cost: float | None = None
    daily_tokens: float | None = None


def with_costs(
    rows: Sequence[Mapping[str, object]],
    question: CostQuestion,
    baseline: Mapping[tuple[str, str], float],
) -> list[dict[str, object]]:
    """Each row with cost_for_tokens, baseline_cost_per_million, savings and break-even.

    The baseline for a row is the baseline chip's cheapest cost per million tokens on the
    same pricing model and term; a row without one gets None, never NaN.
    """
    result = []
    for row in rows:
        cpm = float(row["cost_per_million_tokens"])  # type: ignore[arg-type]
        tps = float(row["tokens_per_second_per_chip"])  # type: ignore[arg-type]
        price = float(row["price_per_chip_hour"])  # type: ignore[arg-type]
        base = baseline.get((str(row["pricing_model"]), str(row["term"])))
        extra: dict[str, object] = {
            "cost_for_tokens": (
                cost_to_train(question.tokens, tps, price, question.overhead)
                if question.tokens
                else None
            ),
            "baseline_cost_per_million": base,
            "savings_vs_baseline": savings_fraction(cpm, base) if base else None,
            "break_even_tokens": None,
            "break_even_days": None,
        }
        if base and question.migration_cost is not None:
            tokens = break_even_tokens(question.migration_cost, base - cpm)
            extra["break_even_tokens"] = tokens
            if question.daily_tokens:
                extra["break_even_days"] = break_even_days(tokens, question.daily_tokens)
        result.append({**row, **extra})
    return result
