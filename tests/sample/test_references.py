"""sample/REFERENCES.md: every offer it lists is in the sample archive's last run at the price
it states, and within 2% of the public price where one was found; the rest say "estimate"."""

from __future__ import annotations

from functools import cache

import pytest

from chipcost.archive import read_payloads
from chipcost.core.record import PriceRecord
from chipcost.extract import registry
from chipcost.sample import ARCHIVE
from tests.paths import ROOT

REFERENCES = ROOT / "sample" / "REFERENCES.md"
KEY = ("source", "region", "instance_type", "pricing_model", "term")


def offers() -> list[dict[str, str]]:
    """The rows of the table under '## Offers', by header."""
    table = REFERENCES.read_text(encoding="utf-8").split("## Offers", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in table.splitlines() if line.startswith("|")]
    cells = [[c.strip() for c in line.strip("|").split(" | ")] for line in lines]
    header, rows = cells[0], cells[2:]
    return [dict(zip(header, row, strict=True)) for row in rows]


@cache
def last_run(source: str) -> tuple[PriceRecord, ...]:
    run = sorted(path for path in ARCHIVE.iterdir() if path.is_dir())[-1]
    return tuple(registry()[source].parse(read_payloads(run, source)).records)


def sample_price(row: dict[str, str]) -> float:
    found = [
        r.price_per_hour
        for r in last_run(row["source"])
        if (r.source, r.region, r.instance_type, r.pricing_model, r.term)
        == tuple(row[k] for k in KEY)
    ]
    assert found, f"{[row[k] for k in KEY]} is not in the sample's last run"
    return min(found)


def test_the_table_covers_the_offers_the_articles_compare():
    rows = offers()
    chips = {row["chip"] for row in rows}
    assert {"H100-SXM", "H200", "B200", "Trainium2", "MI300X"} <= chips
    assert {"aws", "gcp", "azure", "oci", "coreweave", "lambda"} <= {r["provider"] for r in rows}
    assert sum(row["public USD/h"] != "none found" for row in rows) >= 15


@pytest.mark.parametrize("row", offers(), ids=lambda r: f"{r['provider']}:{r['instance_type']}:"
                         f"{r['pricing_model']}:{r['term']}:{r['region']}")  # fmt: skip
def test_the_sample_holds_the_public_price_or_says_estimate(row):
    price = sample_price(row)
    assert price == pytest.approx(float(row["sample USD/h"]), rel=1e-6)
    if row["public USD/h"] == "none found":
        assert row["public source, date and words"].startswith("estimate")
    else:
        assert price == pytest.approx(float(row["public USD/h"]), rel=0.02)
