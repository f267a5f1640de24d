"""An API answer listing an offer once with its price null or "Contact us" withdraws it, in
each JSON source whose unpriced row names its offer: the source's recorded answers
(tests/fixtures/<source>/contract.toml) loaded into a warehouse on one day, then again with
one row's price made null or the words, its offers' price rows are closed as withdrawn, and
nothing else is (docs/sources.md, docs/operations.md: "a cell saying the offer is not sold
... names no offer, so its offer is withdrawn"). A copy of the row so saying beside the row
pricing it keeps its offers open instead, both copies refused as priced twice
(tests/extract/test_unpriced_json_copies.py, tests/extract/test_unpriced_json_copies_more.py
read the same rows).

The reject of such a row named the row's sku, which these sources' records carry too
(daytona's GPU name, hyperbolic's instance type, fluidstack's GPU type, a DigitalOcean size's
slug, ...), and the warehouse keeps every offer of a refused row's sku open: the offer stayed
open at the price the provider no longer lists (extract/base.py Page.no_price). So did the pages of
civo, coreweave, lambda and together-clusters, a price cell saying "—", "Contact us", "N/A" or
nothing: each recorded page one day, the next with one price so said (or beside a copy of the
page pricing it, kept open)."""

from __future__ import annotations

import dataclasses
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.payload import Payload
from chipcost.core.runs import OK
from chipcost.core.settings import load_settings
from chipcost.core.vocabulary import OFFER_KEY
from tests import warehouses
from tests.extract.test_unpriced_copies import case as html_case
from tests.extract.test_unpriced_copies import copied
from tests.extract.test_unpriced_json_copies import CASES as NAMED
from tests.extract.test_unpriced_json_copies_more import CASES as MORE
from tests.extract.test_unpriced_json_copies_more import _said, payloads, recorded, the_row
from tests.pipeline.test_refused_price_keeps_offer import history, keys, label, replay
from tests.sources import contract

# (source, its recorded answer, the row (paths of its fields and their values, naming it
# alone), the path of its price): the cases of the copies' tests whose answer is among the
# source's good ones (not hyperbolic's spot row of bad rows).
CASES = [
    case
    for case in [
        *((source, file, row, path) for source, file, row, path, *_ in MORE),
        *((source, file, ((path, price),), path) for source, file, path, price, _ in NAMED),
    ]
    if case[1] in {good.file for good in contract(case[0]).good}
]
SAID = [
    pytest.param(*case, words, id=f"{case[0]}-{case[3][-1]}-{'null' if words is None else 'words'}")
    for case in CASES
    for words in (None, "Contact us")
]


def answers(source: str, file: str, row: Any, path: Any, words: str | None, *, twin: bool):
    """The source's recorded answers, the row's price made `words`; `twin`: in a copy of the
    row after it, the row kept."""
    body = recorded(source, file)
    rows, at = the_row(body, row)
    said = _said(rows[at], path, words)
    if not twin:
        rows[at] = said
    elif isinstance(rows, list):
        rows.append(said)
    else:  # an object keyed by name: the copy under another key
        rows["copy"] = said
    return payloads(source, file, body)


def archived(root: Path, source: str, day: int, found: list[Payload]) -> Path:
    """One archived run of `source` on `day` (November 2026) answering `found`."""
    moment = datetime(2026, 11, day, 6, 0, tzinfo=UTC)
    stamp = moment.strftime("%Y-%m-%dT%H%M%SZ")
    writer = ArchiveWriter(root / "a", stamp, source)
    for payload in found:
        ext = Path(payload.name).suffix.lstrip(".")
        request = payload.request or None
        writer.write(payload.data, payload.url, ext=ext, fetched_at=moment, request=request)
    writer.finish()
    return root / "a" / stamp


def two_days(tmp_path: Path, source: str, second_day: list[Payload]):
    """The recorded answers loaded on the 20th, `second_day` on the 21st: both runs' results
    and each offer's latest price row (None while open, else why it ended)."""
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    good = [case.payload(source) for case in contract(source).good]
    first = replay(settings, source, archived(tmp_path, source, 20, good))
    second = replay(settings, source, archived(tmp_path, source, 21, second_day))
    assert first.status == OK and second.status == OK, second.message
    return first, second, history(settings.db_path)


@pytest.mark.parametrize(("source", "file", "row", "path", "words"), SAID)
def test_an_offer_listed_once_with_no_price_is_withdrawn(tmp_path, source, file, row, path, words):
    """Each offer the row priced is closed as withdrawn on the second day (it stayed open: the
    row's reject named the sku its records carry), and no other offer is."""
    second_day = answers(source, file, row, path, words, twin=False)
    first, second, after = two_days(tmp_path, source, second_day)
    gone = keys(first) - keys(second)
    assert gone
    assert not [r for r in second.rejects if " is priced " in r.reason]
    assert {label(key): after[key] for key in gone} == dict.fromkeys(map(label, gone), "withdrawn")
    assert {key for key, why in after.items() if why is not None} == gone


