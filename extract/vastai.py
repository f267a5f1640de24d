"""Vast.ai public offer search: a marketplace summarised per GPU as median, min and count."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of, estimate_of_all
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import (
    field_names,
    market_medians,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "vastai"
PROVIDER = "vastai"
# The offer search behind `vastai search offers`; it answers without an API key.
BUNDLES_URL = "https://console.vast.ai/api/v0/bundles/"
# Sent as a Bearer token when set; the search answers without one.
API_KEY = _fetch.ApiKey("vast_api_key", "VAST_API_KEY")
# The marketplace is a few thousand machines: one page this large holds all of it, so the
# median sees the whole market, not the first screen of it.
LIMIT = 5000
# Storage the search prices offers with (the CLI's `--storage` default): Vast computes each
# offer's dph_total as its rental rate plus this much of its storage_cost, for the pricing
# type asked. The same amount in both searches puts on-demand and interruptible prices on
# one basis.
ALLOCATED_STORAGE_GIB = 5.0
# The CLI's default filter (verified, on-Vast, rentable, not rented), once per pricing type:
# `on-demand` and `bid` (interruptible), as `vastai search offers --type`.
SEARCH = {
    "verified": {"eq": True},
    "external": {"eq": False},
    "rentable": {"eq": True},
    "rented": {"eq": False},
    "num_gpus": {"gte": 1},
    "type": "on-demand",
    "order": [["score", "desc"]],
    "limit": LIMIT,
    "allocated_storage": ALLOCATED_STORAGE_GIB,
}
SEARCHES = {"on_demand": SEARCH, "spot": {**SEARCH, "type": "bid"}}
PLANS = {"on_demand": "default", "spot": "interruptible"}
# Archives from before the two searches hold one on-demand search without allocated_storage:
# there on demand was dph_base and interruptible min_bid, two fields whose bases differ.
LEGACY_FIELDS = {"on_demand": "dph_base", "spot": "min_bid"}
VERIFIED = "verified"
REGION = "global"

FORMAT = Format(
    "bundles search v0",
    "/api/v0/bundles/",
    (
        Rows(
            "offers[]",
            {
                "id": "integer",
                "ask_contract_id": "integer",
                "bundle_id": "integer",
                "machine_id": "integer",
                "host_id": "integer",
                "gpu_name": "string",
                "num_gpus": "integer",
                "gpu_ram": "integer",
                "gpu_total_ram": "integer",
                "gpu_arch": "string",
                "cuda_max_good": "number",
                "driver_version": "string",
                "cpu_name": "string",
                "cpu_cores": "integer",
                "cpu_cores_effective": "number",
                "cpu_ram": "integer",
                "disk_space": "number",
                "dph_base": "number",
                "dph_total": "number",
                "storage_cost": "number",
                "storage_total_cost": "number",
                "inet_up_cost": "number",
                "inet_down_cost": "number",
                "min_bid": "number",
                "is_bid": "boolean",
                "geolocation": "string",
                "verification": "string",
                "verified": "boolean",
                "rentable": "boolean",
                "rented": "boolean",
                "external": "boolean|null",
                "hosting_type": "integer",
                "reliability2": "number",
                "inet_up": "number",
                "inet_down": "number",
                "direct_port_count": "integer",
                "pci_gen": "number",
                "pcie_bw": "number",
                "start_date": "number",
                "end_date": "number",
                "bundled_results": "null",
                "bw_nvlink": "number",
                "compute_cap": "integer",
                "cpu_arch": "string",
                "cpu_ghz": "number",
                "credit_discount_max": "number",
                "disk_bw": "number",
                "disk_name": "string",
                "dlperf": "number",
                "dlperf_per_dphtotal": "number",
                "driver_vers": "integer",
                "duration": "number",
                "flops_per_dphtotal": "number",
                "geolocode": "integer",
                "gpu_display_active": "boolean",
                "gpu_frac": "number",
                "gpu_ids": "array",
                "gpu_lanes": "integer",
                "gpu_mem_bw": "number",
                "gpu_max_power": "number",
                "gpu_max_temp": "number",
                "has_avx": "integer",
                "hostname": "null",
                "logo": "string",
                "mobo_name": "string",
                "os_version": "string",
                "public_ipaddr": "string",
                "reliability": "number",
                "reliability_mult": "number",
                "score": "number",
                "static_ip": "boolean",
                "total_flops": "number",
                "vericode": "integer",
                "vram_costperhour": "number",
                "webpage": "null",
                "vms_enabled": "boolean",
                "expected_reliability": "number",
                "sla_sigma_x": "null",
                "sla_broker_rate": "null",
                "is_vm_deverified": "boolean",
                "resource_type": "string",
                "cluster_id": "null",
                "avail_vol_ask_id": "integer",
                "avail_vol_dph": "number",
                "avail_vol_size": "number",
                "nw_disk_min_bw": "null",
                "nw_disk_max_bw": "null",
                "nw_disk_avg_bw": "null",
                "rn": "integer",
                "dph_total_adj": "number",
                "target_reliability": "number",
                "sla_r_claim": "number",
                "discount_rate": "number",
                "discounted_hourly": "number",
                "discounted_dph_total": "number",
                "search": "object",
                "instance": "object",
                "time_remaining": "string",
                "time_remaining_isbid": "string",
                "internet_up_cost_per_tb": "number",
                "internet_down_cost_per_tb": "number",
            },
            required=("id", "gpu_name", "num_gpus", "gpu_ram", "dph_total"),
            # Carried by the recorded search of 2026-08-22 (b300-search-2026-08-22.json), not by
            # the older recording (bundles.json) nor the sample built on it.
            optional=(
                "bundled_results",
                "bw_nvlink",
                "compute_cap",
                "cpu_arch",
                "cpu_ghz",
                "credit_discount_max",
                "disk_bw",
                "disk_name",
                "dlperf",
                "dlperf_per_dphtotal",
                "driver_vers",
                "duration",
                "flops_per_dphtotal",
                "geolocode",
                "gpu_display_active",
                "gpu_frac",
                "gpu_ids",
                "gpu_lanes",
                "gpu_mem_bw",
                "gpu_max_power",
                "gpu_max_temp",
                "has_avx",
                "hostname",
                "logo",
                "mobo_name",
                "os_version",
                "public_ipaddr",
                "reliability",
                "reliability_mult",
                "score",
                "static_ip",
                "total_flops",
                "vericode",
                "vram_costperhour",
                "webpage",
                "vms_enabled",
                "expected_reliability",
                "sla_sigma_x",
                "sla_broker_rate",
                "is_vm_deverified",
                "resource_type",
                "cluster_id",
                "avail_vol_ask_id",
                "avail_vol_dph",
                "avail_vol_size",
                "nw_disk_min_bw",
                "nw_disk_max_bw",
                "nw_disk_avg_bw",
                "rn",
                "dph_total_adj",
                "target_reliability",
                "sla_r_claim",
                "discount_rate",
                "discounted_hourly",
                "discounted_dph_total",
                "search",
                "instance",
                "time_remaining",
                "time_remaining_isbid",
                "internet_up_cost_per_tb",
                "internet_down_cost_per_tb",
            ),
            prices=("dph_base", "dph_total", "min_bid"),
        ),
    ),
)
EXPECTED_FIELDS = FORMAT.required("offers[]")
# A legacy search's price fields in place of dph_total.
LEGACY_EXPECTED = (*(f for f in EXPECTED_FIELDS if f != "dph_total"), *LEGACY_FIELDS.values())


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """The on-demand and the interruptible search, archived as they arrive (never the key)."""
    headers = API_KEY.headers(API_KEY.of(ctx))
    payloads = []
    with client or _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env) as http:
        for model, search in SEARCHES.items():
            payloads.append(
                _http.get(ctx, http, BUNDLES_URL, method="POST", json=search, headers=headers)
            )
            ctx.progress(f"{SOURCE_NAME}: {model} search, {len(payloads[-1].data)} bytes")
    return payloads


def rows(page: Page) -> list[Any]:
    """The search's offers (said when the search may have been cut at its limit)."""
    found = _offers(page)
    fields = _price_fields(page.payload)
    expected = LEGACY_EXPECTED if "dph_base" in fields.values() else EXPECTED_FIELDS
    require_columns(field_names(found), expected, page.payload, PROVIDER)
    if len(found) >= LIMIT:
        page.note(
            f"the search returned {len(found)} offers, its limit: the market "
            "may be larger; raise LIMIT in extract/vastai.py"
        )
    if "dph_base" in fields.values():
        page.note(
            "an archive from before the interruptible search: on demand is dph_base and "
            "interruptible min_bid, not on one basis (docs/sources.md, vastai)"
        )
    return found


