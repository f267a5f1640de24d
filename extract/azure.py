"""Azure Retail Prices API: ND/NC/NV/NG GPU VMs on demand, spot, low priority, savings plan,
reserved."""

from __future__ import annotations

from typing import Any

from chipcost.core.payload import Payload
from chipcost.core.record import HOURS_PER_TERM, PriceRecord
from chipcost.extract import _fetch, _http
from chipcost.extract._azure_sizes import SERIES_TABLE, Mapped, documented_sizes, map_size
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import Offer, field_names, missing_fields, require_columns, shape_error
from chipcost.extract._slices import SliceError, share_of
from chipcost.extract.base import CLOUD_OFFERS, Checked, FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "azure"
PROVIDER = "azure"
# Public and unauthenticated. The 2023-01-01-preview version is the one that carries
# savings-plan prices (savingsPlan[] on consumption rows).
PRICES_URL = "https://prices.azure.com/api/retail/prices"
API_VERSION = "2023-01-01-preview"
# One query per price type and GPU series prefix: plain `and` filters only, which every API
# version supports. Windows rows (licence included) are left out at the source. Every series in
# core/data/azure_series.csv starts with one of these prefixes (a test holds it): ND and NC
# (training and inference), NV (visualisation: NVv2, NVv3, NVv4, NVadsA10 v5, NVads V710 v5) and
# NG (NGads V620). What is priced is what the API lists: each size is mapped to its chip by rule
# (extract/_azure_sizes.py), and a size no rule maps is named in the run's notes.
PRICE_TYPES = ("Consumption", "Reservation")
SERIES = ("Standard_ND", "Standard_NC", "Standard_NV", "Standard_NG")
# A query spans every region: a few thousand rows, a few 1,000-row pages. A runaway
# NextPageLink chain stops here.
MAX_PAGES = 50
TERMS = {"1 Year": "1yr", "3 Years": "3yr"}
UNMAPPED = "GPU VM size no rule maps to a chip and GPU count"
# The fields that decide what a row's price means: never assumed when missing (the kit's rule).
DECISIVE = ("currencyCode", "unitOfMeasure")
# Each item states its currencyCode; the page's envelope states it once too (BillingCurrency).
# An item without its own is read in the envelope's (a recorded answer trimmed to a few fields
# keeps no currencyCode); a page stating neither is refused naming currencyCode.
ENVELOPE_CURRENCY = "BillingCurrency"
__all__ = ["SOURCE", "documented_sizes", "fetch", "map_size", "parse", "query_params"]

FORMAT = Format(
    "retail prices",
    "/api/retail/prices",
    (
        Rows(
            "Items[]",
            {
                "currencyCode": "string",
                "tierMinimumUnits": "number",
                "retailPrice": "number",
                "unitPrice": "number",
                "armRegionName": "string",
                "location": "string",
                "effectiveStartDate": "string",
                "meterId": "string",
                "meterName": "string",
                "productId": "string",
                "skuId": "string",
                "productName": "string",
                "skuName": "string",
                "serviceName": "string",
                "serviceId": "string",
                "serviceFamily": "string",
                "unitOfMeasure": "string",
                "type": "string",
                "isPrimaryMeterRegion": "boolean",
                "armSkuName": "string",
                "savingsPlan": "array",
                "reservationTerm": "string",
            },
            required=("armSkuName", "armRegionName", "retailPrice", "currencyCode", "type"),
            prices=("retailPrice", "unitPrice"),
        ),
    ),
)
EXPECTED_FIELDS = FORMAT.required("Items[]")


