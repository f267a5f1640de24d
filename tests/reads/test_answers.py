"""Each read answered once (chipcost.reads.answers), for the command line and the Python API:
the same offers as a terminal's rows or a frame, why nothing matched in the asker's words, the
warehouse closed after every read, its checks made before the warehouse is opened. Real DuckDB
files."""

from __future__ import annotations

import duckdb
import pytest

from chipcost.core.asks import HISTORY, INDEX, PRICES
from chipcost.core.errors import UsageError
from chipcost.reads import answers
from tests.helpers import loaded_warehouse, record


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    spot = record(pricing_model="spot", zone="us-east-1a", price_per_hour=20.0)
    trn1 = record(instance_type="trn1.32xlarge", chip="Trainium1", chip_count=16.0)
    return loaded_warehouse(tmp_path_factory.mktemp("answers") / "w.duckdb", [record(), spot, trn1])


def test_rows_and_frame_hold_the_same_offers(db):
    asked = PRICES.given({"chip": ["H100-SXM"], "db": db})
    rows = answers.prices(asked, rows=True)
    frame = answers.prices(asked)
    assert rows.found.rows and not rows.empty and not frame.empty
    columns = ("instance_type", "pricing_model", "zone", "price_per_chip_hour")
    assert [tuple(r[c] for c in columns) for r in rows.found.rows] == frame.found.frame.select(
        columns
    ).rows()


def test_from_python_each_offer_is_once(db):
    asked = PRICES.given({"chip": ["H100-SXM"], "db": db})
    terminal = answers.prices(asked).found.frame
    api = answers.prices(asked, api=True).found.frame
    # the spot zone's offer is also its region's cheapest row on the terminal, once from Python
    assert terminal.height == api.height + 1
    assert api.filter(api["pricing_model"] == "spot")["cheapest_in_region"].to_list() == [True]


def test_why_nothing_matched_is_said_in_the_askers_words(db):
    asked = PRICES.given({"chip": ["H100-SXM"], "max_price": 0.5, "spot": True, "db": db})
    said = answers.prices(asked, rows=True).empty
    assert said and said.endswith("some match without --max-price 0.5")  # not without --spot
    assert answers.prices(asked, api=True).empty is None


def test_several_chips_each_without_a_row_say_why(db):
    asked = HISTORY.given({"chip": ["H100-SXM", "Trainium1", "H200"], "db": db})
    answer = answers.history(asked)
    assert answer.empty is None and set(answer.missing or {}) == {"H200"}
    assert answers.history(asked, api=True).missing is None


@pytest.mark.parametrize(
    ("read", "asked"),
    [
        (answers.prices, PRICES.given({"chip": ["H100-SXM"]})),
        (answers.history, HISTORY.given({"chip": ["H100-SXM"]})),
        (answers.index, INDEX.given({})),
    ],
)
def test_the_warehouse_is_closed_after_the_read(db, read, asked):
    read({**asked, "db": db})
    writer = duckdb.connect(str(db))  # a read-only connection still open would refuse it
    writer.close()


def test_a_wrong_day_is_refused_before_the_warehouse_is_opened(tmp_path):
    asked = INDEX.given({"since": "2026-13-01", "db": tmp_path / "none.duckdb"})
    with pytest.raises(UsageError, match="since='2026-13-01': give a day as YYYY-MM-DD"):
        answers.index(asked, api=True)
    with pytest.raises(UsageError, match="--since '2026-13-01' is not a day"):
        answers.index(asked)


@pytest.mark.parametrize(
    ("given", "top"),
    [
        ("10%", 10.0),
        ("10", 10.0),
        ("5-10%", 10.0),
        ("<5%", 5.0),
        (">20%", 100.0),
        ("15 - 20 %", 20.0),
    ],
)
def test_an_interruption_bucket_as_printed_is_its_top(given, top):
    from chipcost.reads.cost_asked import interruption_percent

    assert interruption_percent(given) == top


@pytest.mark.parametrize("given", ["often", "-5", "5-", "<", "101", "20-120%"])
def test_what_is_no_interruption_percent_is_refused(given):
    from chipcost.reads.cost_asked import interruption_percent

    with pytest.raises(UsageError, match="give a percent from 0 to 100, e.g. 10%, or one of AWS"):
        interruption_percent(given)