def offers(offer: Any, page: Page) -> list[Item]:
    """The offer's price per GPU-hour for each pricing model its search prices; pure. The
    records are summarised per GPU by `_summaries`."""
    sku = str(offer.get("id", "")) if isinstance(offer, dict) else ""
    try:
        name, memory, gpus = _machine(offer)
    except ValueError as exc:
        return [page.reject(str(exc), offer, sku)]
    status = _verification(offer)
    if status != VERIFIED:
        return [Skip(f"a host not verified ({status}): left out of the medians", sku)]
    per_gpu = page.offer(
        region=REGION,
        instance_type=f"1x {name} {memory:g}GB",
        chip=page.chip(name, memory),
        chip_count=1.0,
        sku=name,
    )
    made: list[Item] = []
    for model, field in _price_fields(page.payload).items():
        price = offer.get(field)
        if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
            reason = f"{field} is {price!r}: not a price (offer {sku}, {gpus}x {name})"
            # its GPU's market keeps its earlier median; a price null names none
            market = {"region": REGION, "instance_type": per_gpu.shared["instance_type"]}
            market |= {"pricing_model": model, "plan": PLANS[model]}
            made.append(page.no_price(reason, offer, price, offer=market))
            continue
        made.append(
            per_gpu.record(
                pricing_model=model,
                plan=PLANS[model],
                price_per_hour=price / gpus,
                extra={"price_field": field, "offer": offer.get("id"), **estimate_of(offer)},
            )
        )
    return made


