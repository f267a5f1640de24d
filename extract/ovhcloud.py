"""OVHcloud's public order catalog (public): hourly prices of its Public Cloud GPU instance
flavors, in the catalog's currency as stated (every read converts euros at the ECB's rate of
the price's day)."""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import STORED_CURRENCIES, ParseResult
from chipcost.extract import _fetch
from chipcost.extract._formats import Format, Rows
from chipcost.extract._fx import ECB_DAILY
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import listed_rows, parse_count
from chipcost.extract._rates import with_archived_rates
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source, each_row

SOURCE_NAME = "ovhcloud"
PROVIDER = "ovhcloud"
# The public catalog of Public Cloud for the French subsidiary (euros): every instance flavor is
# an addon with its technical blob (CPU, memory, GPU) and its pricings. No key is needed.
CATALOG_URL = "https://api.ovh.com/1.0/order/catalog/public/cloud?ovhSubsidiary=FR"
INSTANCE_PRODUCT = "publiccloud-instance"
# The hourly, pay-as-you-go plan of a flavor ("h100-380.consumption"); the monthly one
# ("h100-380.monthly.postpaid") is kept beside it, not as a price per hour.
HOURLY, MONTHLY = ".consumption", ".monthly.postpaid"
# Catalog prices are integers in 1e-8 of the currency (OVHcloud's "micro-cents").
UNITS_PER_CURRENCY = 100_000_000
# A pricing's period is its `interval` of `intervalUnit`s (1 hour; 720 hours is a price for
# 720 hours, not an hourly one): the hours in each unit read as a price per hour. A month has
# no fixed hours, so a monthly pricing is kept beside the hourly price, never divided; any
# other unit is refused, naming it.
HOURS_PER_UNIT = {"hour": 1, "day": 24}
MONTH = "month"

FORMAT = Format(
    "public cloud catalog",
    "/1.0/order/catalog/public/cloud",
    (
        Rows(
            "addons[]",
            {
                "planCode": "string",
                "invoiceName": "string",
                "product": "string",
                "pricingType": "string",
                "consumptionConfiguration": "null",
                "pricings": "array",
                "configurations": "array",
                "addonFamilies": "array",
                "blobs": "object",
            },
            required=("planCode", "product", "pricings", "blobs"),
        ),
    ),
)
FIELDS = FORMAT.required("addons[]")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The catalog, archived as it arrives."""
    return _fetch.one_page(ctx, PROVIDER, CATALOG_URL, label="public cloud catalog", ext="json")


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One on-demand record per GPU flavor, per instance-hour, in the catalog's currency; and
    the rates of the ECB daily file an earlier version archived beside the catalog, as fx_rates
    rows (extract/_rates.py); pure."""
    return with_archived_rates(payloads, SOURCE_NAME, _listing)


def _listing(payloads: list[Payload]) -> ParseResult:
    return each_row(payloads, SOURCE_NAME, PROVIDER, rows=rows, offers=offers)


def rows(page: Page) -> list[Any]:
    """The catalog's addons (instance flavors among them), each with the catalog's currency."""
    body = page.json()
    addons = listed_rows(page.payload, PROVIDER, "addons", FIELDS, body=body)
    locale = body.get("locale") if isinstance(body, dict) else None
    currency = str(locale.get("currencyCode") or "") if isinstance(locale, dict) else ""
    monthly = {
        a["planCode"].removesuffix(MONTHLY): a
        for a in addons
        if isinstance(a, dict) and str(a.get("planCode", "")).endswith(MONTHLY)
    }
    return [
        {"currency": currency, "addon": a, "monthly": monthly.get(_flavor(a))}
        for a in addons
        if not (isinstance(a, dict) and str(a.get("planCode", "")).endswith(MONTHLY))
    ]


