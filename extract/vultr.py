"""Vultr's public plan lists: bare-metal GPU plans and Cloud GPU (vcg) plans, per location."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP, chip_memory_gb
from chipcost.core.errors import SourceError
from chipcost.core.payload import Payload
from chipcost.core.vocabulary import not_rentable
from chipcost.extract import _http
from chipcost.extract._bounds import too_many_places
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import json_price, listed_rows, load_json
from chipcost.extract._slices import SliceError, memory_share, share_of
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
    unpriced_skips,
)

SOURCE_NAME = "vultr"
PROVIDER = "vultr"
# Both lists answer without an API key (Vultr API v2, "List Plans" and "List Bare Metal Plans").
API = "https://api.vultr.com/v2"
METAL_URL = f"{API}/plans-metal"
PLANS_URL = f"{API}/plans"
PAGE_SIZE = 500  # the API's maximum: one page holds every plan today
MAX_PAGES = 20  # a cursor that never ends stops here
LISTS = {METAL_URL: ("plans_metal", {}), PLANS_URL: ("plans", {"type": "all"})}
# Bare-metal ids name count and GPU: vbm-256c-2048gb-8-mi300x-gpu, vbm-72c-480gb-gh200-gpu.
METAL_ID = re.compile(r"^vbm-.*?-(?:(?P<count>\d+)-)?(?P<gpu>[a-z][a-z0-9]*)-gpu$")
# Bare-metal id tokens and Cloud GPU gpu_types name the GPU in Vultr's own words ("h100",
# "NVIDIA_A100"); chip_aliases.csv reads them (rows for source vultr where a word means one
# part here: the H100 and A100 are 80 GB SXM cards, the bare metal "l40" carries L40S cards).
CPU_TYPES = frozenset({"vc2", "vhf", "vhp", "voc", "vdc"})
# Dedicated-metal GPU plans (type vdm) carry no gpu_type, gpu_count or gpu_vram_gb: the id
# names the GPU and the plan's whole video memory, vcg-a40-24c-120g-48vram (gpuhunt's tests of
# Vultr's public /plans answer: "a GPU plan whose type differs from its ID prefix, and which has
# none of the gpu_type/gpu_count/gpu_vram_gb fields").
VDM_ID = re.compile(r"^vcg-(?P<gpu>[a-z][a-z0-9]*)-\d+c-\d+g-(?P<vram>\d+)vram$")
# A card whose id memory is not the catalog's: Vultr's MI325X plans count 192 GB a card in
# the id's vram (its MI325X server is "8 x 256 GB MI325X" in Vultr's documents, yet its plan
# is vcg-mi325x-252c-2872g-1536vram: gpuhunt's table of Vultr's plans, dstackai/gpuhunt
# src/gpuhunt/providers/vultr.py at 3b389574). A plan's cards are its vram over this, so the
# half server vcg-mi325x-126c-1436g-768vram is 4 cards, not 3 of 256 GB.
ID_CARD_GB = {"mi325x": 192.0}
NOT_ON_DEMAND = not_rentable("on_demand", "the plan is not deployable on demand (deploy_ondemand)")
NOT_PREEMPTIBLE = not_rentable(
    "spot", "the plan is not deployable preemptible (deploy_preemptible)"
)

METAL = Format(
    "bare-metal plans v2",
    "/v2/plans-metal",
    (
        Rows(
            "plans_metal[]",
            {
                "id": "string",
                "physical_cpus": "integer",
                "cpu_count": "integer",
                "cpu_cores": "integer",
                "cpu_threads": "integer",
                "cpu_model": "string",
                "cpu_mhz": "integer",
                "ram": "integer",
                "disk": "integer",
                "disk_count": "integer",
                "bandwidth": "integer",
                "monthly_cost": "number",
                "hourly_cost": "number",
                "monthly_cost_preemptible": "number",
                "hourly_cost_preemptible": "number",
                "type": "string",
                "locations": "array",
            },
            required=("id", "hourly_cost", "locations"),
            prices=(
                "monthly_cost",
                "hourly_cost",
                "monthly_cost_preemptible",
                "hourly_cost_preemptible",
            ),
        ),
    ),
)
CLOUD = Format(
    "cloud plans v2",
    "/v2/plans",
    (
        Rows(
            "plans[]",
            {
                "id": "string",
                "vcpu_count": "integer",
                "ram": "integer",
                "disk": "integer",
                "disk_count": "integer",
                "bandwidth": "integer",
                "monthly_cost": "number",
                "hourly_cost": "number",
                "type": "string",
                "locations": "array",
                "gpu_vram_gb": "integer",
                "gpu_type": "string",
            },
            required=METAL.required("plans_metal[]"),
            prices=("monthly_cost", "hourly_cost"),
        ),
    ),
)
FIELDS = METAL.required("plans_metal[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of both plan lists, each archived as it arrives."""
    payloads: list[Payload] = []
    with _http.http_client(PROVIDER, ctx) as client:
        for url, (key, params) in LISTS.items():
            cursor = ""
            for _ in range(MAX_PAGES):
                query = {**params, "per_page": PAGE_SIZE, **({"cursor": cursor} if cursor else {})}
                payload = _http.get(ctx, client, url, params=query, ext="json")
                payloads.append(payload)
                ctx.progress(f"{key} page {len(payloads)}")
                cursor = _next_cursor(payload)
                if not cursor:
                    break
            else:
                raise SourceError(f"{PROVIDER}: {url} still had more pages after {MAX_PAGES}")
    return payloads


