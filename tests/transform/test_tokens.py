"""Cost-per-token arithmetic, against the figures published articles compute consistently."""

from __future__ import annotations

import math

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.transform.tokens import (
    break_even_days,
    break_even_tokens,
    chip_hours,
    cost_per_million_tokens,
    cost_to_train,
    derived_tokens_per_second,
    flops_per_token,
    implied_mfu,
    parameters_in_name,
    parse_quantity,
    savings_fraction,
    tokens_per_second_per_chip,
)


@pytest.mark.parametrize(
    ("price", "tokens_per_second", "printed"),
    [
        (4.54, 1500, 0.84),  # H200 on demand, vLLM batch 8 (Spheron comparison, July 2026)
        (3.31, 1500, 0.61),  # H200 spot, same throughput
        (5.34, 2200, 0.67),  # B200 spot, estimated throughput
        (1.80, 1800, 0.28),  # Trainium 3: the article's per-NeuronCore price pairing
    ],
)
def test_cost_per_million_tokens_reproduces_the_spheron_table(price, tokens_per_second, printed):
    assert round(cost_per_million_tokens(price, tokens_per_second), 2) == printed


@pytest.mark.parametrize(
    ("price", "tps", "expected"),
    [(3.6, 1000, 1.0), (7.2, 1000, 2.0), (3.6, 2000, 0.5), (0.36, 1, 100.0)],
)
def test_cost_per_million_tokens_simple_cases(price, tps, expected):
    # 1,000 tokens/s is 3.6 million tokens an hour: $3.60 an hour is $1 per million.
    assert cost_per_million_tokens(price, tps) == pytest.approx(expected)


def test_the_trainium3_unit_mix_up_is_a_factor_of_eight():
    # $1.80 per NeuronCore x 8 NeuronCore-v4 per chip = $14.40 per chip-hour. Divided by the
    # per-chip ~1,800 tokens/s it is $2.22 per million, not the $0.28 the article prints.
    per_chip = cost_per_million_tokens(1.80 * 8, 1800)
    assert round(per_chip, 2) == 2.22
    assert per_chip / cost_per_million_tokens(1.80, 1800) == pytest.approx(8)


@pytest.mark.parametrize(
    ("saving_per_million", "daily_tokens", "billions", "days"),
    [
        (0.61 - 0.28, 1e9, 109, 109),  # the article: ~109B tokens, 109 days at 1B a day
        (0.61 - 0.28, 10e6, 109, 10_909),  # at 10M a day: "30 years" (29.9)
        (0.84 - 0.61, 1e9, 157, 157),
    ],
)
def test_migration_break_even(saving_per_million, daily_tokens, billions, days):
    tokens = break_even_tokens(36_000, saving_per_million)
    assert round(tokens / 1e9) == billions
    assert round(break_even_days(tokens, daily_tokens)) == days


def test_thirty_years_at_ten_million_tokens_a_day():
    tokens = break_even_tokens(36_000, 0.33)
    assert round(break_even_days(tokens, 10e6) / 365) == 30


@pytest.mark.parametrize("saving", [0.0, -1.61, math.nan])
def test_no_saving_means_no_break_even(saving):
    assert break_even_tokens(36_000, saving) is None
    assert break_even_days(None, 1e9) is None


@pytest.mark.parametrize(
    ("tokens", "tps", "price", "overhead", "expected"),
    [
        (300e9, 1000, 3.6, 0.0, 300_000),  # 83,333 chip-hours at $3.60
        (300e9, 1000, 3.6, 0.15, 345_000),
        (1e6, 1e6 / 3600, 10.0, 0.0, 10.0),  # one chip-hour
        (300e9, 26_800, 12.29, 0.15, 43_947),  # the Bits Lovers article's H100 Llama 3 70B inputs
    ],
)
def test_cost_to_train(tokens, tps, price, overhead, expected):
    assert cost_to_train(tokens, tps, price, overhead) == pytest.approx(expected, rel=1e-4)


def test_chip_hours():
    assert chip_hours(3.6e6, 1000) == pytest.approx(1.0)


@pytest.mark.parametrize(
    ("cost", "baseline", "printed"),
    [
        (164_000, 308_000, 0.47),
        (295_000, 540_000, 0.45),
        (47_000, 79_000, 0.41),
        (22_000, 29_000, 0.24),
    ],
)
def test_savings_follow_from_the_bits_lovers_cost_columns(cost, baseline, printed):
    assert round(savings_fraction(cost, baseline), 2) == printed


def test_savings_are_negative_when_dearer():
    assert savings_fraction(120, 100) == pytest.approx(-0.2)


