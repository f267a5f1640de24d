"""A page that lists an offer twice, one copy priced and the other saying it has no price ("—",
"Contact us", civo's "N/A", crusoe's "Contact sales"), is refused as priced twice, in each HTML
source: which the provider means cannot be told, so neither loads, both are rejects naming
both copies, and the offer stays open (not withdrawn, not the priced copy's price). Each
source's recorded page with its body (the whole document where it has none) copied, one price
of the copy made the words, the copy after the page and before it. One copy alone saying it has
no price is as before: no record, and nothing kept open (the offer withdrawn)."""

from __future__ import annotations

import dataclasses
import functools
import re
import sys
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, Reject
from chipcost.core.runs import OK
from chipcost.core.settings import load_settings
from chipcost.core.vocabulary import HISTORY_KEY, OFFER_KEY
from chipcost.extract import registry
from chipcost.extract.base import offers_priced_once
from chipcost.warehouse.db import connect
from tests import warehouses
from tests.helpers import record
from tests.pipeline.test_refused_price_keeps_offer import history, replay
from tests.sources import Case, contract

SOURCES = registry()
# (source, its recorded page, a price on it, the words put in its place, the offer it prices
# as 'instance_type region pricing_model')
CASES = [
    ("civo", "pricing.html", r"\$1\.29(?=<)", "—", "1x L40S Small global on_demand"),
    ("civo", "pricing.html", r"\$1\.29(?=<)", "N/A", "1x L40S Small global on_demand"),
    ("coreweave", "pricing-2026-08-22.html", r"\$35\.84(?=<)", "Contact us",
     "NVIDIA HGX B300 north-america spot"),
    ("crusoe", "pricing-2026-08-22.html", r"\$4\.29/GPU-hr", "Contact sales",
     "1x NVIDIA H200 141GB HGX global on_demand"),
    ("gmicloud", "pricing.html", r"from \$8\.00(?=<)", "Contact us", "1x GB200 global on_demand"),
    ("lambda", "pricing-2026-08-22.html", r"\$3\.99(?=<)", "Contact us",
     "8x H100-SXM global on_demand"),
    ("modal", "pricing.html", r"\$0\.001736 / sec", "—", "1x B200 global on_demand"),
    ("nebius", "prices-2026-08-22.html", r"\$4\.30", "—", "NVIDIA HGX B300 global spot"),
    ("together-clusters", "pricing-2026-08-22.html", r"\$8\.19", "—",
     "8x HGX B200 global on_demand"),
]  # fmt: skip
IDS = [f"{source}-{words}" for source, _, _, words, _ in CASES]


def test_each_html_source_has_a_case():
    """A source reading an HTML page (extract/_html_tree.py parse_html) has a case here."""
    modules = {name: sys.modules[(s.rows or s.parse).__module__] for name, s in SOURCES.items()}
    html = {name for name, module in modules.items() if hasattr(module, "parse_html")}
    assert {source for source, *_ in CASES} == html


def case(source: str, file: str) -> Case:
    found = contract(source)
    return next(c for c in (*found.good, *found.recorded) if c.file == file)


@functools.cache
def alone(source: str, file: str) -> ParseResult:
    return SOURCES[source].parse([case(source, file).payload(source)])


def copied(
    source: str, file: str, price: str, words: str, *, first: bool, priced: str = ""
) -> Payload:
    """The page with a copy of its body, the copy's `price` made `words`; the copy after the
    body or, `first`, before it; the body's own `price` made `priced` where given."""
    found = case(source, file).payload(source)
    text = found.data.decode()
    start, end = 0, len(text)
    if "<body" in text:
        start, end = text.index(">", text.index("<body")) + 1, text.rindex("</body>")
    body = text[start:end]
    copy, made = re.subn(price, words, body)
    assert made, f"{price!r} is not in {source}/{file}"
    body = re.sub(price, priced, body) if priced else body
    both = copy + body if first else body + copy
    return dataclasses.replace(found, data=(text[:start] + both + text[end:]).encode())


def named(result: ParseResult) -> dict[str, tuple[str, ...]]:
    return {
        f"{r.instance_type} {r.region} {r.pricing_model}": r.offer_key() for r in result.records
    }


@pytest.mark.parametrize("first", [False, True], ids=["copy-after", "copy-first"])
@pytest.mark.parametrize(("source", "file", "price", "words", "offer"), CASES, ids=IDS)
def test_a_copy_saying_no_price_beside_one_pricing_it_refuses_both(
    source, file, price, words, offer, first
):
    """The priced copy was loaded, the offer seen at its price while the other copy says it
    has none; now both are rejects, each naming the offer (kept open) and both copies."""
    whole = alone(source, file)
    key = named(whole)[offer]
    result = SOURCES[source].parse([copied(source, file, price, words, first=first)])
    assert offer not in named(result)
    assert {r.offer_key(): r.price_per_hour for r in result.records} == {
        r.offer_key(): r.price_per_hour for r in whole.records if r.offer_key() != key
    }
    refused = [r for r in result.rejects if " is priced " in r.reason]
    assert len(refused) == 2
    assert [tuple(r.offer.get(name) for name in OFFER_KEY) for r in refused] == [key, key]
    [priced] = [r.price_per_hour for r in whole.records if r.offer_key() == key]
    said = f"is priced 2 times in one payload ({priced!r} USD/h; no price: "
    assert all(said in r.reason for r in refused), refused[0].reason
    assert any(words in r.reason or words in r.row_json() for r in refused)
    assert refused[0].reason == refused[1].reason