def query_params(price_type: str, series: str) -> dict[str, str]:
    """The first page's query string of one price type and series."""
    return {
        "api-version": API_VERSION,
        "currencyCode": "'USD'",
        # Primary meters only: the preview version also lists each meter's secondary copies.
        "meterRegion": "'primary'",
        "$filter": (
            f"serviceName eq 'Virtual Machines' and priceType eq '{price_type}' and "
            f"contains(armSkuName, '{series}') and contains(productName, 'Windows') eq false"
        ),
    }


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """Every page of every query, each archived as it arrives."""
    payloads: list[Payload] = []
    with client or _http.http_client(PROVIDER, ctx) as http:
        for price_type in PRICE_TYPES:
            for series in SERIES:
                payloads += _fetch.linked_pages(
                    ctx,
                    http,
                    PRICES_URL,
                    query_params(price_type, series),
                    token="NextPageLink",
                    max_pages=MAX_PAGES,
                    label=f"{SOURCE_NAME}: {price_type} {series}",
                    where=f"{PRICES_URL} ({price_type}, {series})",
                    too_many="raise MAX_PAGES in extract/azure.py if Azure lists that many",
                )
    return payloads


def rows(page: Page) -> list[Any]:
    """The page's Items. Azure always sells GPU VMs: pages that hold none mean the filter
    stopped matching (refused by the kit's rule)."""
    body = page.json()
    if not isinstance(body, dict) or not isinstance(body.get("Items"), list):
        raise shape_error(PROVIDER, page.payload, "Items list", body)
    items = body["Items"]
    if items:
        expected = EXPECTED_FIELDS
        if isinstance(body.get(ENVELOPE_CURRENCY), str):
            expected = tuple(f for f in EXPECTED_FIELDS if f != "currencyCode")
        require_columns(field_names(items), expected, page.payload, PROVIDER)
    return items


def _currency(item: dict[str, Any], page: Page) -> Any:
    """The item's currencyCode, else the one its page's envelope bills in."""
    return item.get("currencyCode", page.json().get(ENVELOPE_CURRENCY))


def offers(item: Any, page: Page) -> list[Item]:
    """The records of one Items[] row: one price, or an on-demand price and its savings plans."""
    if not isinstance(item, dict):
        return [page.reject(f"Items entry is a {type(item).__name__}, not an object", item)]
    why_skip = _not_ours(item)
    if why_skip:
        return [Skip(f"{why_skip} (not Linux GPU VM prices)")]
    sku, price = item.get("armSkuName"), item.get("retailPrice")
    problem = _problem(item, price, _currency(item, page))
    if problem:
        return [page.reject(problem, item, str(item.get("skuId", "")))]
    mapped, why = map_size(str(sku))
    if mapped is None:
        return [Skip(f"{UNMAPPED} ({why} in core/data/{SERIES_TABLE})", str(sku))]
    try:  # a size renting a share of one GPU is marked by the slice rule (extract/_slices.py)
        count, mark = share_of(mapped.chip, mapped.count)
    except SliceError as exc:
        return [page.reject(f"{sku}: {exc}", item, str(item.get("skuId", "")))]
    vm = _vm(item, page, mapped, count, mark)
    if item.get("type") == "Reservation":
        return [_reserved(item, vm, float(price))]
    model, plan = _consumption_kind(item)
    made: list[Item] = [vm.record(price_per_hour=float(price), pricing_model=model, plan=plan)]
    if model == "on_demand":
        made.extend(_savings_plans(item, vm, page))
    return made


def _not_ours(item: dict[str, Any]) -> str:
    """Why a row is not a Linux GPU VM price we read ('' when it is)."""
    if "Windows" in str(item.get("productName", "")):
        return "a Windows row"
    if item.get("isPrimaryMeterRegion") is False:
        return "a secondary meter"
    if item.get("type") not in PRICE_TYPES:
        return f"a {item.get('type')} row"
    return ""


def _problem(item: dict[str, Any], price: Any, currency: Any) -> str:
    missing = missing_fields({**item, "currencyCode": currency}, DECISIVE)
    if missing:
        return missing
    if currency != "USD":
        return f"currency {currency!r} is not USD (the request asked for USD)"
    if item.get("unitOfMeasure") != "1 Hour":
        return f"unit {item.get('unitOfMeasure')!r} is not '1 Hour'"
    if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
        return f"retailPrice {price!r} is not a positive price"
    if not isinstance(item.get("armSkuName"), str) or not item.get("armSkuName"):
        return f"armSkuName {item.get('armSkuName')!r} is not a VM size name"
    if not isinstance(item.get("armRegionName"), str) or not item.get("armRegionName"):
        return "armRegionName is missing: cannot tell where the price applies"
    if item.get("type") == "Reservation" and str(item.get("reservationTerm")) not in TERMS:
        return f"reservationTerm {item.get('reservationTerm')!r} is not 1 Year or 3 Years"
    return ""


