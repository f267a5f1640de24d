"""An offer listed twice in one API answer, one copy priced and the other saying it has no price
(null, "Contact us"), is refused in both copies as priced twice, the offer kept open, in the
JSON sources tests/extract/test_unpriced_json_copies.py does not cover: a row whose one price
prices several offers (each of its regions, GPU counts: every one refused), shadeform's type
listed in several regions, and a null spot (or dynamic) price, which says the offer is not
sold so. Each from the source's recorded answer, the row copied and the copy's price made the
words, the copy before the row's list or after it. One copy alone saying it has no price is as
before: its offers withdrawn, and a null spot price said nowhere (no reject, no note)."""

from __future__ import annotations

import copy
import dataclasses
import functools
import json
from typing import Any

import pytest

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.core.vocabulary import OFFER_KEY
from chipcost.extract import registry
from tests.sources import contract

SOURCES = registry()
Path = tuple[str | int, ...]
# (source, its recorded answer, the row (paths of its fields and their values, naming it
# alone), the path of its price, how many offers that price prices, whether a null there says
# the offer is not sold in that model (said nowhere alone, no reject))
CASES = [
    ("fluidstack", "configurations.json", ((("gpu_type",), "A100_PCIE_80GB"),),
     ("price_per_gpu_hr",), 12, False),
    ("seeweb", "plans.json", ((("name",), "ECS1GPU7"),), ("hourly_price",), 2, False),
    ("novita", "products.json", ((("id",), "4090.16c62g"),), ("price",), 2, False),
    ("paperspace", "machine-types.json", ((("label",), "H100"),),
     ("defaultUsageRates", 0, "rate"), 1, False),
    ("massedcompute", "gpu-inventory.json", ((("instance_type", "name"), "gpu_1x_l40"),),
     ("instance_type", "price_cents_per_hour"), 1, False),
    ("digitalocean", "sizes.json", ((("slug",), "gpu-h100x8-640gb"),), ("price_hourly",), 1,
     False),
    ("amddevcloud", "sizes.json", ((("slug",), "gpu-mi300x8-1536gb-devcloud"),),
     ("price_hourly",), 1, False),
    ("cudo", "machine-types.json", ((("machineType",), "sapphire-rapids-h100"),),
     ("gpuPriceHr", "value"), 1, False),
    ("jarvislabs", "server-meta.json", ((("gpu_type",), "A100-80GB"),), ("price_per_hour",), 1,
     False),
    ("jarvislabs", "server-meta.json", ((("gpu_type",), "L4"), (("workload_type",), "container")),
     ("spot_price",), 1, True),
    ("vultr", "plans-metal.json", ((("id",), "vbm-112c-2048gb-8-h100-gpu"),), ("hourly_cost",),
     1, False),
    ("vultr", "plans-metal.json", ((("id",), "vbm-112c-2048gb-8-h100-gpu"),),
     ("hourly_cost_preemptible",), 1, True),
    ("shadeform", "instances-types.json", ((("shade_instance_type",), "H200_sxm5x8_NVLINK"),),
     ("hourly_price",), 3, False),
    ("verda", "instance-types.json", ((("instance_type",), "1B300.30V"),), ("spot_price",), 1,
     True),
    ("verda", "instance-types.json", ((("instance_type",), "1B300.30V"),), ("dynamic_price",), 1,
     True),
    ("hyperbolic", "bad-rows.json", ((("InstanceType",), "1x-H100-spot"),), ("SpotPrice",), 1,
     True),
]  # fmt: skip
SAID = [
    pytest.param(*case, words, id=f"{case[0]}-{case[3][-1]}-{'null' if words is None else 'words'}")
    for case in CASES
    for words in (None, "Contact us")
]
NULLS = [pytest.param(*case, id=f"{case[0]}-{case[3][-1]}") for case in CASES]


def payloads(source: str, file: str, body: Any = None) -> list[Payload]:
    """The source's recorded answers (`file` among them, a good one or one of bad rows), the
    one of `file` made `body` where given."""
    cases = contract(source)
    found = [case.payload(source) for case in cases.good]
    if file not in {p.name for p in found}:
        found += [case.payload(source) for case in cases.bad_rows if case.file == file]
    if body is None:
        return found
    data = json.dumps(body).encode()
    return [dataclasses.replace(p, data=data) if p.name == file else p for p in found]


def recorded(source: str, file: str) -> Any:
    return json.loads(next(p for p in payloads(source, file) if p.name == file).data)


@functools.cache
def whole(source: str, file: str) -> ParseResult:
    return SOURCES[source].parse(payloads(source, file))