def _next_cursor(payload: Payload) -> str:
    body = load_json(payload, PROVIDER)
    meta = body.get("meta") if isinstance(body, dict) else None
    links = meta.get("links") if isinstance(meta, dict) else None
    cursor = links.get("next") if isinstance(links, dict) else None
    return cursor if isinstance(cursor, str) else ""


def rows(page: Page) -> list[Any]:
    """The plans of one page of either list (its list key is told by the URL)."""
    key = LISTS.get(page.payload.url, ("", {}))[0]
    if not key:
        return []
    return listed_rows(page.payload, PROVIDER, key, FIELDS, body=page.json())


def offers(plan: Any, page: Page) -> list[Item]:
    """One record per location and pricing model of a GPU plan; pure."""
    if page.payload.url == METAL_URL:
        return _metal_offers(plan, page)
    return _cloud_gpu_offers(plan, page)


def _metal_offers(plan: Any, page: Page) -> list[Item]:
    if not isinstance(plan, dict) or "gpu" not in str(plan.get("id", "")):
        return [Skip("a CPU-only bare-metal server: no accelerator to price")]
    name = str(plan["id"])
    found = METAL_ID.match(name)
    if found is None:
        why = f"{name}: a GPU bare-metal id this parser cannot read (expected ...-8-h100-gpu)"
        return [page.reject(why, plan, name)]
    token = found["gpu"]
    chip = page.chip(token)
    return _offers(plan, page, chip, int(found["count"] or 1), {"gpu": token})


def _cloud_gpu_offers(plan: Any, page: Page) -> list[Item]:
    if not isinstance(plan, dict) or str(plan.get("type")) in CPU_TYPES:
        return [Skip("a CPU plan: no accelerator to price")]
    name = str(plan.get("id", ""))
    if plan.get("type") == "vdm" and not plan.get("gpu_type"):
        return _dedicated_offers(plan, page, name)
    if plan.get("type") != "vcg" and not plan.get("gpu_type"):
        return [Skip("another kind of plan (storage, Kubernetes): not a GPU", name)]
    gpu_type, vram = str(plan.get("gpu_type") or ""), plan.get("gpu_vram_gb")
    if not gpu_type or isinstance(vram, bool) or not isinstance(vram, int | float) or vram <= 0:
        why = f"{name}: Cloud GPU plan without gpu_type or gpu_vram_gb ({gpu_type!r}, {vram!r})"
        return [page.reject(why, plan, name)]
    chip = page.chip(gpu_type, float(vram))
    card = chip_memory_gb().get(chip)
    count = vram / card if card else 1.0
    if count < 0.95:  # a shared card: priced by the slice rule (extract/_slices.py)
        try:
            share, mark = share_of(chip, memory_share(chip, float(vram)))
        except SliceError as exc:
            return [page.reject(f"{name}: {exc}", plan, name)]
        extra = {"gpu_type": gpu_type, "gpu_vram_gb": vram, **mark}
        return _offers(plan, page, chip, share, extra)
    if abs(count - round(count)) > 0.05:
        why = f"{name}: {vram} GB is not a whole number of {card:g} GB {chip} cards"
        return [page.reject(why, plan, name)]
    extra = {"gpu_type": gpu_type, "gpu_vram_gb": vram}
    if chip == UNKNOWN_CHIP:
        extra["chip_count_assumed"] = "one card: the chip and its memory are unknown"
    return _offers(plan, page, chip, round(count), extra)


