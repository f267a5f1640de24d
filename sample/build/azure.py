"""Sample runs of azure: Retail Prices API pages chained by NextPageLink, synthetic prices."""

from __future__ import annotations

import zlib
from datetime import datetime
from pathlib import Path
from typing import Any
from urllib.parse import quote, urlencode

from chipcost.archive import ArchiveWriter
from chipcost.extract import azure
from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.sample.build._common import factor, fresh_writer, indented_json

# size, regions, on demand, spot, low priority, savings plan 1/3 yr, reserved 1/3 yr total.
# The first region's prices are the size's; any other region copies them (and says so).
# fmt: off
SIZES = (
    # H100 eastus: a public project's live capture of the Retail Prices answer (98.32 on
    # demand, 18.169536 spot; sample/REFERENCES.md [AZ]).
    ("Standard_ND96isr_H100_v5", ("eastus", "southcentralus", "swedencentral"), 98.32, 18.17,
     None, 70.31, 47.29, 521712.0, 1098340.0),
    ("Standard_ND96isr_H200_v5", ("eastus2", "swedencentral"), 110.24, 44.1, None, 78.82,
     53.02, 585013.0, 1231550.0),
    # MI300X is not sold in eastus: the sample lists it in westus only.
    ("Standard_ND96isr_MI300X_v5", ("westus",), 48.0, 19.2, None, 34.32, 23.09,
     254726.0, 536248.0),
    ("Standard_ND96amsr_A100_v4", ("eastus", "westus2", "westeurope"), 32.77, 13.11, 6.55,
     23.43, 15.76, 173901.0, 366096.0),
    ("Standard_ND96asr_v4", ("eastus", "westeurope"), 27.2, 10.88, 5.44, 19.45, 13.08,
     144342.0, 303868.0),
    ("Standard_NC24ads_A100_v4", ("eastus", "westus2", "westeurope"), 3.67, 1.47, None, 2.62,
     1.77, 19476.0, 41000.0),
    ("Standard_NC40ads_H100_v5", ("eastus", "southcentralus"), 6.98, 2.79, None, 4.99, 3.36,
     37041.0, 77981.0),
    ("Standard_NC8ads_A10_v4", ("eastus",), 0.91, 0.36, None, None, None, None, None),
    # The visualisation series (NV, NG): whole-GPU sizes and one slice, refused as a fraction.
    ("Standard_NV36ads_A10_v5", ("eastus", "westeurope"), 3.2, 0.64, None, None, None, None,
     None),
    ("Standard_NV6ads_A10_v5", ("eastus",), 0.45, 0.09, None, None, None, None, None),
)
# fmt: on
# The (size, region) offers whose on-demand and spot prices are traced to a public copy
# (sample/REFERENCES.md); their reservations, and every other offer, are marked an estimate in
# their items, beside Azure's own fields.
TRACED = {("Standard_ND96isr_H100_v5", "eastus")}


def estimate(sku: str, regions: tuple[str, ...], region: str) -> str:
    """What an untraced offer's price rests on ('' for a traced one)."""
    if (sku, region) in TRACED:
        return ""
    if region == regions[0]:
        return "no copy of Azure's Retail Prices row for this size and region was found"
    return (
        f"copies {regions[0]}'s price; no copy of {region}'s own Retail Prices row was found "
        "(regions differ: the sample does not know by how much)"
    )


PAGE = 30  # rows per sample page, so that the sample pages too (the API's is 1000)
# (size, first day) -> price factor from that day on.
MOVES = {("Standard_ND96isr_H200_v5", 4): 0.9}  # spot and on demand cut 10%


