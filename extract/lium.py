"""Lium's public nodes feed: a GPU marketplace summarised per GPU model and tier (median, min)."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _http
from chipcost.extract._estimate import estimate_of, estimate_of_all
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import (
    field_names,
    json_price,
    market_medians,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source

SOURCE_NAME = "lium"
PROVIDER = "lium"
# Every node rentable on Lium, public and without a key; Lium documents the feed and adds
# fields under /public/v1 only (breaking changes go to /public/v2).
NODES_URL = "https://lium.io/api/public/v1/nodes"
FORMAT = Format(
    "public nodes v1",
    "/api/public/v1/nodes",
    (
        Rows(
            "nodes[]",
            {
                "id": "string",
                "gpu_model": "string",
                "gpu_count": "integer",
                "available_gpu_count": "integer",
                "price_per_gpu_hour": "number",
                "min_rentable_gpu_count": "integer",
                "gpu_memory_gb": "integer",
                "cpu_count": "integer",
                "ram_gb": "integer",
                "disk_gb": "integer",
                "tier": "string",
                "country": "string",
                "country_code": "string",
                "region": "string",
                "city": "string",
                "rent_url": "string",
                "price_per_node_hour": "number",
            },
            required=("id", "gpu_model", "gpu_count", "price_per_gpu_hour", "tier"),
            prices=("price_per_gpu_hour",),
        ),
    ),
)
FIELDS = FORMAT.required("nodes[]")
# tier -> pricing model: "secure" nodes are rented on demand, "spot" nodes can be reclaimed.
TIERS = {"secure": "on_demand", "spot": "spot"}
REGION = "global"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The whole feed in one response, archived as it arrives."""
    with _http.http_client(PROVIDER, ctx) as client:
        payload = _http.get(ctx, client, NODES_URL, ext="json")
    ctx.progress(f"nodes feed, {len(payload.data)} bytes")
    return [payload]


def rows(page: Page) -> list[Any]:
    """The nodes of the feed, their fields checked."""
    body = page.json()
    nodes = body.get("nodes") if isinstance(body, dict) else None
    if not isinstance(nodes, list):
        raise shape_error(PROVIDER, page.payload, "nodes list", body)
    if nodes:
        require_columns(field_names(nodes), FIELDS, page.payload, PROVIDER)
    return nodes


def offers(node: Any, page: Page) -> list[Item]:
    """A record per node at its per-GPU price; combine() summarises each market (GPU model,
    memory and tier) to its median."""
    sku = str(node.get("id", "")) if isinstance(node, dict) else ""
    try:
        gpu, memory = _node(node)
    except ValueError as exc:
        return [page.reject(f"node {sku}: {exc}", node, sku)]
    # Its market: a node whose tier, count or price cannot be read keeps the market's offer open
    # (of either tier when its tier is not one chipcost reads).
    tier = node.get("tier")
    model = TIERS.get(tier) if isinstance(tier, str) else None
    offer = {"region": REGION, "instance_type": _market_name(gpu, memory), "pricing_model": model}
    if model is None:
        why = f"node {sku}: tier {tier!r} is neither 'secure' nor 'spot'"
        return [page.reject(why, node, offer=offer)]
    try:
        count = parse_count(node.get("gpu_count"))
    except ValueError as exc:
        return [page.reject(f"node {sku}: {exc}", node, offer=offer)]
    cell = node.get("price_per_gpu_hour")
    price, why = json_price(cell, f"node {sku} price_per_gpu_hour")
    if price is None:
        return [page.no_price(why, node, cell, offer=offer)]
    available = node.get("available_gpu_count")
    return [
        page.record(
            **offer,
            chip=page.chip(gpu, memory or None),
            chip_count=1.0,
            price_per_hour=price,
            sku=gpu,
            extra={
                "node": sku,
                "gpus": count,
                "available": available if isinstance(available, int) else 0,
                "country": node.get("country_code"),
                **estimate_of(node),
            },
        )
    ]


def combine(records: list[PriceRecord], page: Page) -> list[PriceRecord]:
    """One record per market (GPU model, memory and tier): the median per-GPU price of its
    nodes, with the spread, node count and availability beside it."""
    return market_medians(records, lambda r: (r.instance_type, r.pricing_model), "nodes", _market)


def _market_name(gpu: str, memory: float) -> str:
    """'1x A100 80GB': memory in the name, as Lium names A100 40 GB and 80 GB alike, unless the
    name has it."""
    named = f"{memory:g}gb" in gpu.lower().replace(" ", "")
    size = f" {memory:g}GB" if memory and not named else ""
    return f"1x {gpu}{size}"


def _node(node: Any) -> tuple[str, float]:
    """(GPU model, GB per GPU) of one node, or ValueError why not."""
    if not isinstance(node, dict):
        raise ValueError(f"a {type(node).__name__}, not an object")
    gpu = " ".join(str(node.get("gpu_model") or "").split())
    if not gpu:
        raise ValueError("no gpu_model")
    memory = node.get("gpu_memory_gb")
    memory = float(memory) if isinstance(memory, int | float) and memory > 0 else 0.0
    return gpu, memory


def _market(nodes: list[PriceRecord], cheapest: PriceRecord) -> dict[str, Any]:
    """The GPUs of a market's nodes, those free now, its cheapest node and their countries."""
    return {
        "gpus": sum(n.extra["gpus"] for n in nodes),
        "available_gpus": sum(n.extra["available"] for n in nodes),
        "cheapest_node": cheapest.extra["node"],
        "countries": sorted({str(n.extra["country"]) for n in nodes if n.extra["country"]}),
        **estimate_of_all(n.extra for n in nodes),
    }


SOURCE = Source(
    formats=(FORMAT,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Lium public nodes feed: GPU marketplace nodes summarised per GPU model and tier "
        "(median per-GPU price, with min, max and node count), secure (on demand) and spot"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    combine=combine,
    title="Lium",
    checked=Checked(
        asks="the public nodes feed",
        against="**recorded** response kept by gpuhunt, trimmed to four nodes",
        when="2026-09-10",
    ),
)
parse = SOURCE.parse
