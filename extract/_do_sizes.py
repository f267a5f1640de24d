"""DigitalOcean's sizes API, shared by the clouds that serve it (DigitalOcean's own, and AMD's
Developer Cloud on DigitalOcean's platform): the paged fetch and the mapping of a GPU size."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from chipcost.core.errors import SourceError
from chipcost.core.payload import Payload
from chipcost.extract import _http
from chipcost.extract._bounds import too_many_places
from chipcost.extract._estimate import estimate_of
from chipcost.extract._fetch import ApiKey
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    json_price,
    listed_rows,
    load_json,
    parse_count,
)
from chipcost.extract.base import FetchContext, Item, Page, Skip, unpriced_skips

SIZES_PATH = "/v2/sizes"
PAGE_SIZE = 200  # the API's maximum page size
MAX_PAGES = 20
# The sizes answer as both clouds' recordings and the sample give it.
SIZES = Format(
    "sizes v2",
    SIZES_PATH,
    (
        Rows(
            "sizes[]",
            {
                "slug": "string",
                "memory": "integer",
                "vcpus": "integer",
                "disk": "integer",
                "transfer": "number",
                "price_monthly": "number",
                "price_hourly": "number",
                "regions": "array",
                "available": "boolean",
                "description": "string",
                "networking_throughput": "integer",
                "disk_info": "array",
                "gpu_info": "object",
            },
            required=("slug", "price_hourly", "regions"),
            prices=("price_monthly", "price_hourly"),
        ),
    ),
)
FIELDS = SIZES.required("sizes[]")
UNAVAILABLE = "a GPU size listed but sold in no region"


@dataclass(frozen=True)
class SizesApi:
    """One cloud's sizes endpoint: where it is, and its token."""

    provider: str
    sizes_url: str
    key: ApiKey


def fetch_sizes(ctx: FetchContext, api: SizesApi) -> list[Payload]:
    """Every page of the sizes list, followed through links.pages.next, archived as it
    arrives (the token never); no token: the source is skipped, saying where to make one."""
    headers = api.key.headers(api.key.required(ctx))
    payloads: list[Payload] = []
    with _http.http_client(api.provider, ctx, key_hint=api.key.env) as client:
        url: str = api.sizes_url
        params: dict[str, int] | None = {"per_page": PAGE_SIZE}
        for page in range(1, MAX_PAGES + 1):
            payloads.append(_http.get(ctx, client, url, params=params, headers=headers))
            ctx.progress(f"sizes page {page}")
            url, params = _next_page(payloads[-1], api), None  # the next link has its query
            if not url:
                return payloads
    raise SourceError(f"{api.provider}: {api.sizes_url} still had more pages after {MAX_PAGES}")


def _next_page(payload: Payload, api: SizesApi) -> str:
    body = load_json(payload, api.provider)
    links = body.get("links") if isinstance(body, dict) else None
    pages = links.get("pages") if isinstance(links, dict) else None
    found = pages.get("next") if isinstance(pages, dict) else None
    return found if isinstance(found, str) and found.startswith(api.sizes_url) else ""


def size_rows(page: Page) -> list[Any]:
    """The sizes of one page, their fields checked."""
    return listed_rows(page.payload, page.origin.provider, "sizes", FIELDS, body=page.json())


def size_offers(size: Any, page: Page) -> list[Item]:
    """One record per region of a GPU size, per instance-hour; pure."""
    gpu = size.get("gpu_info") if isinstance(size, dict) else None
    if not gpu:
        return [Skip("a CPU Droplet: no accelerator to price")]
    slug = str(size.get("slug", ""))
    try:
        count = parse_count(gpu.get("count") if isinstance(gpu, dict) else None)
    except ValueError as exc:
        return [page.reject(f"{slug}: {exc}", size, slug)]
    model = str(gpu.get("model") or "")
    price, why = json_price(size.get("price_hourly"), f"{slug} price_hourly")
    if price is None:
        return [
            page.no_price(why, size, size.get("price_hourly"), slug),
            *_not_sold(size, slug, why),
        ]
    if not model:
        return [page.reject(f"{slug}: gpu_info has no model", size, slug)]
    regions = [str(r) for r in size.get("regions") or [] if r]
    if not regions or size.get("available") is False:
        return [Skip(UNAVAILABLE, slug)]
    if why := too_many_places(regions, slug):
        return [page.reject(why, size, slug)]
    memory = _memory_per_gpu(gpu, count)
    # "nvidia_h100", "amd_mi300x", "nvidia_rtx6000_ada": the vendor and words, underscored.
    chip = page.chip(model, memory)  # the catalog reads underscores as spaces
    extra = {"gpu_model": model, "gpu_memory_gb": memory, "price_basis": "per instance-hour",
             **estimate_of(size)}  # fmt: skip
    return [
        page.record(
            region=region,
            instance_type=slug,
            chip=chip,
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=price,
            sku=slug,
            extra={k: v for k, v in extra.items() if v is not None},
            **_host(size),
        )
        for region in regions
    ]


def _not_sold(size: dict[str, Any], slug: str, why: str) -> list[Item]:
    """Of a price saying the size has none (null, "Contact us"), a quiet skip of its offer in
    each region: another copy of the size pricing one refuses both, as priced twice
    (Skip.unpriced); alone, the size's reject says it."""
    listed = size.get("regions")
    regions = [str(r) for r in listed if r] if isinstance(listed, list) else []
    if size.get("available") is False or too_many_places(regions, slug):
        return []
    offers = ({"region": r, "instance_type": slug, "pricing_model": "on_demand"} for r in regions)
    return unpriced_skips(size.get("price_hourly"), offers, why, size)


def _memory_per_gpu(gpu: dict[str, Any], count: int) -> float | None:
    """gpu_info.vram is the Droplet's total (640 GiB for 8 H100): per GPU is total / count."""
    vram = gpu.get("vram") if isinstance(gpu.get("vram"), dict) else {}
    amount = vram.get("amount")
    if not isinstance(amount, int | float) or amount <= 0:
        return None
    unit = str(vram.get("unit") or "gib").lower()
    gib = amount * 1024 if unit.startswith("t") else amount
    return round(gib / count, 1)


def _host(size: dict[str, Any]) -> dict[str, float | None]:
    """vcpus; memory, which the API gives in MiB ("memory": 1966080 is 1,920 GiB); and the
    sum of the local disks of disk_info (boot and scratch, in GiB), else its "disk" (GiB)."""
    sizes = [disk.get("size") for disk in size.get("disk_info") or [] if isinstance(disk, dict)]
    amounts = [
        host_spec(s.get("amount")) if isinstance(s, dict) and s.get("unit") == "gib" else None
        for s in sizes
    ]
    known = [a for a in amounts if a is not None]
    disk = sum(known) if known and len(known) == len(amounts) else host_spec(size.get("disk"))
    return {
        "vcpus": host_spec(size.get("vcpus")),
        "ram_gb": host_spec(size.get("memory"), per=1024),
        "disk_gb": disk,
    }
