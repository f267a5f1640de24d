"""sample/REFERENCES.md: every offer it lists is in the sample archive's last run at the price
it states, and within 2% of the public price where one was found; the rest say "estimate", in
this table and in the sample's data (the record's extra, carried from the payload's mark)."""

from __future__ import annotations

from functools import cache
from pathlib import Path

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


def last_run_dir() -> Path:
    return sorted(path for path in ARCHIVE.iterdir() if path.is_dir())[-1]


@cache
def last_run(source: str) -> tuple[PriceRecord, ...]:
    return tuple(registry()[source].parse(read_payloads(last_run_dir(), source)).records)


def sample_offer(row: dict[str, str]) -> PriceRecord:
    found = [
        r
        for r in last_run(row["source"])
        if (r.source, r.region, r.instance_type, r.pricing_model, r.term)
        == tuple(row[k] for k in KEY)
    ]
    assert found, f"{[row[k] for k in KEY]} is not in the sample's last run"
    return min(found, key=lambda r: r.price_per_hour)


@cache
def usd_per(currency: str) -> float:
    """US dollars one unit of `currency` bought on the last day of the sample's ECB rates (the
    ecb-rates source's last run), as every read converts a price stored in euros."""
    if currency == "USD":
        return 1.0
    assert currency == "EUR", f"no sample price is stored in {currency}"
    facts = registry()["ecb-rates"].parse(read_payloads(last_run_dir(), "ecb-rates")).facts
    dollar = [r for r in facts["fx_rates"] if r["currency"] == "USD"]
    return float(max(dollar, key=lambda r: r["day"])["per_eur"])


def estimated(row: dict[str, str]) -> bool:
    return row["public USD/h"] == "none found"


def test_the_table_covers_the_offers_the_articles_compare():
    rows = offers()
    chips = {row["chip"] for row in rows}
    assert {"H100-SXM", "H200", "B200", "Trainium2", "MI300X"} <= chips
    assert {"aws", "gcp", "azure", "oci", "coreweave", "lambda"} <= {r["provider"] for r in rows}
    assert sum(row["public USD/h"] != "none found" for row in rows) >= 15


@pytest.mark.parametrize("row", offers(), ids=lambda r: f"{r['provider']}:{r['instance_type']}:"
                         f"{r['pricing_model']}:{r['term']}:{r['region']}")  # fmt: skip
def test_the_sample_holds_the_public_price_or_says_estimate(row):
    offer = sample_offer(row)
    price = offer.price_per_hour * usd_per(offer.currency)  # as a read shows it
    assert price == pytest.approx(float(row["sample USD/h"]), rel=1e-6)
    if estimated(row):
        assert row["public source, date and words"].startswith("estimate")
        # The data says it as well: the payload's mark, in the record's extra.
        assert offer.extra.get("estimate"), f"{offer.instance_type}: no estimate in its extra"
    else:
        assert price == pytest.approx(float(row["public USD/h"]), rel=0.02)
        assert "estimate" not in offer.extra


def sampled_sources() -> list[str]:
    return [source for source in registry() if (last_run_dir() / source).is_dir()]


def test_every_sample_price_is_traced_here_or_marked_an_estimate():
    """Issue 47: each price of the sample's last run is an offer this table traces (source,
    date, the page's words) or carries the payload's estimate mark, saying what it rests on."""
    traced = {tuple(row[k] for k in KEY) for row in offers() if not estimated(row)}
    uncovered = {
        source
        for source in sampled_sources()
        for r in last_run(source)
        if "estimate" not in r.extra
        and (r.source, r.region, r.instance_type, r.pricing_model, r.term) not in traced
    }
    assert not uncovered, f"prices neither traced nor marked: {sorted(uncovered)}"


def test_every_estimate_mark_says_what_it_rests_on_and_no_traced_offer_is_marked():
    traced = {tuple(row[k] for k in KEY) for row in offers() if not estimated(row)}
    for source in sampled_sources():
        for r in last_run(source):
            if "estimate" in r.extra:
                assert len(r.extra["estimate"]) > 2, r.instance_type
                key = (r.source, r.region, r.instance_type, r.pricing_model, r.term)
                assert key not in traced, key
