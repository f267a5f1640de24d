"""SQL literals read back as the values they were made from."""

from __future__ import annotations

import duckdb
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chipcost.warehouse.literals import listed, literal

CON = duckdb.connect()


@settings(max_examples=300, deadline=None)
@given(
    st.one_of(
        st.text(alphabet=st.characters(blacklist_characters="\x00", blacklist_categories=["Cs"])),
        st.floats(allow_nan=False, allow_infinity=False),
        st.integers(-(2**62), 2**62),
        st.booleans(),
    )
)
@example(0.048308097052996116)  # 18 significant digits: read as a DECIMAL, it came back one off
@example(5e-324)
def test_a_literal_reads_back_as_its_value(value):
    (read,) = CON.execute(f"SELECT {literal(value)}").fetchall()[0]
    assert read == value and type(read) is type(value)


def test_an_in_list_matches_its_values():
    values = ["it's", "a", "O'Brien; DROP TABLE x; --"]
    rows = CON.execute(
        f"SELECT v FROM (VALUES ('a'), ('b'), ('it''s')) t(v) WHERE v IN {listed(values)}"
    ).fetchall()
    assert sorted(rows) == [("a",), ("it's",)]


@pytest.mark.parametrize("value", [float("inf"), float("nan"), "a\x00b", "eu-\udcff"])
def test_values_without_a_literal_are_refused(value):
    with pytest.raises(ValueError):
        literal(value)
