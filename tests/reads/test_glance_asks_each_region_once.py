"""`prices` at a glance asks whether a region is restricted once a region, not once a price:
the glance reads every current price, and the rule's patterns matched for each of 73,000 at
ten years of history in 46 regions (twice more for the note of what it set apart) were
about 0.15 s of the command's CPU (docs/performance.md). What it says is the same."""

from __future__ import annotations

import duckdb
import pytest

from chipcost.core import vocabulary
from tests import warehouses
from tests.cli_runner import chipcost


class _Counted(tuple):
    """RESTRICTED_REGIONS, counting the times the rule reads it: once a region it is asked of."""

    read = 0

    def __iter__(self):
        type(self).read += 1
        return super().__iter__()


@pytest.fixture(scope="module")
def sample(tmp_path_factory):
    return warehouses.sample(tmp_path_factory.mktemp("glance") / "w.duckdb")


def test_the_glance_asks_each_region_once(sample, monkeypatch):

    monkeypatch.setattr(vocabulary, "RESTRICTED_REGIONS", _Counted(vocabulary.RESTRICTED_REGIONS))
    with duckdb.connect(str(sample), read_only=True) as con:
        (regions, prices) = con.execute(
            "SELECT count(DISTINCT region), count(*) FROM per_chip_prices"
        ).fetchone()
    vocabulary.restricted_region.cache_clear()  # a region another test asked of: not again
    ran = chipcost("prices", "--db", str(sample))
    assert ran.returncode == 0, ran.stderr
    assert "cheapest current offer of each chip" in ran.stdout
    assert prices > 2 * regions
    assert 0 < _Counted.read <= regions
