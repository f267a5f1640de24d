"""A cost per million tokens as every output shows it: 3 significant digits below a cent."""

from __future__ import annotations

import pytest

from chipcost.transform.cost import cost_text


@pytest.mark.parametrize(
    ("usd", "shown"),
    [
        (0.181294, "$0.1813"),
        (3.0625, "$3.0625"),
        (0.0166, "$0.0166"),
        # bert-large on B200, B300 and L40S: all three read $0.0009 (or $0.0007) at 4 decimals
        (0.000701, "$0.000701"),
        (0.000873, "$0.000873"),
        (0.000911, "$0.000911"),
        (0.0, "$0.0000"),
        (1234.5, "$1,234.5000"),
    ],
)
def test_cost_text(usd, shown):
    assert cost_text(usd) == shown