def _at(value: Any, path: Path) -> object:
    for step in path:
        if isinstance(step, int):
            value = value[step] if isinstance(value, list) and len(value) > step else None
        else:
            value = value.get(step) if isinstance(value, dict) else None
    return value


def the_row(body: Any, row: tuple[tuple[Path, object], ...]) -> tuple[list | dict, int | str]:
    """The list (or object) holding the one row whose fields at `row`'s paths are their values,
    and the row's place there."""
    found: list[tuple[list | dict, int | str]] = []

    def walk(node: Any) -> None:
        places = enumerate(node) if isinstance(node, list) else node.items()
        for at, item in places:
            if isinstance(item, dict) and all(_at(item, path) == value for path, value in row):
                found.append((node, at))
            if isinstance(item, list | dict):
                walk(item)

    walk(body)
    assert len(found) == 1, f"{len(found)} rows are {row}"
    return found[0]


def _said(row: dict[str, Any], path: Path, words: str | None) -> dict[str, Any]:
    said = copy.deepcopy(row)
    inner: Any = said
    for step in path[:-1]:
        inner = inner[step]
    inner[path[-1]] = words
    return said


def copied(source, file, row, path, words, *, first: bool) -> list[Payload]:
    """The answers, the row's list (or object) holding a copy of it whose price says `words`:
    first or last."""
    body = recorded(source, file)
    rows, at = the_row(body, row)
    said = _said(rows[at], path, words)
    if isinstance(rows, list):
        rows.insert(0, said) if first else rows.append(said)
    else:  # an object keyed by name: the copy under another key, first or last
        listed = list(rows.items())
        rows.clear()
        rows.update([("copy", said), *listed] if first else [*listed, ("copy", said)])
    return payloads(source, file, body)


def alone(source, file, row, path, words) -> ParseResult:
    """The answers with the row's price made `words`, no other copy of it."""
    body = recorded(source, file)
    rows, at = the_row(body, row)
    rows[at] = _said(rows[at], path, words)
    return SOURCES[source].parse(payloads(source, file, body))


def prices(result: ParseResult) -> dict[tuple[str, ...], float]:
    return {r.offer_key(): r.price_per_hour for r in result.records}


def its_offers(source, file, row, path, count) -> set[tuple[str, ...]]:
    """The offers the row's price prices: those its null withdraws."""
    gone = set(prices(whole(source, file))) - set(prices(alone(source, file, row, path, None)))
    assert len(gone) == count, gone
    return gone


@pytest.mark.parametrize("first", [False, True], ids=["copy-after", "copy-first"])
@pytest.mark.parametrize(("source", "file", "row", "path", "count", "quiet", "words"), SAID)
def test_a_copy_saying_no_price_beside_one_pricing_it_refuses_both(
    source, file, row, path, count, quiet, words, first
):
    """The priced copy was loaded, each offer its price prices seen at it while the other copy
    says it has none; now each such offer is refused in both copies, kept open."""
    before = whole(source, file)
    offers = its_offers(source, file, row, path, count)
    result = SOURCES[source].parse(copied(source, file, row, path, words, first=first))
    assert prices(result) == {k: v for k, v in prices(before).items() if k not in offers}
    refused = [r for r in result.rejects if " is priced " in r.reason]
    named = [tuple(r.offer.get(name) for name in OFFER_KEY) for r in refused]
    assert sorted(named) == sorted([*offers, *offers]), [r.reason for r in result.rejects]
    for reject in refused:
        key = tuple(reject.offer.get(name) for name in OFFER_KEY)
        [priced] = [r for r in before.records if r.offer_key() == key]
        said = f"is priced 2 times in one payload ({priced.price_per_hour!r} {priced.currency}/h"
        assert f"{said}; no price: " in reject.reason, reject.reason


@pytest.mark.parametrize(("source", "file", "row", "path", "count", "quiet"), NULLS)
def test_one_copy_alone_saying_no_price_is_as_before(source, file, row, path, count, quiet):
    """No priced twin: its offers withdrawn (no record, no reject keeping them open); a null
    price that says the offer is not sold so (spot, dynamic) is said nowhere, as before."""
    before = whole(source, file)
    offers = its_offers(source, file, row, path, count)
    result = alone(source, file, row, path, None)
    assert not [r for r in result.rejects if " is priced " in r.reason]
    assert not offers & {tuple(r.offer.get(name) for name in OFFER_KEY) for r in result.rejects}
    if quiet:
        assert result.rejects == before.rejects
        assert result.notes == before.notes
    else:
        assert len(result.rejects) == len(before.rejects) + 1
        assert [n for n in result.notes if "not loaded" in n] == [
            n for n in before.notes if "not loaded" in n
        ]
