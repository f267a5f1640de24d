"""The cost ranking's derived columns: cost of N tokens, savings and break-even vs a baseline."""

from __future__ import annotations

from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass

from chipcost.transform.change_words import change_words
from chipcost.transform.precision import DEFAULT_WEIGHT_BYTES, weight_bytes
from chipcost.transform.rows import CostRow
from chipcost.transform.tokens import (
    break_even_days,
    break_even_tokens,
    cost_change,
    cost_to_train,
    money_sign,
)

# The published articles' allowance for checkpointing, data loading and restarts on a
# training run; an inference job has none of these, so it defaults to no overhead.
DEFAULT_OVERHEAD = {"training": 0.15, "inference": 0.0}


# For a row, the baseline's (provider, cost per million tokens, whether that provider is the
# row's own), or None: by (pricing_model, term), or a function of the row.
Found = tuple[str, float, bool]
Baseline = Mapping[tuple[str, str], Found] | Callable[[CostRow], Found | None]


@dataclass(frozen=True)
class CostQuestion:
    """What the user asked beyond the ranking itself."""

    tokens: float | None = None
    overhead: float = 0.0
    migration_cost: float | None = None
    daily_tokens: float | None = None
    currency: str = "USD"  # of the migration cost: the ranking's


def with_costs(
    rows: Sequence[CostRow],
    question: CostQuestion,
    baseline: Baseline,
) -> list[CostRow]:
    """Each row with cost_for_tokens, the baseline's cost, the cost change and break-even.

    `baseline` gives, for a row, (the baseline's provider, its cost per million tokens, whether
    that is the row's own provider), or None where the baseline has no offer on the row's
    pricing model and term: then the change is None, never NaN. The change is the one sign
    every output uses: the row's cost / the baseline's - 1, negative = cheaper.
    """
    find = baseline if callable(baseline) else _by_pricing(baseline)
    result: list[CostRow] = []
    for row in rows:
        cpm, tps = row["usd_per_million_tokens"], row["tokens_per_second_per_chip"]
        price = row["price_per_chip_hour"]
        found = find(row)
        provider, base, same = found if found else (None, None, None)
        change = cost_change(cpm, base) if base else None
        result.append(
            {
                **row,
                "cost_for_tokens": (
                    cost_to_train(question.tokens, tps, price, question.overhead)
                    if question.tokens
                    else None
                ),
                "baseline_usd_per_million_tokens": base,
                "baseline_provider": provider,
                "baseline_same_provider": same,
                "cost_change_vs_baseline": change,
                "vs_baseline": change_words(change) if change is not None else None,
                "break_even_tokens": None,
                "break_even_days": None,
            }
        )
    return result


def with_break_even(rows: list[CostRow], question: CostQuestion) -> list[CostRow]:
    """Each row's break-even on the migration cost asked, in tokens (and days at the daily
    volume asked), from the costs its verdict rests on (transform/verdict.py with_verdicts):
    none where the evidence cannot say which is cheaper, since a payback drawn from figures
    measured at different points would be a verdict the evidence does not give. Rows are
    completed in place."""
    if question.migration_cost is None:
        return rows
    for row in rows:
        base, change = row["baseline_usd_per_million_tokens"], row["cost_change_vs_baseline"]
        if not base or change is None or row.get("verdict") == "cannot say":
            continue
        # at the costs the verdict rests on (its point's), where it rests on other figures
        own = row.get("usd_per_million_tokens_at_point") or row["usd_per_million_tokens"]
        base = row.get("baseline_usd_per_million_tokens_at_point") or base
        tokens = break_even_tokens(question.migration_cost, base - own)
        row["break_even_tokens"] = tokens
        if question.daily_tokens:
            row["break_even_days"] = break_even_days(tokens, question.daily_tokens)
    return rows


def _by_pricing(baseline: Mapping[tuple[str, str], Found]) -> Callable[[CostRow], Found | None]:
    return lambda row: baseline.get((row["pricing_model"], row["term"]))


# Memory a model needs per parameter (docs/cost-per-token.md, "Does the model fit"). Training
# with mixed-precision Adam keeps BF16 weights (2 bytes) and gradients (2), FP32 master weights
# (4) and Adam's two moments (4 + 4): 16 bytes, activations not counted. Inference keeps the
# weights alone, at the throughput figure's precision (KV cache and activations not counted).
# (Bytes per weight at each precision: transform/precision.py.)
TRAINING_BYTES_PER_PARAMETER = 16.0


def bytes_per_parameter(workload: str, precision: str | None) -> float:
    if workload == "training":
        return TRAINING_BYTES_PER_PARAMETER
    return weight_bytes(precision)


def memory_needed_gb(parameters: float, workload: str, precision: str | None) -> float:
    """GB (10^9 bytes) the model's weights (inference) or training state need."""
    return parameters * bytes_per_parameter(workload, precision) / 1e9


def fit_rule(workload: str) -> str:
    """The rule `fits` applies, in words, for the notes under the ranking."""
    if workload == "training":
        return (
            f"training state {TRAINING_BYTES_PER_PARAMETER:g} bytes/parameter (mixed-precision "
            "Adam: BF16 weights and gradients, FP32 master weights and two moments), sharded "
            "over the instance's chips; activations not counted"
        )
    return (
        f"weights {DEFAULT_WEIGHT_BYTES:g} bytes/parameter at BF16, 1 at FP8, 0.5 at FP4 (the "
        "throughput figure's precision), over the instance's chips; KV cache and activations "
        "not counted, nor the chips per replica the figure was measured on"
    )


def cost_decimals(usd: float) -> int:
    """Decimals to show a cost per million tokens with: 4, or enough for 3 significant digits
    below a cent ($0.000712, not a $0.0007 that ties with $0.0007x)."""
    import math

    if not usd or not math.isfinite(usd) or usd >= 0.01:
        return 4
    return max(4, 2 - math.floor(math.log10(abs(usd))))


# How an amount of money is prefixed: a symbol where it is one currency's only, else its code.
def cost_text(usd: float, currency: str = "USD") -> str:
    """'$0.1813', '$0.000712', '€0.1660': a cost per million tokens as every output shows it."""
    return f"{money_sign(currency)}{usd:,.{cost_decimals(usd)}f}"
