"""An API answer that lists an offer twice, one copy priced and the other saying it has no price
(null, "Contact us"), is refused as priced twice, as a page listing it so is
(tests/extract/test_unpriced_copies.py): neither copy loads, both are rejects naming both, and
the offer stays open (not withdrawn, not the priced copy's price). Each JSON source whose
answer is a list that can hold a row twice and whose unpriced row names its offer: its
recorded answer with the row of one price copied, the copy's price made the words, the copy
after the row's list or before it. One copy alone saying it has no price is as before: no
record, and nothing kept open (the offer withdrawn)."""

from __future__ import annotations

import copy
import dataclasses
import functools
import inspect
import json
import sys
from typing import Any

import pytest

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.core.vocabulary import OFFER_KEY
from chipcost.extract import registry
from tests.extract.test_unpriced_json_copies_more import CASES as MORE
from tests.sources import contract

SOURCES = registry()
# (source, its recorded answer, the field of a row holding a price (a path into the row), that
# price, the offer it prices as 'instance_type region pricing_model')
CASES = [
    ("daytona", "gpu-pricing.json", ("onDemandPricePerHour",), 7.1, "1x B300 global on_demand"),
    ("hyperbolic", "vms.json", ("Price",), 1.39, "1x-H100-28-271 global on_demand"),
    ("latitude", "plans.json", ("pricing", "USD", "hour"), 52, "g4-rtx6kpro-large japan on_demand"),
    ("mithril", "spot-availability.json", ("last_instance_price",), "$0.50",
     "a100-80gb.sxm.1x us-central3-a spot"),
    ("shadeform", "instances-types.json", ("hourly_price",), 1560,
     "hyperstack/H100x8-NVLINK montreal-canada-2 on_demand"),
    ("verda", "instance-types.json", ("spot_price",), "1.98", "1B300.30V global spot"),
    ("voltagepark", "instant-deploy-presets.json", ("compute_rate_hourly",), "3.780000",
     "2x h100-sxm5-80gb VM 52c 232GB global on_demand"),
]  # fmt: skip
# Each case with each no price, JSON's null and the words; but verda's spot_price null says
# the type is not sold on spot, skipped as a field it need not send (its OPTIONAL), no reject.
SAID = [
    pytest.param(*case, words, id=f"{case[0]}-{'null' if words is None else 'contact-us'}")
    for case in CASES
    for words in (None, "Contact us")
    if not (case[0] == "verda" and words is None)
]
# The HTML sources, tested by tests/extract/test_unpriced_copies.py.
HTML = {"civo", "coreweave", "crusoe", "gmicloud", "lambda", "modal", "nebius"}
HTML |= {"together-clusters"}


def test_each_json_source_naming_an_unpriced_offer_has_a_case():
    """A source passing the offer of a row saying it has no price (extract/base.py
    Page.no_price's `unpriced`, unpriced_skips) that reads JSON has a case here or in
    tests/extract/test_unpriced_json_copies_more.py."""
    modules = {name: sys.modules[(s.rows or s.parse).__module__] for name, s in SOURCES.items()}
    naming = {
        name
        for name, module in modules.items()
        if ("unpriced=" in inspect.getsource(module) or hasattr(module, "unpriced_skips"))
        and module.__name__ != "chipcost.extract.base"
    }
    assert {source for source, *_ in [*CASES, *MORE]} == naming - HTML


def payloads(source: str, file: str, body: Any = None) -> list[Payload]:
    """The source's recorded answers, the one of `file` made `body` where given."""
    found = [case.payload(source) for case in contract(source).good]
    if body is None:
        return found
    data = json.dumps(body).encode()
    return [dataclasses.replace(p, data=data) if p.name == file else p for p in found]


@functools.cache
def alone(source: str, file: str) -> ParseResult:
    return SOURCES[source].parse(payloads(source, file))


def the_row(body: Any, path: tuple[str, ...], price: object) -> tuple[list[Any], int]:
    """The list holding the one row whose `path` is `price`, and its place there."""
    found: list[tuple[list[Any], int]] = []

    def walk(value: Any) -> None:
        if isinstance(value, dict):
            for item in value.values():
                walk(item)
        elif isinstance(value, list):
            for at, item in enumerate(value):
                if isinstance(item, dict) and _at(item, path) == price:
                    found.append((value, at))
                walk(item)

    walk(body)
    assert len(found) == 1, f"{len(found)} rows price {price!r} at {path}"
    return found[0]


def _at(row: dict[str, Any], path: tuple[str, ...]) -> object:
    value: Any = row
    for name in path:
        value = value.get(name) if isinstance(value, dict) else None
    return value


def _said(row: dict[str, Any], path: tuple[str, ...], words: str | None) -> dict[str, Any]:
    said = copy.deepcopy(row)
    inner = said
    for name in path[:-1]:
        inner = inner[name]
    inner[path[-1]] = words
    return said


def copied(
    source: str, file: str, path: tuple[str, ...], price: object, words: str | None, *, first: bool
) -> list[Payload]:
    """The answers, the priced row's list holding a copy of it saying `words`: first or last."""
    body = json.loads(contract_file(source, file).data)
    rows, at = the_row(body, path, price)
    said = _said(rows[at], path, words)
    rows.insert(0, said) if first else rows.append(said)
    return payloads(source, file, body)


def contract_file(source: str, file: str) -> Payload:
    return next(p for p in payloads(source, file) if p.name == file)


def named(result: ParseResult) -> dict[str, tuple[str, ...]]:
    return {
        f"{r.instance_type} {r.region} {r.pricing_model}": r.offer_key() for r in result.records
    }


@pytest.mark.parametrize("first", [False, True], ids=["copy-after", "copy-first"])
@pytest.mark.parametrize(("source", "file", "path", "price", "offer", "words"), SAID)
def test_a_copy_saying_no_price_beside_one_pricing_it_refuses_both(
    source, file, path, price, offer, first, words
):
    """The priced copy was loaded, the offer seen at its price while the other copy says it
    has none; now both are rejects, each naming the offer (kept open) and both copies."""
    whole = alone(source, file)
    key = named(whole)[offer]
    result = SOURCES[source].parse(copied(source, file, path, price, words, first=first))
    assert offer not in named(result)
    assert {r.offer_key(): r.price_per_hour for r in result.records} == {
        r.offer_key(): r.price_per_hour for r in whole.records if r.offer_key() != key
    }
    refused = [r for r in result.rejects if " is priced " in r.reason]
    assert len(refused) == 2, [r.reason for r in result.rejects]
    assert [tuple(r.offer.get(name) for name in OFFER_KEY) for r in refused] == [key, key]
    [priced] = [r.price_per_hour for r in whole.records if r.offer_key() == key]
    said = f"is priced 2 times in one payload ({priced!r} USD/h; no price: "
    assert all(said in r.reason for r in refused), refused[0].reason
    assert refused[0].reason == refused[1].reason


@pytest.mark.parametrize(("source", "file", "path", "price", "offer", "words"), SAID)
def test_one_copy_alone_saying_no_price_still_withdraws_its_offer(
    source, file, path, price, offer, words
):
    """No priced twin: no record of the offer and no reject naming it, as before."""
    body = json.loads(contract_file(source, file).data)
    rows, at = the_row(body, path, price)
    rows[at] = _said(rows[at], path, words)
    result = SOURCES[source].parse(payloads(source, file, body))
    key = named(alone(source, file))[offer]
    assert offer not in named(result)
    assert not [r for r in result.rejects if " is priced " in r.reason]
    assert key not in {tuple(r.offer.get(name) for name in OFFER_KEY) for r in result.rejects}