def _price_fields(payload: Payload) -> dict[str, str]:
    """Pricing model -> the offer field that prices it, by the search the payload answers."""
    search = payload.request.get("json") if isinstance(payload.request, dict) else None
    if not isinstance(search, dict) or "allocated_storage" not in search:
        return dict(LEGACY_FIELDS)
    model = "spot" if search.get("type") == "bid" else "on_demand"
    return {model: "dph_total"}


def _basis_notes(result: ParseResult) -> list[str]:
    """GPUs whose interruptible median is above their on-demand one: worth a look."""
    records = result.records
    on_demand = {r.instance_type: r.price_per_hour for r in records if r.plan == "default"}
    return [
        f"{r.instance_type}: the interruptible median {r.price_per_hour:g} is above the "
        f"on-demand median {on_demand[r.instance_type]:g}; check the offers"
        for r in records
        if r.plan == "interruptible" and r.price_per_hour > on_demand.get(r.instance_type, 1e9)
    ]


def _offers(page: Page) -> list[Any]:
    body = page.json()
    if not isinstance(body, dict) or not isinstance(body.get("offers"), list):
        raise shape_error(PROVIDER, page.payload, "offers list", body)
    return body["offers"]


def _verification(offer: dict[str, Any]) -> str:
    """'verified', or the host's other status ('unverified', 'deverified', ...)."""
    status = offer.get("verification")
    if isinstance(status, str) and status:
        return status
    return VERIFIED if offer.get("verified", True) is True else "unverified"


def _machine(offer: Any) -> tuple[str, float, int]:
    """(GPU name, GB per GPU rounded, GPU count) of one offer, or ValueError why not."""
    if not isinstance(offer, dict):
        raise ValueError(f"offer is a {type(offer).__name__}, not an object")
    name = " ".join(str(offer.get("gpu_name") or "").split())
    if not name:
        raise ValueError("offer has no gpu_name")
    gpus = parse_count(offer.get("num_gpus"))
    ram_mb = offer.get("gpu_ram")
    if isinstance(ram_mb, bool) or not isinstance(ram_mb, int | float) or ram_mb <= 0:
        raise ValueError(f"gpu_ram {ram_mb!r} is not a memory size in MB")
    # Hosts report usable memory (81559 MB for an 80 GB card): round to whole GB.
    return name, float(round(ram_mb / 1024)), gpus


def _summaries(found: list[PriceRecord], page: Page) -> list[PriceRecord]:
    """One record per GPU and pricing model of one search: the median per-GPU price of its
    offers, with min, max and count beside it."""
    return market_medians(
        found, lambda r: (r.instance_type, r.pricing_model), "offers", _cheapest_offer
    )


def _cheapest_offer(entries: list[PriceRecord], cheapest: PriceRecord) -> dict[str, Any]:
    return {
        "price_field": cheapest.extra["price_field"],
        "cheapest_offer": cheapest.extra["offer"],
        **estimate_of_all(r.extra for r in entries),
    }


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Vast.ai marketplace offer search: verified rentable offers summarised per GPU model "
        "(median per-GPU price, with min and offer count), on-demand and interruptible "
        "searches priced by Vast on one storage basis"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    # One record per GPU model and pricing model: the median per-GPU price of its offers.
    combine=_summaries,
    notes=_basis_notes,
    title="Vast.ai",
    checked=Checked(
        asks="two bundle searches (on demand, interruptible), verified rentable offers",
        against=(
            "**recorded** answers of a B300 and an H100 SXM search (another project's query: no "
            "`allocated_storage`), recorded 2026-08-22 in getcomputable/gpu-index at commit "
            "055204adf5e64e62595f97c49b7eb65400149871; the Vast CLI's field list and options "
            "(vast-ai/vast-python, 2024-12) for field meanings"
        ),
        when="2026-08-22",
        rest=(
            "the two searches' answers (other GPUs, hosts not verified, the bid search) "
            "reconstructed"
        ),
    ),
)
parse = SOURCE.parse