def offers(row: Any, page: Page) -> list[Item]:
    """The hourly price of one GPU flavor; other addons are counted, not loaded."""
    addon, currency = row["addon"], row["currency"]
    code = str(addon.get("planCode") or "") if isinstance(addon, dict) else ""
    if not isinstance(addon, dict) or addon.get("product") != INSTANCE_PRODUCT:
        return [Skip("not an instance flavor (storage, network, ...)")]
    technical = (addon.get("blobs") or {}).get("technical") or {}
    gpu = technical.get("gpu") if isinstance(technical, dict) else None
    if not isinstance(gpu, dict) or not gpu.get("model"):
        return [Skip("a CPU-only flavor", _flavor(addon))]
    if not code.endswith(HOURLY):
        return [Skip("a flavor's plan for a special zone or billing (not .consumption)", code)]
    name = _flavor(addon)
    try:
        count = parse_count(gpu.get("number"))
        hourly = _hourly(addon)
    except ValueError as exc:
        return [page.reject(f"{code}: {exc}", addon, code)]
    if currency not in STORED_CURRENCIES:
        why = f"{code}: catalog currency {currency!r} is not one prices are stored in"
        return [page.reject(f"{why} ({', '.join(STORED_CURRENCIES)})", addon, code)]
    memory = (gpu.get("memory") or {}).get("size") if isinstance(gpu.get("memory"), dict) else None
    extra: dict[str, Any] = {
        "gpu_model": gpu.get("model"),
        "price_basis": "per instance-hour",
        "price_listed": f"{hourly:g} {currency}",
        "monthly_price": _monthly(row["monthly"], currency),
    }
    memory_gb = host_spec(memory)
    return [
        page.record(
            region="global",
            instance_type=name,
            chip=page.chip(str(gpu["model"]), memory_gb),
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=float(hourly),
            currency=currency,
            sku=code,
            extra={k: v for k, v in extra.items() if v is not None},
            vcpus=host_spec((technical.get("cpu") or {}).get("cores")),
            ram_gb=host_spec((technical.get("memory") or {}).get("size")),
        )
    ]


def _flavor(addon: Any) -> str:
    """'h100-380' of 'h100-380.consumption'."""
    return str(addon.get("planCode") or "").split(".")[0] if isinstance(addon, dict) else ""


def _hourly(addon: dict[str, Any]) -> float:
    """The addon's price per hour, in the catalog's currency, from its pricings' periods;
    ValueError for none, a period not read, or two periods at different hourly prices."""
    pricings = addon.get("pricings")
    if not isinstance(pricings, list):
        raise ValueError("pricings is not a list")
    hourly: dict[float, str] = {}
    for pricing in pricings:
        if not isinstance(pricing, dict) or pricing.get("intervalUnit") == MONTH:
            continue
        hours, period = _period(pricing)
        price = pricing.get("price")
        if isinstance(price, bool) or not isinstance(price, int) or price <= 0:
            raise ValueError(
                f"pricing price {price!r} is not a positive whole number of 1e-8 units"
            )
        # rounded below a 1e-8 unit: 24 x 2.8 a day is 2.8 an hour, not 2.8000000000000003
        per_hour = round(price / UNITS_PER_CURRENCY / hours, 10)
        hourly.setdefault(per_hour, f"{price} per {period}")
    if not hourly:
        raise ValueError("no pricing per hour")
    if len(hourly) > 1:
        raise ValueError(
            f"{len(hourly)} pricings per hour at different prices ({', '.join(hourly.values())})"
            ": which one applies cannot be told"
        )
    return next(iter(hourly))


def _period(pricing: dict[str, Any]) -> tuple[int, str]:
    """(hours, '720 hour') of a pricing's period; ValueError naming a period it cannot read."""
    unit, interval = pricing.get("intervalUnit"), pricing.get("interval")
    period = f"{interval!r} {unit!r}"
    if unit not in HOURS_PER_UNIT:
        raise ValueError(
            f"pricing period {period} is not one read here "
            f"(intervalUnit {', '.join([*HOURS_PER_UNIT, MONTH])})"
        )
    if isinstance(interval, bool) or not isinstance(interval, int) or interval < 1:
        raise ValueError(f"pricing period {period}: interval is not a whole number of {unit}s")
    return interval * HOURS_PER_UNIT[unit], f"{interval} {unit}"


def _monthly(addon: Any, currency: str) -> str | None:
    """'1940 EUR a month' from the flavor's monthly plan, when the catalog has one."""
    pricings = addon.get("pricings") if isinstance(addon, dict) else None
    months = [p for p in pricings if isinstance(p, dict) and p.get("intervalUnit") == "month"] \
        if isinstance(pricings, list) else []  # fmt: skip
    price = months[0].get("price") if months else None
    if isinstance(price, int) and not isinstance(price, bool) and price > 0:
        return f"{price / UNITS_PER_CURRENCY:g} {currency} a month"
    return None


SOURCE = Source(
    formats=(FORMAT, ECB_DAILY),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "OVHcloud public order catalog (Public Cloud, FR): hourly on-demand prices of its GPU "
        "instance flavors, in the catalog's currency (euros converted on read)"
    ),
    fetch=fetch,
    parse=parse,
    title="OVHcloud",
    checked=Checked(
        asks="the public Public Cloud order catalog (FR), prices in its currency (euros)",
        against=(
            "docs only: the fields a public project reads from a saved copy of the catalog; "
            "flavors and euro prices from its table generated from the catalog; **recorded** GPU "
            "names: the `gpu.model` labels gpu-index pins from real catalogs (2026-08-22)"
        ),
        when="table 2025-01-27",
        rest="the catalog reconstructed",
    ),
)
