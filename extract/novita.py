"""Novita's GPU products API (NOVITA_API_KEY): each GPU product's on-demand price, per region."""

from __future__ import annotations

import re
from typing import Any

from chipcost.core.payload import Payload
from chipcost.extract import _fetch
from chipcost.extract._bounds import too_many_places
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import json_price, listed_rows
from chipcost.extract.base import (
    Checked,
    FetchContext,
    Item,
    Page,
    Skip,
    Source,
    unpriced_skips,
)

SOURCE_NAME = "novita"
PROVIDER = "novita"
# Every GPU product with its price; the API lists products per GPU (cpuPerGpu, memoryPerGpu),
# an instance takes 1 to 8 of them. No filter is sent: a product sold out today keeps its price.
PRODUCTS_URL = "https://api.novita.ai/gpu-instance/openapi/v1/products"
API_KEY = _fetch.ApiKey(
    "novita_api_key", "NOVITA_API_KEY", "Novita", "its console (Settings, Key Management)"
)
FORMAT = Format(
    "GPU instance products v1",
    "/gpu-instance/openapi/v1/products",
    (
        Rows(
            "data[]",
            {
                "id": "string",
                "name": "string",
                "cpuPerGpu": "integer",
                "memoryPerGpu": "integer",
                "diskPerGpu": "integer",
                "availableDeploy": "boolean",
                "price": "string",
                "spotPrice": "string",
                "regions": "array",
                "billingMethods": "array",
                "inventoryState": "string",
                "canBuy": "boolean",
            },
            required=("id", "name", "price", "regions"),
        ),
    ),
)
FIELDS = FORMAT.required("data[]")
# `price` is in 1/100,000 USD per GPU-hour ("35000" is $0.35), as the API sends it.
PRICE_UNITS_PER_USD = 100_000
# "RTX 4090 24GB", "A100 SXM 80GB": the GPU, then its memory, the digits that end the name
# before "GB". Searched from a run of digits' first digit only (the lookbehind), so each digit
# is tried once: "^(.+?)\s*(\d+)\s*GB$" tried every split of a name against every run of
# digits after it, 1.5 s for a name of 10,000 digits.
NAME_MEMORY = re.compile(r"(?<!\d)(?P<gb>\d+)\s*GB$", re.IGNORECASE)
# The longest name or region of a product read: Novita's are under 30 characters ("US-CA-06
# (California)"). A longer one is the feed's fault and refuses its product before anything
# reads it: a region of 6,000 characters held the whole run, every source, for minutes.
MAX_TEXT = 200


def fetch(ctx: FetchContext) -> list[Payload]:
    """The GPU products, archived as they arrive (the key never)."""
    return _fetch.keyed_get(ctx, PROVIDER, {"GPU products": PRODUCTS_URL}, API_KEY)


def rows(page: Page) -> list[Any]:
    """The products under `data`, their fields checked."""
    return listed_rows(page.payload, PROVIDER, "data", FIELDS, body=page.json())


def offers(product: Any, page: Page) -> list[Item]:
    """One on-demand record per region of a product, for one GPU; pure."""
    sku = str(product.get("id") or "")
    name = str(product.get("name") or "").strip()
    if not sku or not name:
        return [page.reject("product has no id or name", product, sku)]
    cell = product.get("price")
    units, why = json_price(cell, f"{sku} price")
    if units is None:
        return [
            page.no_price(why, product, cell, sku),
            *_not_sold(cell, product, f"1x {name} ({sku})", why),
        ]
    regions = product.get("regions")
    if not isinstance(regions, list):
        return [page.reject(f"{sku}: regions {regions!r:.40} is not a list", product, sku)]
    if why := _too_long(sku, [("name", name)] + [("a region", r) for r in regions]):
        return [page.reject(why, product, sku)]
    codes = [_region(r) for r in regions if isinstance(r, str) and r.strip()]
    if why := too_many_places(codes, sku):
        return [page.reject(why, product, sku)]
    if not codes:
        return [Skip("a product listed in no region", sku)]
    named = NAME_MEMORY.search(name)
    model = name[: named.start()].rstrip() if named else ""
    chip = page.chip(model, float(named["gb"])) if named and model else page.chip(name)
    extra = {
        "price_basis": f"per GPU-hour (price / {PRICE_UNITS_PER_USD:,})",
        "available_deploy": product.get("availableDeploy"),
        "spot_price_listed": product.get("spotPrice"),
        "billing_methods": product.get("billingMethods"),
        **estimate_of(product),
    }
    return [
        page.record(
            region=code,
            instance_type=f"1x {name} ({sku})",  # two products may share a GPU name
            chip=chip,
            chip_count=1.0,
            pricing_model="on_demand",
            price_per_hour=round(units / PRICE_UNITS_PER_USD, 6),
            sku=sku,
            extra={k: v for k, v in extra.items() if v is not None},
            vcpus=host_spec(product.get("cpuPerGpu")),
            ram_gb=host_spec(product.get("memoryPerGpu")),
            disk_gb=host_spec(product.get("diskPerGpu")),
        )
        for code in codes
    ]


def _not_sold(cell: object, product: dict[str, Any], name: str, why: str) -> list[Item]:
    """Of a price saying the product has none (null, "Contact us"), a quiet skip of its offer
    `name` in each region: another copy of the product pricing one refuses both, as priced
    twice (Skip.unpriced); alone, the product's reject says it."""
    regions = product.get("regions")
    if not isinstance(regions, list) or _too_long(name, [("a region", r) for r in regions]):
        return []
    codes = [_region(r) for r in regions if isinstance(r, str) and r.strip()]
    if too_many_places(codes, name):
        return []
    offers = ({"region": c, "instance_type": name, "pricing_model": "on_demand"} for c in codes)
    return unpriced_skips(cell, offers, why, product)


def _too_long(sku: str, texts: list[tuple[str, object]]) -> str | None:
    """Why a product whose name or a region is longer than MAX_TEXT is refused, else None."""
    for field, text in texts:
        if isinstance(text, str) and len(text) > MAX_TEXT:
            return (
                f"{sku:.40}: {field} of {len(text):,} characters ({text[:40]!r}...), longer "
                f"than any Novita gives (at most {MAX_TEXT}): not read"
            )
    return None


def _region(text: str) -> str:
    """The region's code, "US-CA-06" of "US-CA-06 (California)": the text before a closing
    "(place)", else the whole text. Plain string work, linear in the text: the pattern it
    replaces backtracked in time cubic in it (48 s for a region of 4,000 characters)."""
    text = text.strip()
    code, bracket, place = text.partition("(")
    return code.rstrip() if bracket and code and place.endswith(")") else text


SOURCE = Source(
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Novita GPU products API (needs NOVITA_API_KEY): on-demand price per GPU, per region"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Novita",
    checked=Checked(
        asks="`GET /gpu-instance/openapi/v1/products`",
        against=(
            "**test mock**: three product objects of a public aggregator's parser test, said to "
            'mirror live answers ("verified live": price in 1/100,000 USD); the `data` envelope '
            "and fields of Novita's API reference; SkyPilot's fetcher divides by 100,000 too"
        ),
        when="read 2026-11",
        rest="the envelope",
    ),
)
parse = SOURCE.parse