@pytest.mark.parametrize(("source", "file", "row", "path", "words"), SAID)
def test_a_copy_with_no_price_beside_the_row_pricing_it_keeps_its_offers_open(
    tmp_path, source, file, row, path, words
):
    """The row and a copy of it saying it has no price: the offers its price prices are
    refused as priced twice, and kept open, none withdrawn."""
    second_day = answers(source, file, row, path, words, twin=True)
    first, second, after = two_days(tmp_path, source, second_day)
    refused = keys(first) - keys(second)
    assert refused
    assert {label(key) for key in refused} <= {
        label((r.source, *(r.offer.get(n) for n in OFFER_KEY)))
        for r in second.rejects
        if " is priced 2 times " in r.reason
    }
    assert {label(key): after[key] for key in refused} == dict.fromkeys(map(label, refused))
    assert "withdrawn" not in after.values()


# The HTML sources whose unpriced cell's reject named the row's sku, which their records carry
# too (civo's size, coreweave's product, lambda's plan, together-clusters' node type): their
# recorded page one day, the next the same page with one price made words saying it has none.
# Each page's own such cells say the offer is not sold so: civo's "N/A" (a size not rented on
# demand), coreweave's empty on-demand and "N/A" spot cells, together-clusters' "—" beside
# its reserved-only node types; none asks for a price a day's page no longer shows.
# (source, its recorded page, a price on it, the offer it prices as in tests/extract/
# test_unpriced_copies.py)
PAGES = [
    ("civo", "pricing.html", r"\$1\.29(?=<)", "1x L40S Small global on_demand"),
    ("coreweave", "pricing-2026-08-22.html", r"\$35\.84(?=<)",
     "NVIDIA HGX B300 north-america spot"),
    ("lambda", "pricing-2026-08-22.html", r"\$3\.99(?=<)", "8x H100-SXM global on_demand"),
    ("together-clusters", "pricing-2026-08-22.html", r"\$8\.19", "8x HGX B200 global on_demand"),
]  # fmt: skip
UNPRICED = [
    pytest.param(*page, words, id=f"{page[0]}-{words or 'empty'}")
    for page in PAGES
    for words in ("—", "Contact us", "N/A", "")
]


def page_days(tmp_path: Path, source: str, file: str, second_day: Payload):
    """The recorded page loaded on the 20th, `second_day` on the 21st: both runs' results and
    each offer's latest price row (None while open, else why it ended)."""
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    page = html_case(source, file).payload(source)
    first = replay(settings, source, archived(tmp_path, source, 20, [page]))
    second = replay(settings, source, archived(tmp_path, source, 21, [second_day]))
    assert first.status == OK and second.status == OK, second.message
    return first, second, history(settings.db_path)


@pytest.mark.parametrize(("source", "file", "price", "offer", "words"), UNPRICED)
def test_a_page_listing_an_offer_once_with_no_price_withdraws_it(
    tmp_path, source, file, price, offer, words
):
    """The offer whose price the page's cell now says it has none is closed as withdrawn (it
    stayed open at the price no longer listed: the cell's reject named the row's sku, which
    the offer's records carry), and no other offer is."""
    found = html_case(source, file).payload(source)
    text, made = re.subn(price, words, found.data.decode())
    assert made
    first, second, after = page_days(
        tmp_path, source, file, dataclasses.replace(found, data=text.encode())
    )
    gone = keys(first) - keys(second)
    assert {label(key) for key in gone} == {offer}
    assert not [r for r in second.rejects if " is priced " in r.reason]
    assert {key: why for key, why in after.items() if why is not None} == dict.fromkeys(
        gone, "withdrawn"
    )


@pytest.mark.parametrize(("source", "file", "price", "offer", "words"), UNPRICED[1::4])
def test_a_copy_with_no_price_beside_the_row_pricing_it_keeps_its_offer_open(
    tmp_path, source, file, price, offer, words
):
    """The page and a copy of it whose price says it has none: the offer is refused as priced
    twice, and kept open, none withdrawn."""
    twice = copied(source, file, price, words, first=False)
    first, second, after = page_days(tmp_path, source, file, twice)
    refused = keys(first) - keys(second)
    assert {label(key) for key in refused} == {offer}
    assert len([r for r in second.rejects if " is priced 2 times " in r.reason]) == 2
    assert {label(key): after[key] for key in refused} == {offer: None}
    assert "withdrawn" not in after.values()