@pytest.mark.parametrize(("source", "file", "price", "words", "offer"), CASES, ids=IDS)
def test_one_copy_alone_saying_no_price_still_withdraws_its_offer(
    source, file, price, words, offer
):
    """No priced twin: no record of the offer and no reject naming it, as before."""
    found = case(source, file).payload(source)
    text, made = re.subn(price, words, found.data.decode())
    assert made
    result = SOURCES[source].parse([dataclasses.replace(found, data=text.encode())])
    key = named(alone(source, file))[offer]
    assert offer not in named(result)
    assert not [r for r in result.rejects if " is priced " in r.reason]
    assert key not in {tuple(r.offer.get(name) for name in OFFER_KEY) for r in result.rejects}


def test_the_kit_refuses_a_price_and_a_no_price_of_one_offer_in_one_payload():
    """The rule itself (extract/_priced_once.py): a reject saying its offer has no
    price (`unpriced`, its key) beside a record of that offer in the same payload refuses both,
    the reject then keeping the offer open; in another payload, or of another offer, it is
    left as it was, keeping nothing open."""
    priced = record(price_per_hour=2.8)
    key = dict(zip(OFFER_KEY, priced.offer_key(), strict=True))
    said = "h100: no price listed (—)"
    unpriced = dataclasses.replace(_reject(said, priced.payload_ref), unpriced=key)
    elsewhere = dataclasses.replace(unpriced, payload_ref="elsewhere/0002.html.gz")
    other = dataclasses.replace(unpriced, unpriced={**key, "region": "us-west-2"})
    result = offers_priced_once(ParseResult(records=[priced], rejects=[unpriced, elsewhere, other]))
    assert not result.records
    assert result.rejects[1:3] == [elsewhere, other] and not elsewhere.offer
    both = [result.rejects[0], result.rejects[3]]
    assert [r.offer for r in both] == [key, key]
    assert (
        both[0].reason
        == both[1].reason
        == (
            f"offer {' / '.join(k for k in priced.offer_key() if k)} is priced 2 times in one "
            f"payload (2.8 USD/h; no price: {said}): which price the provider means cannot be "
            "told, so none is loaded"
        )
    )


def _reject(reason: str, payload_ref: str) -> Reject:
    return Reject("test", reason, {"price": "—"}, payload_ref=payload_ref)


def archived(root: Path, source: str, day: int, found: Payload) -> Path:
    moment = datetime(2026, 11, day, 6, 0, tzinfo=UTC)
    stamp = moment.strftime("%Y-%m-%dT%H%M%SZ")
    writer = ArchiveWriter(root / "a", stamp, source)
    writer.write(found.data, found.url, ext="html", fetched_at=moment)
    writer.finish()
    return root / "a" / stamp


@pytest.mark.parametrize(
    ("source", "file", "price", "words", "offer", "priced"),
    [(*CASES[1], "$1.49"), (*CASES[6], "$0.001800 / sec")],
    ids=[IDS[1], IDS[6]],
)
def test_an_offer_refused_so_keeps_its_price_open_in_the_warehouse(
    tmp_path, source, file, price, words, offer, priced
):
    """The page alone one day, the next its two copies, the priced one at a new price: the
    offer's history keeps the first day's price open, neither moved to the copy's (as it was:
    civo's 1.29 became 1.49, modal's B200 6.2496 6.48) nor withdrawn."""
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    day = case(source, file).payload(source)
    first = replay(settings, source, archived(tmp_path, source, 20, day))
    twice = copied(source, file, price, words, first=False, priced=priced)
    second = replay(settings, source, archived(tmp_path, source, 21, twice))
    assert first.status == OK and second.status == OK, second.message
    key = (source, *named(alone(source, file))[offer])
    after = history(settings.db_path)
    assert after[key] is None and "withdrawn" not in after.values()
    [was] = [r.price_per_hour for r in alone(source, file).records if r.offer_key() == key[1:]]
    assert prices_of(settings.db_path)[key] == [was]


def prices_of(db: Path) -> dict[tuple[str, ...], list[float]]:
    """Each offer's prices in price_history, oldest first."""
    key = ", ".join(HISTORY_KEY)
    con = connect(db, read_only=True)
    try:
        rows = con.execute(
            f"SELECT {key}, price_per_hour FROM price_history ORDER BY valid_from"
        ).fetchall()
    finally:
        con.close()
    found: dict[tuple[str, ...], list[float]] = {}
    for row in rows:
        found.setdefault(tuple(row[:-1]), []).append(row[-1])
    return found
