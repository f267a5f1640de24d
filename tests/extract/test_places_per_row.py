"""A listed row sold in more places than any provider has is refused whole, naming the bound,
in every source whose rows list their places (extract/_kit.py MAX_PLACES_PER_ROW); the row's
neighbours still load, and a row at the bound loads every place."""

from __future__ import annotations

import copy
import importlib
import json
from collections.abc import Callable
from typing import Any

import pytest

from chipcost.extract._bounds import MAX_PLACES_PER_ROW
from tests.paths import FIXTURES
from tests.sources import payloads_of


def _gpu(rows: list[dict], test: Callable[[dict], Any]) -> dict:
    return next(row for row in rows if test(row))


def _vultr(body: dict, places: list[str]) -> str:
    plan = _gpu(body["plans_metal"], lambda p: "gpu" in p["id"])
    plan["locations"] = places
    return plan["id"]


def _fluidstack(body: list, places: list[str]) -> str:
    body[0]["regions"] = places
    return body[0]["gpu_type"]


def _cloudrift(body: dict, places: list[str]) -> str:
    variant = body["data"]["instance_types"][0]["variants"][0]
    variant["nodes_per_dc"] = dict.fromkeys(places, 1)
    return variant["name"]


def _seeweb(body: dict, places: list[str]) -> str:
    plan = _gpu(body["plans"], lambda p: p.get("gpu_label"))
    plan["available_regions"] = [{"location": place} for place in places]
    return plan["name"]


def _latitude(body: dict, places: list[str]) -> str:
    plan = _gpu(body["data"], lambda p: p["attributes"]["specs"].get("gpu"))
    region = plan["attributes"]["regions"][0]
    plan["attributes"]["regions"] = [{**region, "name": place} for place in places]
    return plan["attributes"]["slug"]


def _digitalocean(body: dict, places: list[str]) -> str:
    size = _gpu(body["sizes"], lambda s: s.get("gpu_info"))
    size["regions"] = places
    return size["slug"]


def _novita(body: dict, places: list[str]) -> str:
    body["data"][0]["regions"] = places
    return body["data"][0]["id"]


SOURCES = {
    "vultr": ("plans-metal.json", "METAL_URL", _vultr),
    "fluidstack": ("configurations.json", "CONFIGURATIONS_URL", _fluidstack),
    "cloudrift": ("instance-types.json", "LIST_URL", _cloudrift),
    "seeweb": ("plans.json", "PLANS_URL", _seeweb),
    "latitude": ("plans.json", "PLANS_URL", _latitude),
    "digitalocean": ("sizes.json", "SIZES_URL", _digitalocean),
    "novita": ("products.json", "PRODUCTS_URL", _novita),
}


def _parsed(source: str, count: int):
    name, url, grow = SOURCES[source]
    module = importlib.import_module(f"chipcost.extract.{source}")
    body = json.loads((FIXTURES / source / name).read_text(encoding="utf-8"))
    before = module.parse([payloads_of(source, getattr(module, url))(name)])
    grown = copy.deepcopy(body)
    row = grow(grown, [f"place-{i}" for i in range(count)])
    data = json.dumps(grown).encode()
    after = module.parse([payloads_of(source, getattr(module, url))(name, data=data)])
    return row, before, after


@pytest.mark.parametrize("source", sorted(SOURCES))
@pytest.mark.parametrize("count", [MAX_PLACES_PER_ROW + 1, 10_000])
def test_a_row_in_more_places_than_any_provider_has_is_refused_whole(source, count):
    row, before, after = _parsed(source, count)
    refused = [r for r in after.rejects if "more than any provider has" in r.reason]
    assert len(refused) == 1, [r.reason for r in after.rejects]
    assert refused[0].reason.startswith(f"{row}: lists {count:,} places to rent it in")
    assert f"at most {MAX_PLACES_PER_ROW} a row" in refused[0].reason
    assert not any(r.region.startswith("place-") for r in after.records)
    # the row's neighbours load as before
    others = {(r.instance_type, r.region, r.pricing_model) for r in before.records}
    kept = {(r.instance_type, r.region, r.pricing_model) for r in after.records}
    assert kept and kept <= others


@pytest.mark.parametrize("source", sorted(SOURCES))
def test_a_row_at_the_bound_loads_every_place(source):
    _, _, after = _parsed(source, MAX_PLACES_PER_ROW)
    places = {r.region for r in after.records if r.region.startswith("place-")}
    assert not any("more than any provider has" in r.reason for r in after.rejects)
    assert len(places) == MAX_PLACES_PER_ROW