@pytest.mark.parametrize(
    ("peak", "mfu", "parameters", "workload", "expected"),
    [
        (989.5, 0.40, 70.6e9, "training", 934.4),  # H100 BF16
        (1979, 0.10, 70.6e9, "inference", 1401.6),  # H100 FP8
        (667, 0.40, 70.6e9, "training", 629.9),  # Trainium2 BF16
        (989.5, 0.40, 0.34e9, "training", 194_020),  # BERT-Large
    ],
)
def test_derived_tokens_per_second(peak, mfu, parameters, workload, expected):
    per_token = flops_per_token(parameters, workload)
    assert derived_tokens_per_second(peak, mfu, per_token) == pytest.approx(expected, rel=1e-3)


@pytest.mark.parametrize(
    ("tps", "parameters", "workload", "peak", "expected"),
    [
        (1500, 70.6e9, "inference", 1979, 0.107),  # H200 batch 8: plausible
        (26_800, 70.6e9, "training", 1979, 5.736),  # Bits Lovers H100 Llama 3 70B: impossible
        (225_000, 0.34e9, "training", 1979, 0.232),  # Bits Lovers H100 BERT-Large: plausible
    ],
)
def test_implied_mfu(tps, parameters, workload, peak, expected):
    got = implied_mfu(tps, flops_per_token(parameters, workload), peak)
    assert got == pytest.approx(expected, abs=1e-3)


@pytest.mark.parametrize(
    ("value", "per", "chips", "expected"),
    [(12_000, "instance", 8, 1500), (1500, "chip", None, 1500), (1500, "chip", 1, 1500)],
)
def test_per_instance_figures_become_per_chip(value, per, chips, expected):
    assert tokens_per_second_per_chip(value, per, chips) == expected


@pytest.mark.parametrize(
    ("per", "chips", "message"),
    [
        ("chip", 8, "say --figure-per instance"),
        ("instance", None, "needs the instance's chip count"),
        ("instance", 0, "must be a positive number"),
        ("node", 8, "unknown unit"),
    ],
)
def test_unit_mix_ups_are_refused(per, chips, message):
    with pytest.raises(ChipcostError, match=message):
        tokens_per_second_per_chip(12_000, per, chips)


@pytest.mark.parametrize("bad", [0, -1500, math.nan, math.inf])
def test_bad_throughput_never_divides(bad):
    with pytest.raises(ChipcostError, match="tokens per second must be a positive number"):
        cost_per_million_tokens(4.54, bad)
    with pytest.raises(ChipcostError):
        cost_to_train(300e9, bad, 4.54, 0.15)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda: cost_per_million_tokens(0, 1500), "hourly price"),
        (lambda: cost_to_train(300e9, 1500, 4.54, -0.1), "overhead"),
        (lambda: savings_fraction(1.0, 0), "baseline cost"),
        (lambda: break_even_days(1e9, 0), "daily token volume"),
        (lambda: flops_per_token(70e9, "serving"), "unknown workload"),
        (lambda: flops_per_token(0, "training"), "parameter count"),
        (lambda: derived_tokens_per_second(989.5, 1.5, 4e11), "MFU"),
        (lambda: implied_mfu(1500, 1.4e11, 0), "peak"),
    ],
)
def test_other_bad_input_is_refused_with_its_name(call, message):
    with pytest.raises(ChipcostError, match=message):
        call()


@pytest.mark.parametrize(
    ("text", "expected"),
    [("300e9", 300e9), ("300B", 300e9), ("1.5T", 1.5e12), ("36,000", 36_000), ("2k", 2000),
     ("10M", 1e7), (" 1e9 ", 1e9)],
)  # fmt: skip
def test_parse_quantity(text, expected):
    assert parse_quantity(text) == expected


@pytest.mark.parametrize("text", ["", "abc", "-5", "0", "nan", "inf", "300X", "1e"])
def test_parse_quantity_refuses(text):
    with pytest.raises(ChipcostError):
        parse_quantity(text, "--tokens")


@pytest.mark.parametrize(
    ("model", "parameters"),
    [
        ("llama-3-70b", "70e9"),
        ("llama-3.1-405b", "405e9"),
        ("qwen2.5-0.5b", "0.5e9"),
        ("qwen3-30b-a3b", "30e9"),  # the active count 'a3b' is no size
        ("mixtral-8x7b", None),  # eight experts of 7B: not one size to suggest
        ("deepseek-r1", None),
        ("llama-3-8b-vs-70b", None),  # two sizes: neither is suggested
    ],
)
def test_a_model_name_states_its_size_or_none(model, parameters):
    assert parameters_in_name(model) == parameters
