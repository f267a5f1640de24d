"""Cost-per-token arithmetic: pure functions, each refusing input that would divide by zero."""

from __future__ import annotations

import math
import re

from chipcost.core.errors import UsageError
from chipcost.core.questions import COMMAND_LINE

SECONDS_PER_HOUR = 3600
TOKENS_PER_MILLION = 1_000_000

# FLOPs per token per parameter: a forward pass costs ~2 FLOPs per parameter per token, and
# training adds the backward pass (~2x the forward), hence ~6. Attention FLOPs are left out,
# as in the usual MFU definition (Kaplan et al. 2020; Chowdhery et al. 2022, appendix B).
FLOPS_PER_PARAMETER = {"training": 6.0, "inference": 2.0}

# The sign each output prints a currency with ('€0.1647', '€/chip-hr'); another code is
# written before the amount ('CHF 0.18').
SYMBOLS = {"USD": "$", "EUR": "€", "GBP": "£", "JPY": "¥"}


def money_sign(currency: str = "USD") -> str:
    return SYMBOLS.get(currency, f"{currency} ")


_SUFFIXES = {"k": 1e3, "m": 1e6, "b": 1e9, "g": 1e9, "t": 1e12}


def _positive(value: float, what: str) -> float:
    if not isinstance(value, int | float) or not math.isfinite(value) or value <= 0:
        raise UsageError(f"{what} must be a positive number (got {value!r})")
    return float(value)


def _not_negative(value: float, what: str) -> float:
    if not isinstance(value, int | float) or not math.isfinite(value) or value < 0:
        raise UsageError(f"{what} must be zero or more (got {value!r})")
    return float(value)


def parse_quantity(
    text: str | float, what: str = "the value", examples: str = "300e9, 300B or 300000000000"
) -> float:
    """'300e9', '300B', '1.5T', '36,000' -> a positive float (K, M, B/G, T suffixes); a number
    given as one (the Python API's tokens=3e11) is checked as it is."""
    if isinstance(text, int | float) and not isinstance(text, bool):
        return _positive(text, what)
    cleaned = text.strip().replace(",", "").replace("_", "")
    match = re.fullmatch(r"([0-9.eE+-]+)\s*([kKmMbBgGtT]?)", cleaned)
    try:
        value = float(match.group(1)) * _SUFFIXES.get(match.group(2).lower(), 1.0)
    except (AttributeError, ValueError):
        raise UsageError(f"{what} {text!r} is not a number: write e.g. {examples}") from None
    return _positive(value, what)


# A model name's size segment ('70b' in llama-3-70b, '0.5b', '1.8t'): a whole segment of its
# kebab-case name, so neither a mixture's '8x7b' nor an active count's 'a3b' is read as one.
_NAMED_SIZE = re.compile(r"(\d+(?:\.\d+)?)([mbt])")
_EXPONENTS = {"m": 6, "b": 9, "t": 12}


def parameters_in_name(model: str) -> str | None:
    """The parameter count a model's name states, as --parameters takes it ('llama-3-70b' ->
    '70e9'); None where the name states none, or more than one."""
    found = {
        f"{m.group(1)}e{_EXPONENTS[m.group(2)]}"
        for segment in re.split(r"[^a-z0-9.]+", model.lower())
        if (m := _NAMED_SIZE.fullmatch(segment))
    }
    return found.pop() if len(found) == 1 else None


def tokens_per_hour_in_millions(tokens_per_second: float) -> float:
    """Millions of tokens one chip processes in an hour."""
    tps = _positive(tokens_per_second, "tokens per second")
    return tps * SECONDS_PER_HOUR / TOKENS_PER_MILLION


def cost_per_million_tokens(price_per_hour: float, tokens_per_second: float) -> float:
    """USD per million tokens: hourly price / (tokens/s x 3600 / 10^6), both for the same unit."""
    price = _positive(price_per_hour, "the hourly price")
    return price / tokens_per_hour_in_millions(tokens_per_second)


def chip_hours(tokens: float, tokens_per_second_per_chip: float) -> float:
    """Chip-hours to process `tokens` at a per-chip rate."""
    count = _positive(tokens, "the token count")
    return count / _positive(tokens_per_second_per_chip, "tokens per second") / SECONDS_PER_HOUR


