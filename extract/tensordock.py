"""TensorDock's marketplace (public): the per-GPU-hour rate of each GPU model its host nodes
rent, summarised per model and country, with the vCPU, RAM and storage rates billed beside it."""

from __future__ import annotations

import statistics
from collections import defaultdict
from dataclasses import replace
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._kit import field_names, json_price, require_columns, shape_error, slug
from chipcost.extract.base import FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "tensordock"
PROVIDER = "tensordock"
# Every host node of the marketplace with its location, free resources and their prices,
# public and without a key (what gpuhunt's TensorDock provider reads).
HOSTNODES_URL = "https://marketplace.tensordock.com/api/v0/client/deploy/hostnodes"
FIELDS = ("location", "specs")
# The resources a VM pays beside its GPUs: extra.resource_rates, by the name the record gives them.
RESOURCES = {"vcpu": "cpu", "ram_gb": "ram", "storage_gb": "storage"}


def fetch(ctx: FetchContext) -> list[Payload]:
    """The host nodes, archived as they arrive."""
    return _http.one_page(ctx, PROVIDER, HOSTNODES_URL, label="host nodes", ext="json")


def rows(page: Page) -> list[Any]:
    """One row per GPU model of each host node ({"hostnode": id, "gpu": name, ...}), the
    nodes' fields checked: the answer keys the nodes by id and their GPUs by name."""
    body = page.json()
    nodes = body.get("hostnodes") if isinstance(body, dict) else None
    if not isinstance(nodes, dict):
        raise shape_error(PROVIDER, page.payload, "hostnodes object", body)
    if nodes:
        require_columns(field_names(nodes.values()), FIELDS, page.payload, PROVIDER)
    found: list[Any] = []
    for node_id, node in nodes.items():
        specs = node.get("specs") if isinstance(node, dict) else None
        gpus = specs.get("gpu") if isinstance(specs, dict) else None
        if not isinstance(gpus, dict) or not gpus:
            found.append({"hostnode": node_id, "gpu": "", "node": node})
            continue
        found += [{"hostnode": node_id, "gpu": name, "node": node} for name in gpus]
    return found


def offers(row: Any, page: Page) -> list[Item]:
    """A record per GPU model of a host node, at its per-GPU rate; combine() summarises each
    model and country to its median."""
    node_id, gpu, node = row["hostnode"], str(row["gpu"]), row["node"]
    if not gpu:
        return [Skip("a host node with no GPU listed", str(node_id))]
    specs = node["specs"]
    card = specs["gpu"][gpu]
    place = node.get("location")
    country = str(place.get("country") or "").strip() if isinstance(place, dict) else ""
    if not isinstance(card, dict) or not country:
        why = f"host node {node_id} {gpu}: no country, or the GPU entry is not an object"
        return [page.reject(why, row, gpu)]
    price, why = json_price(card.get("price"), f"host node {node_id} {gpu} price")
    if price is None:
        return [page.reject(why, row, gpu)]
    free = card.get("amount")
    if not isinstance(free, int) or free < 1:
        return [Skip("no GPU of this model free on the host node", f"{node_id} {gpu}")]
    rates = {key: _rate(specs.get(field)) for key, field in RESOURCES.items()}
    vram = card.get("vram")
    memory = float(vram) if isinstance(vram, int | float) and vram > 0 else None
    extra = {
        "hostnode": node_id,
        "gpus_free": free,
        "price_basis": "per GPU-hour; vCPUs, RAM and storage are billed beside it",
        "resource_rates": {key: value for key, value in rates.items() if value is not None},
        **estimate_of(node),
    }
    return [
        page.record(
            region=slug(country),
            instance_type=f"1x {gpu}",
            chip=page.chip(gpu, memory),
            chip_count=1.0,
            pricing_model="on_demand",
            price_per_hour=price,
            sku=gpu,
            extra={k: v for k, v in extra.items() if v is not None},
        )
    ]


def combine(records: list[PriceRecord], page: Page) -> list[PriceRecord]:
    """One record per GPU model and country: the median per-GPU rate of its host nodes (one odd
    host does not become the price), with the spread, node count and free GPUs beside it."""
    markets: dict[tuple[str, str], list[PriceRecord]] = defaultdict(list)
    for record in records:
        markets[(record.instance_type, record.region)].append(record)
    found = []
    for _, same in sorted(markets.items()):
        prices = sorted(r.price_per_hour for r in same)
        cheapest = min(same, key=lambda r: r.price_per_hour)
        extra = {
            **cheapest.extra,
            "statistic": "median of host nodes, per GPU-hour",
            "min": prices[0],
            "max": prices[-1],
            "hostnodes": len(same),
            "gpus_free": sum(r.extra["gpus_free"] for r in same),
        }
        extra.pop("hostnode")
        extra["cheapest_hostnode"] = cheapest.extra["hostnode"]
        median = round(statistics.median(prices), 4)
        found.append(replace(cheapest, price_per_hour=median, extra=extra))
    return found


def _rate(resource: Any) -> float | None:
    """A resource's price per unit-hour ({"amount": 256, "price": 0.003}), or None."""
    price = resource.get("price") if isinstance(resource, dict) else None
    return float(price) if isinstance(price, int | float) and price >= 0 else None


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "TensorDock marketplace host nodes: per-GPU-hour on-demand rates summarised per GPU "
        "model and country (median, with min, max and node count; vCPU, RAM and storage billed "
        "separately)"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    combine=combine,
)
parse = SOURCE.parse
