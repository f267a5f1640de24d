"""One gate for every throughput figure, whoever adds it: `throughput add` and `import`,
`measure` and the catalogue's loader all make figures with figure_from_row, which holds each
to the bounds of chipcost.transform.figure_bounds. Checked here through that one door with
each origin, and on the command line for `add` and `import` (tests/cli/test_figure_gate.py)."""

from __future__ import annotations

import math

import pytest
from hypothesis import given
from hypothesis import strategies as st

from chipcost.core.catalog import canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.transform.figure_bounds import (
    MAX_CHIPS,
    MAX_TOKENS_PER_SECOND,
    MIN_TOKENS_PER_SECOND,
)
from chipcost.transform.throughput_figures import figure_from_row

ROW = {
    "chip": "H100-SXM", "model": "llama-3-70b", "workload": "inference", "kind": "benchmark",
    "tokens_per_second": "1500", "per": "instance", "chips": "8", "source": "a test",
    "source_date": "2026-11-01", "operating_point": "max-throughput",
}  # fmt: skip
ORIGINS = ("user", "reference")


def _figure(origin: str, **changed: str):
    return figure_from_row(
        {**ROW, **changed}, chips=canonical_chips(), origin=origin, throughput_id="t"
    )


@pytest.mark.parametrize("origin", ORIGINS)
@given(chips=st.floats(min_value=0.01, max_value=600, allow_nan=False).filter(
    lambda c: c != int(c)))  # fmt: skip
def test_a_fraction_of_a_chip_is_refused(origin, chips):
    with pytest.raises(ChipcostError, match="is not a whole number of chips"):
        _figure(origin, chips=repr(chips))


@pytest.mark.parametrize("origin", ORIGINS)
@pytest.mark.parametrize(
    ("workload", "point"), [("inference", "max-throughput"), ("training", "training")]
)
@given(extra=st.integers(min_value=1, max_value=10**12))
def test_more_chips_than_one_system_are_refused(origin, workload, point, extra):
    chips = MAX_CHIPS[workload] + extra
    with pytest.raises(ChipcostError, match=f"give 1 to {MAX_CHIPS[workload]:,} chips"):
        _figure(origin, chips=str(chips), workload=workload, operating_point=point)


@pytest.mark.parametrize("origin", ORIGINS)
def test_the_bounds_themselves_are_taken(origin):
    assert _figure(origin, chips="576").chips == 576
    training = _figure(origin, chips="16384", workload="training", operating_point="training")
    assert training.chips == 16_384


@pytest.mark.parametrize("origin", ORIGINS)
@given(rate=st.floats(min_value=1e-300, max_value=MIN_TOKENS_PER_SECOND * 8, exclude_max=True))
def test_a_rate_below_the_floor_is_refused(origin, rate):
    # per instance of 8 chips: below 0.01 per chip
    with pytest.raises(ChipcostError, match="tokens/s per chip is below 0.01"):
        _figure(origin, tokens_per_second=repr(rate))


@pytest.mark.parametrize("origin", ORIGINS)
@given(rate=st.floats(min_value=MAX_TOKENS_PER_SECOND * 8, max_value=1e308, exclude_min=True))
def test_a_rate_past_any_chip_is_refused_in_a_short_line(origin, rate):
    # per instance of 8 chips: over a billion per chip (1e308 said in 309 digits before)
    with pytest.raises(ChipcostError, match="more than any chip processes") as refused:
        _figure(origin, tokens_per_second=repr(rate))
    assert len(str(refused.value)) < 300


@pytest.mark.parametrize("origin", ORIGINS)
@pytest.mark.parametrize("text", ["nan", "inf", "-inf", "1e999", "-5", "0", "NaN"])
def test_a_rate_that_is_no_positive_number_is_refused(origin, text):
    with pytest.raises(ChipcostError):
        _figure(origin, tokens_per_second=text)


@pytest.mark.parametrize("origin", ORIGINS)
@given(
    day=st.dates(
        min_value=__import__("datetime").date(2000, 1, 1),
        max_value=__import__("datetime").date(2026, 11, 1),
    )
)
def test_real_days_are_taken(origin, day):
    assert _figure(origin, source_date=day.isoformat()).source_date == day.isoformat()


@pytest.mark.parametrize("origin", ORIGINS)
@pytest.mark.parametrize("text", ["0001-01-01", "1999-12-31", "1999"])
def test_days_before_any_chip_are_refused(origin, text):
    with pytest.raises(ChipcostError, match="is before 2000"):
        _figure(origin, source_date=text)


@pytest.mark.parametrize("origin", ORIGINS)
@pytest.mark.parametrize(
    "text", ["2026-02-30", "2025-02-29", "2026-04-31", "2026-00", "2026-13", "2026-01-00",
             "2026-06-32"],
)  # fmt: skip
def test_days_that_do_not_exist_are_refused(origin, text):
    with pytest.raises(ChipcostError, match="is not a day that exists"):
        _figure(origin, source_date=text)


def test_a_per_chip_rate_is_the_instance_rate_over_whole_chips():
    figure = _figure("user", chips="8", tokens_per_second="1500")
    assert figure.chips == 8 and math.isclose(figure.tokens_per_second_per_chip, 1500 / 8)