def cost_to_train(
    tokens: float, tokens_per_second_per_chip: float, price_per_chip_hour: float, overhead: float
) -> float:
    """USD to process `tokens`: chip-hours x per-chip price x (1 + overhead)."""
    price = _positive(price_per_chip_hour, "the per-chip hourly price")
    extra = _not_negative(overhead, "the overhead")
    return chip_hours(tokens, tokens_per_second_per_chip) * price * (1 + extra)


def savings_fraction(cost: float, baseline_cost: float) -> float:
    """Share of the baseline's cost saved (negative when dearer than the baseline)."""
    base = _positive(baseline_cost, "the baseline cost")
    return 1 - _not_negative(cost, "the cost") / base


def cost_change(cost: float, baseline_cost: float) -> float:
    """The one sign every output uses: cost / the baseline's - 1, negative = cheaper
    (-0.32 is "32% cheaper", 0.15 "15% dearer")."""
    # + 0.0: no saving is 0, not -0.0 (which CSV and JSON would print as "-0.0")
    return -savings_fraction(cost, baseline_cost) + 0.0


def break_even_tokens(migration_cost: float, saving_per_million_tokens: float) -> float | None:
    """Tokens to process before a one-off cost is paid back; None when nothing is saved."""
    cost = _not_negative(migration_cost, "the migration cost")
    if not math.isfinite(saving_per_million_tokens) or saving_per_million_tokens <= 0:
        return None
    return cost / saving_per_million_tokens * TOKENS_PER_MILLION


def break_even_days(tokens: float | None, daily_tokens: float) -> float | None:
    """Days to reach `tokens` at a daily volume; None when there is no break-even."""
    per_day = _positive(daily_tokens, "the daily token volume")
    return None if tokens is None else tokens / per_day


def flops_per_token(parameters: float, workload: str) -> float:
    """Approximate FLOPs per token: 6 x parameters to train, 2 x parameters to infer."""
    if workload not in FLOPS_PER_PARAMETER:
        raise UsageError(f"unknown workload {workload!r}: use training or inference")
    return FLOPS_PER_PARAMETER[workload] * _positive(parameters, "the parameter count")


def derived_tokens_per_second(peak_tflops: float, mfu: float, flops_per_token: float) -> float:
    """Tokens/s per chip a dense peak sustains at a given model FLOPs utilisation."""
    if not isinstance(mfu, int | float) or not 0 < mfu <= 1:
        raise UsageError(f"an MFU must be in (0, 1] (got {mfu!r})")
    peak = _positive(peak_tflops, "the peak TFLOPS")
    return peak * 1e12 * mfu / _positive(flops_per_token, "FLOPs per token")


def implied_mfu(tokens_per_second: float, flops_per_token: float, peak_tflops: float) -> float:
    """The share of the chip's dense peak a throughput figure needs (above 1: impossible)."""
    tps = _positive(tokens_per_second, "tokens per second")
    flops = _positive(flops_per_token, "FLOPs per token")
    return tps * flops / (_positive(peak_tflops, "the peak TFLOPS") * 1e12)


def tokens_per_second_per_chip(tokens_per_second: float, per: str, chips: float | None) -> float:
    """A figure stated per instance (or per NeuronCore-like unit) turned into one per chip.

    `per` says what the figure was measured on: `chip`, or `instance` with `chips` chips.
    Giving a chip count with a per-chip figure is refused: it is the usual sign of a mix-up.
    """
    tps = _positive(tokens_per_second, "tokens per second")
    if per == "chip":
        if chips not in (None, 1, 1.0):
            raise UsageError(
                f"a per-chip figure takes no chip count (got {chips:g}): if {tps:,.0f} tokens/s "
                "was measured on the whole instance, say "
                + COMMAND_LINE.said("figure_per", "instance")
                + " (in a file: per=instance)"
            )
        return tps
    if per == "instance":
        if chips is None:
            raise UsageError(
                "a per-instance figure needs the instance's chip count "
                f"({COMMAND_LINE.said('chip_count', 'N')}, in a file the chips column; e.g. 8 for "
                "p5.48xlarge) to be turned into tokens/s per chip"
            )
        return tps / _positive(chips, "the chip count")
    raise UsageError(f"unknown unit {per!r}: the figure is per chip or per instance")


def human_count(value: float) -> str:
    """1.09e11 -> '109.1B'."""
    for size, suffix in ((1e12, "T"), (1e9, "B"), (1e6, "M"), (1e3, "K")):
        if abs(value) >= size:
            return f"{value / size:,.1f}".removesuffix(".0") + suffix
    return f"{value:,.0f}"
