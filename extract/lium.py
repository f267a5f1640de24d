"""Lium's public nodes feed: a GPU marketplace summarised per GPU model and tier (median, min)."""

from __future__ import annotations

import statistics
from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _http
from chipcost.extract._offers import (
    ChipNames,
    field_names,
    json_price,
    load_json,
    reject,
    shape_error,
)
from chipcost.extract._scrape import parse_count, require_columns, require_offers
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "lium"
PROVIDER = "lium"
# Every node rentable on Lium, public and without a key; Lium documents the feed and adds
# fields under /public/v1 only (breaking changes go to /public/v2).
NODES_URL = "https://lium.io/api/public/v1/nodes"
FIELDS = ("id", "gpu_model", "gpu_count", "price_per_gpu_hour", "tier")
# tier -> pricing model: "secure" nodes are rented on demand, "spot" nodes can be reclaimed.
TIERS = {"secure": "on_demand", "spot": "spot"}
REGION = "global"

Market = dict[tuple[str, float, str], list[dict[str, Any]]]


def fetch(ctx: FetchContext) -> list[Payload]:
    """The whole feed in one response, archived as it arrives."""
    with _http.http_client(PROVIDER, ctx) as client:
        payload = _http.get(ctx, client, NODES_URL, ext="json")
    ctx.progress(f"nodes feed, {len(payload.data)} bytes")
    return [payload]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU model, memory and tier: the median per-GPU price of its nodes."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    for payload in payloads:
        nodes = _nodes(payload)
        page = ParseResult()
        markets: Market = defaultdict(list)
        for node in nodes:
            _add_node(node, payload, page, markets)
        for (gpu, memory, model), found in sorted(markets.items()):
            chip = chips.chip(gpu, memory or None)
            page.records.append(_summary(payload, gpu, memory, chip, model, found))
        if nodes:
            require_offers(page, payload, PROVIDER)
        else:
            page.notes.append(f"the feed at {payload.url} listed no nodes")
        result.extend(page)
    result.notes.extend(chips.notes())
    return result


def _nodes(payload: Payload) -> list[Any]:
    body = load_json(payload, PROVIDER)
    nodes = body.get("nodes") if isinstance(body, dict) else None
    if not isinstance(nodes, list):
        raise shape_error(PROVIDER, payload, "nodes list", body)
    if nodes:  # an empty market is possible: a note, not a layout change
        require_columns(field_names(nodes), FIELDS, payload, PROVIDER)
    return nodes


def _add_node(node: Any, payload: Payload, page: ParseResult, markets: Market) -> None:
    """Files one node under its market, or refuses it with the reason."""
    sku = str(node.get("id", "")) if isinstance(node, dict) else ""
    try:
        gpu, memory, count, model = _node(node)
    except ValueError as exc:
        page.rejects.append(reject(SOURCE_NAME, f"node {sku}: {exc}", node, payload, sku))
        return
    price, why = json_price(node.get("price_per_gpu_hour"), f"node {sku} price_per_gpu_hour")
    if price is None:
        page.rejects.append(reject(SOURCE_NAME, why, node, payload, sku))
        return
    available = node.get("available_gpu_count")
    markets[(gpu, memory, model)].append({
        "price": price,
        "id": sku,
        "gpus": count,
        "available": available if isinstance(available, int) else 0,
        "country": node.get("country_code"),
    })  # fmt: skip


def _node(node: Any) -> tuple[str, float, int, str]:
    """(GPU model, GB per GPU, GPU count, pricing model) of one node, or ValueError why not."""
    if not isinstance(node, dict):
        raise ValueError(f"a {type(node).__name__}, not an object")
    gpu = " ".join(str(node.get("gpu_model") or "").split())
    if not gpu:
        raise ValueError("no gpu_model")
    tier = node.get("tier")
    if not isinstance(tier, str) or tier not in TIERS:
        raise ValueError(f"tier {tier!r} is neither 'secure' nor 'spot'")
    memory = node.get("gpu_memory_gb")
    memory = float(memory) if isinstance(memory, int | float) and memory > 0 else 0.0
    return gpu, memory, parse_count(node.get("gpu_count")), TIERS[str(tier)]


def _summary(
    payload: Payload, gpu: str, memory: float, chip: str, model: str, nodes: list[dict]
) -> PriceRecord:
    prices = sorted(n["price"] for n in nodes)
    cheapest = min(nodes, key=lambda n: n["price"])
    # Memory in the name, as Lium names A100 40 GB and 80 GB alike, unless the name has it.
    named = f"{memory:g}gb" in gpu.lower().replace(" ", "")
    size = f" {memory:g}GB" if memory and not named else ""
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=REGION,
        instance_type=f"1x {gpu}{size}",
        chip=chip,
        chip_count=1.0,
        pricing_model=model,
        # The median, so one odd host does not become the price; the spread is kept beside it.
        price_per_hour=round(statistics.median(prices), 4),
        sku=gpu,
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={
            "statistic": "median of nodes, per GPU-hour",
            "min": prices[0],
            "max": prices[-1],
            "nodes": len(nodes),
            "gpus": sum(n["gpus"] for n in nodes),
            "available_gpus": sum(n["available"] for n in nodes),
            "cheapest_node": cheapest["id"],
            "countries": sorted({str(n["country"]) for n in nodes if n["country"]}),
        },
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Lium public nodes feed: GPU marketplace nodes summarised per GPU model and tier "
        "(median per-GPU price, with min, max and node count), secure (on demand) and spot"
    ),
    fetch=fetch,
    parse=parse,
)
