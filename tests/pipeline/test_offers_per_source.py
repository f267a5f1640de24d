"""A run of one source yielding more offers than its provider lists fails that source in one
line, none of it loaded (extract/base.py MOST_OFFERS, a source's `most_offers`): through a real
local HTTP server, Vultr's bare-metal plans as the daily flow fetches them (collect_source).

On 57591a84 one 0.7 MB payload of 250 GPU plans in 200 places each loaded 100,000 offers with
no note (each row within the bound on places per row); here 250 plans in 100 places."""

from __future__ import annotations

import copy
import json
import shutil
from dataclasses import replace
from pathlib import Path

import httpx
import pytest

from chipcost.core.runs import FAILED, OK
from chipcost.core.settings import Settings
from chipcost.extract import _http, _kit, registry, vultr
from chipcost.extract.base import CLOUD_OFFERS, MOST_OFFERS
from chipcost.pipeline.collect import collect_source
from tests.fault_server import fault_server, respond
from tests.fault_support import contained, preloaded_warehouse
from tests.paths import FIXTURES

STAMP = "2026-11-16T060000Z"
PLANS = json.loads((FIXTURES / "vultr" / "plans-metal.json").read_text())


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    return preloaded_warehouse(tmp_path_factory.mktemp("offers"))


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)
    monkeypatch.setattr(_http, "default_timeout", lambda: httpx.Timeout(5.0))


def _plans(count: int, places: int) -> bytes:
    """Vultr's recorded GPU plan `count` times over, each in `places` places."""
    plan = next(p for p in PLANS["plans_metal"] if "gpu" in p["id"])
    places_of = [f"p{j}" for j in range(places)]
    plans = [  # a plan per core count: the id still names its GPU
        dict(copy.deepcopy(plan), id=plan["id"].replace("256c", f"{i + 1}c"), locations=places_of)
        for i in range(count)
    ]
    return json.dumps({**PLANS, "plans_metal": plans, "meta": {"links": {"next": ""}}}).encode()


def _collect(tmp_path, warehouse, monkeypatch, body: bytes, most: int | None = None):
    db = tmp_path / "w.duckdb"
    shutil.copy(warehouse, db)
    settings = Settings(data_dir=tmp_path, db_path=db)
    source = registry()["vultr"]
    if most is not None:
        source = replace(source, most_offers=most)
    with fault_server(respond(200, body)) as server:
        url = f"{server.url}/v2/plans-metal"  # read as the bare-metal list it stands for
        monkeypatch.setattr(vultr, "LISTS", {url: ("plans_metal", {})})
        monkeypatch.setattr(vultr, "METAL_URL", url)
        return settings, collect_source(source, settings=settings, stamp=STAMP)


def test_a_feed_of_fifty_thousand_offers_fails_its_source_in_one_line(
    tmp_path, warehouse, monkeypatch
):
    """Refused at the first offer past the bound: the parse never makes the other 25,000 (on
    the code before the bound was counted once every offer was made and held)."""
    made = []
    record = _kit.Origin.record

    def counted(self, **offer):
        made.append(1)
        return record(self, **offer)

    monkeypatch.setattr(_kit.Origin, "record", counted)
    settings, result = _collect(tmp_path, warehouse, monkeypatch, _plans(250, 100))
    assert result.status == FAILED, result.message
    assert len(made) == MOST_OFFERS + 1
    assert result.message == (
        f"vultr: more than {MOST_OFFERS:,} offers in one run, more than its provider lists (at "
        f'most {MOST_OFFERS:,}; docs/sources.md, "How many offers a source lists"): none '
        "loaded, the prices already held are kept; the payloads are archived: if the provider "
        "really lists that many, report it"
    )
    contained(settings, result)  # the source's history untouched, the other source loads


@pytest.mark.parametrize(("most", "status"), [(79, FAILED), (80, OK)])
def test_the_bound_is_the_sources_own(tmp_path, warehouse, monkeypatch, most, status):
    """Eight plans in five places, each on demand and preemptible: 80 offers, refused only
    past the source's bound."""
    _, result = _collect(tmp_path, warehouse, monkeypatch, _plans(8, 5), most=most)
    assert result.status == status, result.message
    assert status == FAILED or len(result.records) == 80


def test_every_source_declares_a_bound_and_the_clouds_a_larger_one():
    bounds = {name: source.most_offers for name, source in registry().items()}
    clouds = {name for name, most in bounds.items() if most == CLOUD_OFFERS}
    assert clouds == {
        "aws-bulk", "aws-pricing-api", "aws-savings-plans", "aws-spot", "aws-spot-feed",
        "azure", "gcp",
    }  # fmt: skip
    assert set(bounds.values()) == {MOST_OFFERS, CLOUD_OFFERS}


def test_a_listing_of_rows_refused_past_the_bound_fails_its_source_as_they_are_refused():
    """On 0f222db2 a Lium answer of its 4 nodes and 1.1 million nodes priced 'x' held 1.8 GB
    and wrote 1.1 million rows to `rejects` (never pruned), its run 'ok'. Refused rows are
    bounded as offers are: the parse stops at the first past the source's bound."""
    from chipcost.extract import lium
    from chipcost.extract._bounds import TooManyOffers, offers_bounded
    from tests.sources import payloads_of

    body = json.loads((FIXTURES / "lium" / "nodes.json").read_text())
    h200 = next(n for n in body["nodes"] if n["gpu_model"] == "H200")
    body["nodes"] += [dict(h200, id=f"x{i}", price_per_gpu_hour="x") for i in range(500)]
    payload = payloads_of("lium", lium.NODES_URL)("many.json", data=json.dumps(body).encode())
    refused = []
    reject = _kit.Origin.reject

    def counted(self, *args, **kwargs):
        refused.append(1)
        return reject(self, *args, **kwargs)

    with pytest.MonkeyPatch.context() as patch:
        patch.setattr(_kit.Origin, "reject", counted)
        with offers_bounded("lium", 100), pytest.raises(TooManyOffers) as raised:
            lium.parse([payload])
        assert len(refused) == 101
    assert str(raised.value).startswith("lium: more than 100 rows refused in one run")
    with offers_bounded("lium", 1_000):  # within it: every row refused, the nodes read
        result = lium.parse([payload])
    assert len(result.rejects) == 500 and len(result.records) == 4