def _dedicated_offers(plan: dict, page: Page, name: str) -> list[Item]:
    """A vdm plan: its GPU and card count read from the id (no GPU fields are sent): the
    id's vram over the memory a card of that GPU counts in Vultr's ids."""
    found = VDM_ID.match(name)
    if found is None:
        why = f"{name}: a dedicated GPU plan id this parser cannot read (vcg-a40-...-48vram)"
        return [page.reject(why, plan, name)]
    token, vram = found["gpu"], int(found["vram"])
    chip = page.chip(token)
    card = ID_CARD_GB.get(token) or chip_memory_gb().get(chip)
    count = vram / card if card else 0
    if count < 1 or count != int(count):
        card_text = f"{card:g} GB" if card else "unknown-size"
        why = f"{name}: {vram} GB is not a whole number of {card_text} {chip} cards"
        return [page.reject(why, plan, name)]
    extra = {"gpu": token, "vram_gb": vram, "card_count_basis": f"{vram} GB / {card:g} GB a card"}
    return _offers(plan, page, chip, int(count), extra)


def _host(plan: dict) -> dict[str, float | None]:
    """A plan's vcpu_count (a bare-metal plan's cpu_threads: the threads a vCPU counts),
    ram in MB (as GiB here) and disk in GB (times disk_count for bare metal)."""
    threads = plan.get("vcpu_count", plan.get("cpu_threads"))
    disk, disks = host_spec(plan.get("disk")), host_spec(plan.get("disk_count", 1))
    return {
        "vcpus": host_spec(threads),
        "ram_gb": host_spec(plan.get("ram"), per=1024),
        "disk_gb": disk * disks if disk is not None and disks is not None else None,
    }


def _offers(plan: dict, page: Page, chip: str, count: float, extra: dict) -> list[Item]:
    name = str(plan["id"])
    listed = plan.get("locations") if isinstance(plan.get("locations"), list) else []
    locations = [str(location) for location in listed if location]
    if not locations:
        return [page.reject(f"{name}: the plan lists no location to rent it in", plan, name)]
    if why := too_many_places(locations, name):
        return [page.reject(why, plan, name)]
    made: list[Item] = []
    prices = []
    # deploy_ondemand / deploy_preemptible false: listed with a price no one can rent at
    # (Vultr's 8 x MI300X bare metal lists $31.92/h on demand with deploy_ondemand false).
    if plan.get("deploy_ondemand") is False:
        made.append(Skip(NOT_ON_DEMAND, name))
    else:
        prices.append(("on_demand", "hourly_cost"))
    if plan.get("hourly_cost_preemptible") not in (None, 0):
        if plan.get("deploy_preemptible") is False:
            made.append(Skip(NOT_PREEMPTIBLE, name))
        else:
            prices.append(("spot", "hourly_cost_preemptible"))
    elif (
        plan.get("hourly_cost_preemptible") is None and plan.get("deploy_preemptible") is not False
    ):
        # not preemptible: said nowhere, unless another copy of the plan prices it (both refused)
        _, why = json_price(None, f"{name} hourly_cost_preemptible")
        made.extend(_not_sold(None, name, locations, "spot", why, plan))
    for model, field in prices:
        price, why = json_price(plan.get(field), f"{name} {field}")
        if price is None:
            made.append(page.no_price(why, plan, plan.get(field), name))
            made.extend(_not_sold(plan.get(field), name, locations, model, why, plan))
            continue
        made.extend(
            page.record(
                region=location,
                instance_type=name,
                chip=chip,
                chip_count=float(count),
                pricing_model=model,
                price_per_hour=price,
                sku=name,
                extra={
                    "price_basis": "per instance-hour",
                    **extra,
                    "field": field,
                    **estimate_of(plan),
                },  # fmt: skip
                **_host(plan),
            )
            for location in locations
        )
    return made


def _not_sold(
    cell: object, name: str, locations: list[str], model: str, why: str, plan: dict
) -> list[Item]:
    """Of a price saying the plan has none in `model` (null, "Contact us"), a quiet skip of its
    offer in each location: another copy of the plan pricing one refuses both, as priced twice
    (Skip.unpriced); alone, the plan's reject (or nothing, of a null preemptible price) says
    it."""
    offers = ({"region": loc, "instance_type": name, "pricing_model": model} for loc in locations)
    return unpriced_skips(cell, offers, why, plan)


SOURCE = Source(
    formats=(
        METAL,
        CLOUD,
    ),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Vultr public plan lists: bare-metal GPU servers (on demand and preemptible) and Cloud "
        "GPU plans of whole cards, per location"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Vultr",
    checked=Checked(
        asks="every bare-metal and other plan (`plans-metal`, `plans?type=all`), all pages",
        against="**mock**: gpuhunt's mocks of both lists",
    ),
)
parse = SOURCE.parse