def _consumption_kind(item: dict[str, Any]) -> tuple[str, str]:
    """Spot and low-priority meters are told apart by name: 'ND96asr v4 Spot' / 'Low Priority'."""
    names = f"{item.get('meterName', '')} {item.get('skuName', '')}"
    if "Low Priority" in names:
        return "spot", "low_priority"
    if "Spot" in names:
        return "spot", "default"
    return "on_demand", "default"


def _reserved(item: dict[str, Any], vm: Offer, total: float) -> PriceRecord:
    # A reservation's price is the whole term's; it is paid up front or in equal monthly
    # instalments of the same total, so it is recorded as all upfront, amortised per hour.
    term = TERMS[item["reservationTerm"]]
    hourly = round(total / HOURS_PER_TERM[term], 6)
    return vm.record(
        price_per_hour=hourly,
        pricing_model="reserved",
        term=term,
        payment="all_upfront",
        upfront=total,
    )


def _savings_plans(item: dict[str, Any], vm: Offer, page: Page) -> list[Item]:
    made: list[Item] = []
    for plan in item.get("savingsPlan") or []:
        price = plan.get("retailPrice", plan.get("unitPrice")) if isinstance(plan, dict) else None
        term = TERMS.get(str(plan.get("term", ""))) if isinstance(plan, dict) else None
        if term is None or isinstance(price, bool) or not isinstance(price, int | float):
            reason = f"savingsPlan entry {plan!r} has no known term or numeric price"
            made.append(page.reject(reason, item, str(item.get("skuId", ""))))
            continue
        # Savings plans are an hourly commitment billed monthly: nothing is paid up front.
        made.append(
            vm.record(
                price_per_hour=float(price),
                pricing_model="savings_plan",
                term=term,
                payment="no_upfront",
                plan="compute",
            )
        )
    return made


def _vm(
    item: dict[str, Any], page: Page, mapped: Mapped, count: float, mark: dict[str, str]
) -> Offer:
    """What every price of one VM size in one region shares."""
    extra = {
        **mark,
        "meter": item.get("meterName"),
        "product": item.get("productName"),
        "series": mapped.series,
        "effective": item.get("effectiveStartDate"),
        **estimate_of(item),
    }
    if mapped.promo:
        extra["promo"] = True
    return page.offer(
        region=str(item["armRegionName"]),
        instance_type=str(item["armSkuName"]),
        chip=mapped.chip,
        chip_count=count,
        currency=str(_currency(item, page)),
        sku=str(item.get("skuId", "")),
        extra=extra,
    )


SOURCE = Source(
    most_offers=CLOUD_OFFERS,
    formats=(FORMAT,),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Azure Retail Prices API: Linux ND/NC/NV/NG GPU VMs in every region, on demand, spot, "
        "low priority, 1/3-year savings plans and reservations"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    title="Azure",
    checked=Checked(
        asks="Retail Prices API, Consumption and Reservation, ND, NC, NV and NG series, Linux",
        against=(
            "**recorded**: 83 Consumption items of ten GPU sizes in 27 regions "
            "(ewyluda/gpu-price-index's fixture, seven fields an item, no `currencyCode`), parsed "
            "alone; documentation, other projects' parsers, a public live capture of the eastus "
            "`Standard_ND96isr_H100_v5` rows (98.32 on demand, 18.169536 spot) and 82 real size "
            "names"
        ),
        when="stamped 2026-09-28; capture 2026-09-16",
        rest=(
            "the page envelope, Reservation items, `savingsPlan`; the good pages reconstructed in "
            "the documented shape, their other prices synthetic"
        ),
    ),
)
parse = SOURCE.parse