def azure_item(
    arm_sku: str,
    region: str,
    price: float,
    *,
    kind: str = "",
    reservation: str = "",
    savings: dict[str, float] | None = None,
    location: str = "US East",
    currency: str = "USD",
) -> dict[str, Any]:
    """One Items[] row; kind is '', 'Spot' or 'Low Priority'; reservation '1 Year'/'3 Years'."""
    size = arm_sku.removeprefix("Standard_").replace("_", " ")
    name = f"{size} {kind}".strip()
    series = "".join(ch for ch in size.split()[0] if not ch.isdigit())
    item: dict[str, Any] = {
        "currencyCode": currency,
        "tierMinimumUnits": 0.0,
        "retailPrice": price,
        "unitPrice": price,
        "armRegionName": region,
        "location": location,
        "effectiveStartDate": "2025-06-01T00:00:00Z",
        "meterId": f"{zlib.crc32(f'{arm_sku}|{region}|{kind}|{reservation}'.encode()):010d}",
        "meterName": name,
        "productId": f"DZH318Z0{len(series):02d}{series[:2]}",
        "skuId": f"DZH318Z0{len(series):02d}{series[:2]}/00{len(name):02d}",
        "productName": f"Virtual Machines {series} Series",
        "skuName": name,
        "serviceName": "Virtual Machines",
        "serviceId": "DZH313Z7MMC8",
        "serviceFamily": "Compute",
        "unitOfMeasure": "1 Hour",
        "type": "Reservation" if reservation else "Consumption",
        "isPrimaryMeterRegion": True,
        "armSkuName": arm_sku,
    }
    if reservation:
        item["reservationTerm"] = reservation
    if savings:
        item["savingsPlan"] = [
            {"unitPrice": value, "retailPrice": value, "term": term}
            for term, value in savings.items()
        ]
    return item


def next_link(params: dict[str, str], skip: int) -> str:
    """A NextPageLink as Azure writes it: the same query plus $skip, '$' and quotes unescaped."""
    query = urlencode({**params, "$skip": skip}, quote_via=lambda text, *_: quote(text, "$'"))
    return f"https://prices.azure.com:443/api/retail/prices?{query}"


def prices_page(items: list[dict[str, Any]], link: str | None) -> bytes:
    return indented_json(
        {
            "BillingCurrency": "USD",
            "CustomerEntityId": "Default",
            "CustomerEntityType": "Retail",
            "Items": items,
            "NextPageLink": link,
            "Count": len(items),
        }
    )


def query_items(day: int) -> dict[tuple[str, str], list[dict[str, Any]]]:
    """(price type, series prefix) -> the Items of that query."""
    queries: dict[tuple[str, str], list[dict[str, Any]]] = {
        (t, s): [] for t in azure.PRICE_TYPES for s in azure.SERIES
    }
    for sku, regions, demand, spot, low, sp1, sp3, ri1, ri3 in SIZES:
        move = factor(MOVES, sku, day)
        series = next(prefix for prefix in azure.SERIES if sku.startswith(prefix))
        for region in regions:
            traced = (sku, region) in TRACED
            # A traced item carries only what its capture shows: no savings plans.
            savings = {"1 Year": sp1, "3 Years": sp3} if sp1 and not traced else None
            made = [azure_item(sku, region, round(demand * move, 4), savings=savings)]
            made.append(azure_item(sku, region, round(spot * move, 4), kind="Spot"))
            if low:
                made.append(azure_item(sku, region, low, kind="Low Priority"))
            reserved = [
                azure_item(sku, region, total, reservation=term)
                for term, total in (("1 Year", ri1), ("3 Years", ri3))
                if total
            ]
            if why := estimate(sku, regions, region):
                for row in (*made, *reserved):
                    row[ESTIMATE_KEY] = why
            for row in reserved if traced else ():
                row[ESTIMATE_KEY] = "no copy of Azure's reservation price for this size was found"
            queries[("Consumption", series)].extend(made)
            queries[("Reservation", series)].extend(reserved)
    return queries


def write_query(
    writer: ArchiveWriter, params: dict[str, str], items: list[dict[str, Any]], moment: datetime
) -> None:
    """One query's pages; later pages are fetched from the previous page's NextPageLink."""
    pages = [items[i : i + PAGE] for i in range(0, len(items), PAGE)] or [[]]
    url, request = azure.PRICES_URL, {"method": "GET", "params": params}
    for number, page in enumerate(pages, start=1):
        link = next_link(params, number * PAGE) if number < len(pages) else None
        writer.write(prices_page(page, link), url, fetched_at=moment, request=request)
        url, request = link or "", {"method": "GET"}


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/azure/: every query's pages, archived the way fetch archives them."""
    writer = fresh_writer(out, moment, azure.SOURCE_NAME)
    for (price_type, series), items in query_items(day).items():
        write_query(writer, azure.query_params(price_type, series), items, moment)
    return writer.directory
