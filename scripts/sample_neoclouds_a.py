"""Sample archive runs for runpod, vastai, azure, oci and lambda: synthetic prices, real shapes.

Called by make_sample_archive.py for each sample day. Deterministic; a few prices move from
day to day (see MOVES) so the history and drift views have something to show.
"""

from __future__ import annotations

import shutil
import sys
from datetime import datetime
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))

import neoclouds_a_payloads as shapes  # noqa: E402

from chipcost.archive import ArchiveWriter, run_stamp  # noqa: E402
from chipcost.extract import azure, lambda_cloud, oci, runpod, vastai  # noqa: E402

# RunPod per-GPU prices: id, display name, GB, prices, extra keyword arguments.
# fmt: off
RUNPOD = (
    ("NVIDIA H100 80GB HBM3", "H100 SXM", 80, {"securePrice": 2.69, "communityPrice": 1.99,
     "secureSpotPrice": 1.75, "communitySpotPrice": 1.25, "oneWeekPrice": 2.59,
     "oneMonthPrice": 2.49, "threeMonthPrice": 2.39, "sixMonthPrice": 2.29}, {}),
    ("NVIDIA H100 PCIe", "H100 PCIe", 80, {"securePrice": 2.39, "communityPrice": 1.99,
     "secureSpotPrice": 1.45, "communitySpotPrice": 1.19}, {}),
    ("NVIDIA H100 NVL", "H100 NVL", 94, {"securePrice": 2.79, "communityPrice": 2.59,
     "secureSpotPrice": 1.85}, {}),
    ("NVIDIA H200", "H200 SXM", 141, {"securePrice": 3.59, "secureSpotPrice": 2.29,
     "oneMonthPrice": 3.39, "threeMonthPrice": 3.19, "sixMonthPrice": 2.99},
     {"community": False}),
    ("NVIDIA B200", "B200", 180, {"securePrice": 5.99, "oneMonthPrice": 5.69,
     "threeMonthPrice": 5.49}, {"community": False, "stock": "Low"}),
    ("NVIDIA A100 80GB PCIe", "A100 PCIe", 80, {"securePrice": 1.64, "communityPrice": 1.19,
     "secureSpotPrice": 0.82, "communitySpotPrice": 0.6}, {}),
    ("NVIDIA A100-SXM4-80GB", "A100 SXM", 80, {"securePrice": 1.89, "communityPrice": 1.39,
     "secureSpotPrice": 1.05}, {}),
    ("NVIDIA L40S", "L40S", 48, {"securePrice": 0.86, "communityPrice": 0.79,
     "communitySpotPrice": 0.4}, {}),
    ("NVIDIA L4", "L4", 24, {"securePrice": 0.43, "communityPrice": 0.39}, {}),
    ("NVIDIA GeForce RTX 4090", "RTX 4090", 24, {"securePrice": 0.69, "communityPrice": 0.34,
     "communitySpotPrice": 0.2}, {}),
    ("AMD Instinct MI300X OAM", "MI300X", 192, {"securePrice": 2.49},
     {"community": False, "manufacturer": "AMD"}),
)
# fmt: on
# Vast.ai market: gpu_name, MB per GPU, per-GPU dph_base of each offer, GPUs per offer.
VAST = (
    ("H100 SXM", 81559, (1.73, 1.85, 1.87, 1.9, 1.93, 1.99, 2.14, 24.0), (8, 8, 1, 2, 8, 4, 1, 1)),
    ("H100 PCIE", 81559, (1.59, 1.67, 1.75), (1, 2, 1)),
    ("H200", 144384, (2.45, 2.59, 2.69, 2.89, 3.1), (8, 1, 8, 2, 1)),
    ("B200", 184320, (3.65, 3.89, 4.15), (8, 8, 1)),
    ("A100 SXM4", 81920, (0.89, 0.95, 1.02, 1.12), (8, 1, 4, 1)),
    ("L40S", 46068, (0.52, 0.57, 0.61), (1, 4, 2)),
    ("RTX 4090", 24564, (0.29, 0.31, 0.33, 0.35, 0.4, 0.52), (1, 2, 1, 4, 1, 8)),
)
VAST_PLACES = ("Texas, US", "Quebec, CA", "Oslo, NO", "Nevada, US", "Bavaria, DE", "Tokyo, JP")
# Azure: size, regions, on demand, spot, low priority, savings plan 1/3 yr, reserved 1/3 yr total.
# fmt: off
AZURE = (
    ("Standard_ND96isr_H100_v5", ("eastus", "southcentralus", "swedencentral"), 98.32, 39.33,
     None, 70.31, 47.29, 521712.0, 1098340.0),
    ("Standard_ND96isr_H200_v5", ("eastus2", "swedencentral"), 110.24, 44.1, None, 78.82,
     53.02, 585013.0, 1231550.0),
    ("Standard_ND96isr_MI300X_v5", ("eastus", "westus"), 48.0, 19.2, None, 34.32, 23.09,
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
)
# fmt: on
AZURE_PAGE = 30  # rows per sample page, so that the sample pages too (the API's is 1000)
# OCI price list: part, display name, per-GPU price, metric, category.
OCI = (
    ("B98415", "Oracle Cloud Infrastructure - Compute - GPU - H100", 10.0),
    ("B110519", "OCI - Compute - GPU - H200", 10.0),
    ("B110978", "OCI - Compute - GPU - B200", 14.0),
    ("B110979", "OCI - Compute - GPU - GB200", 16.0),
    ("B109485", "OCI - Compute - GPU - MI300X", 6.0),
    ("B109479", "Compute - GPU - L40S", 3.5),
    ("B95907", "Compute - GPU - A100 - v2", 4.0),
    ("B95909", "Compute  - GPU - A10", 2.0),
)
OCI_OTHER = (  # rows that share the list but are not GPU rentals
    ("B93113", "Compute - Standard - E4 - OCPU", 0.025, "OCPU Per Hour", "Compute - VM"),
    ("B111826", "OCI - NVIDIA AI Enterprise - H100", 2.5, "GPU Per Hour", "Compute - GPU"),
)
# Lambda page rows: GPU cell, VRAM, vCPUs, RAM, storage, per-GPU price.
LAMBDA = (
    ("8x NVIDIA B200 SXM6", "180 GB", "208", "2900 GiB", "22 TiB SSD", 4.99),
    ("8x NVIDIA H100 SXM", "80 GB", "208", "1800 GiB", "22 TiB SSD", 2.99),
    ("1x NVIDIA H100 PCIe", "80 GB", "26", "225 GiB", "1 TiB SSD", 2.49),
    ("1x NVIDIA GH200", "96 GB", "64", "432 GiB", "4 TiB SSD", 1.49),
    ("8x NVIDIA A100 SXM", "80 GB", "240", "1800 GiB", "19.5 TiB SSD", 1.79),
    ("8x NVIDIA A100 SXM", "40 GB", "124", "1800 GiB", "5.8 TiB SSD", 1.29),
    ("1x NVIDIA A10", "24 GB", "30", "200 GiB", "1.4 TiB SSD", 0.75),
)
# (day from, what) -> factor: the scripted price moves of the sample.
MOVES = {
    ("runpod", "NVIDIA H200", 3): 0.944,  # H200 secure 3.59 -> 3.39
    ("vastai", "H100 SXM", 5): 0.95,  # the H100 market softens 5%
    ("azure", "Standard_ND96isr_H200_v5", 4): 0.9,  # spot and on demand cut 10%
    ("lambda", "8x NVIDIA B200 SXM6", 6): 0.9,  # B200 4.99 -> 4.49
}


def factor(source: str, name: str, day: int) -> float:
    value = 1.0
    for (moved, what, since), change in MOVES.items():
        if moved == source and what == name and day >= since:
            value *= change
    return value


def runpod_payload(day: int) -> bytes:
    gpus = []
    for gpu_id, name, memory, prices, kw in RUNPOD:
        moved = {k: round(v * factor("runpod", gpu_id, day), 2) for k, v in prices.items()}
        gpus.append(shapes.runpod_gpu(gpu_id, name, memory, moved, **kw))
    placeholder = shapes.runpod_gpu("unknown", "unknown", 0, {}, community=False, stock=None)
    return shapes.runpod_body([*gpus, placeholder])


def vast_payload(day: int) -> bytes:
    offers, offer_id = [], 18_400_000 + day * 1000
    for name, ram, per_gpu, counts in VAST:
        for index, (price, gpus) in enumerate(zip(per_gpu, counts, strict=True)):
            offer_id += 37
            base = round(price * gpus * factor("vastai", name, day), 4)
            place = VAST_PLACES[(index + day) % len(VAST_PLACES)]
            offers.append(shapes.vast_offer(offer_id, name, gpus, ram, base, geolocation=place))
    return shapes.vast_body(offers)


def azure_items(day: int) -> dict[tuple[str, str], list[dict]]:
    """(price type, series prefix) -> the Items of that query."""
    queries: dict[tuple[str, str], list[dict]] = {
        (t, s): [] for t in azure.PRICE_TYPES for s in azure.SERIES
    }
    for sku, regions, demand, spot, low, sp1, sp3, ri1, ri3 in AZURE:
        move = factor("azure", sku, day)
        series = "Standard_ND" if sku.startswith("Standard_ND") else "Standard_NC"
        for region in regions:
            savings = {"1 Year": sp1, "3 Years": sp3} if sp1 else None
            rows = queries[("Consumption", series)]
            rows.append(shapes.azure_item(sku, region, round(demand * move, 4), savings=savings))
            rows.append(shapes.azure_item(sku, region, round(spot * move, 4), kind="Spot"))
            if low:
                rows.append(shapes.azure_item(sku, region, low, kind="Low Priority"))
            for term, total in (("1 Year", ri1), ("3 Years", ri3)):
                if total:
                    queries[("Reservation", series)].append(
                        shapes.azure_item(sku, region, total, reservation=term)
                    )
    return queries


def write_azure(writer: ArchiveWriter, day: int, moment: datetime) -> None:
    """Each query's pages; later pages are fetched from the previous page's NextPageLink."""
    for (price_type, series), items in azure_items(day).items():
        params = azure.query_params(price_type, series)
        pages = [items[i : i + AZURE_PAGE] for i in range(0, len(items), AZURE_PAGE)] or [[]]
        url, request = azure.PRICES_URL, {"method": "GET", "params": params}
        for number, page in enumerate(pages, start=1):
            link = None
            if number < len(pages):
                link = shapes.azure_next_link(params, number * AZURE_PAGE)
            writer.write(shapes.azure_page(page, link), url, fetched_at=moment, request=request)
            url, request = link or "", {"method": "GET"}


def oci_payload(day: int) -> bytes:
    items = [shapes.oci_item(part, name, price) for part, name, price in OCI]
    items += [shapes.oci_item(p, n, v, metric=m, category=c) for p, n, v, m, c in OCI_OTHER]
    return shapes.oci_body(items, "2026-11-03T09:12:40.118Z")


def lambda_payload(day: int) -> bytes:
    rows = [(*cells, f"${price * factor('lambda', cells[0], day):.2f}") for *cells, price in LAMBDA]
    return shapes.lambda_page(rows)


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """Every source's payloads of one sample day, archived the way each fetch archives them."""
    stamp = run_stamp(moment)
    for name in ("runpod", "vastai", "azure", "oci", "lambda"):
        shutil.rmtree(out / stamp / name, ignore_errors=True)

    def writer(source: str) -> ArchiveWriter:
        return ArchiveWriter(out, stamp, source, sample=True)

    graphql = {"method": "POST", "json": {"query": runpod.GPU_TYPES_QUERY}}
    writer("runpod").write(
        runpod_payload(day), runpod.GRAPHQL_URL, fetched_at=moment, request=graphql
    )
    search = {"method": "POST", "json": vastai.SEARCH}
    writer("vastai").write(vast_payload(day), vastai.BUNDLES_URL, fetched_at=moment, request=search)
    write_azure(writer("azure"), day, moment)
    listing = {"method": "GET", "params": oci.PARAMS}
    writer("oci").write(oci_payload(day), oci.PRODUCTS_URL, fetched_at=moment, request=listing)
    writer("lambda").write(
        lambda_payload(day),
        lambda_cloud.PAGE_URL,
        fetched_at=moment,
        ext="html",
        request={"method": "GET"},
    )
    return out / stamp
