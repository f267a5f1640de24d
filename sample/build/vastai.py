"""Sample runs of vastai: a bundles search answer in Vast.ai's real shape, synthetic offers."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.vastai import ALLOCATED_STORAGE_GIB, BUNDLES_URL, SEARCHES, SOURCE_NAME
from chipcost.sample.build._common import factor, fresh_writer, indented_json

# The market: gpu_name, MB per GPU, per-GPU dph_base of each offer, GPUs per offer.
MARKET = (
    ("H100 SXM", 81559, (1.73, 1.85, 1.87, 1.9, 1.93, 1.99, 2.14, 24.0), (8, 8, 1, 2, 8, 4, 1, 1)),
    ("H100 PCIE", 81559, (1.59, 1.67, 1.75), (1, 2, 1)),
    ("H200", 144384, (2.45, 2.59, 2.69, 2.89, 3.1), (8, 1, 8, 2, 1)),
    ("B200", 184320, (3.65, 3.89, 4.15), (8, 8, 1)),
    ("A100 SXM4", 81920, (0.89, 0.95, 1.02, 1.12), (8, 1, 4, 1)),
    ("L40S", 46068, (0.52, 0.57, 0.61), (1, 4, 2)),
    ("RTX 4090", 24564, (0.29, 0.31, 0.33, 0.35, 0.4, 0.52), (1, 2, 1, 4, 1, 8)),
    ("RTX 5090", 32607, (0.46, 0.52, 0.6), (1, 2, 1)),
    ("RTX A6000", 49140, (0.42, 0.47), (1, 4)),
    ("RTX 6000Ada", 49140, (0.68, 0.75), (1, 2)),
    ("A40", 46068, (0.39,), (2,)),
    ("A10", 23028, (0.17, 0.19), (1, 1)),
)
# Offers of hosts that are not verified (the search asks for verified ones; any that come
# anyway are left out of the medians): gpu_name, MB, per-GPU dph_base, GPUs, status.
NOT_VERIFIED = (
    ("H100 SXM", 81559, 0.95, 1, "unverified"),
    ("RTX 4090", 24564, 0.18, 1, "deverified"),
)
PLACES = ("Texas, US", "Quebec, CA", "Oslo, NO", "Nevada, US", "Bavaria, DE", "Tokyo, JP")
# (gpu_name, first day) -> price factor from that day on.
MOVES = {("H100 SXM", 5): 0.95}  # the H100 market softens 5%
ESTIMATE = "synthetic: no public copy of Vast.ai's offers was read here; near its market level"


def vast_offer(
    offer_id: int, gpu_name: str, num_gpus: int, gpu_ram_mb: int, dph_base: float, **kw: Any
) -> dict[str, Any]:
    """One bundle offer as the search returns it: prices are for the whole offer (all GPUs).

    dph_total is the price of the search's pricing type (`bid`: the minimum bid) plus the
    allocated storage's share of storage_cost.
    """
    storage_cost = kw.get("storage_cost", 0.15)  # $/GB/month
    disk = kw.get("disk_space", 500.0)
    min_bid = kw.get("min_bid", round(dph_base * 0.62, 4))
    storage = ALLOCATED_STORAGE_GIB * storage_cost / 30 / 24
    rate = min_bid if kw.get("search_type") == "bid" else dph_base
    status = kw.get("verification", "verified")
    return {
        "id": offer_id,
        "ask_contract_id": offer_id,
        "bundle_id": offer_id + 7,
        "machine_id": kw.get("machine_id", offer_id % 50000),
        "host_id": kw.get("host_id", offer_id % 9000),
        "gpu_name": gpu_name,
        "num_gpus": num_gpus,
        "gpu_ram": gpu_ram_mb,
        "gpu_total_ram": gpu_ram_mb * num_gpus,
        "gpu_arch": "nvidia",
        "cuda_max_good": 12.8,
        "driver_version": "570.124.06",
        "cpu_name": kw.get("cpu_name", "AMD EPYC 9654 96-Core Processor"),
        "cpu_cores": 24 * num_gpus,
        "cpu_cores_effective": float(24 * num_gpus),
        "cpu_ram": 128000 * num_gpus,
        "disk_space": disk,
        "dph_base": dph_base,
        "dph_total": round(rate + storage, 6),
        "storage_cost": storage_cost,
        "storage_total_cost": round(storage, 6),
        "inet_up_cost": 0.004,
        "inet_down_cost": 0.004,
        "min_bid": min_bid,
        "is_bid": kw.get("search_type") == "bid",
        "geolocation": kw.get("geolocation", "Texas, US"),
        "verification": status,
        "verified": status == "verified",
        "rentable": True,
        "rented": False,
        "external": False,
        "hosting_type": kw.get("hosting_type", 1),
        "reliability2": kw.get("reliability", 0.9962),
        "inet_up": 4512.3,
        "inet_down": 6120.8,
        "direct_port_count": 120,
        "pci_gen": 5.0,
        "pcie_bw": 52.6,
        "start_date": 1763000000.0,
        "end_date": 1795000000.0,
    }


def bundles(day: int, search_type: str = "on-demand") -> bytes:
    """The day's offers priced for one search type: new ids every day, places rotating."""
    offers, offer_id = [], 18_400_000 + day * 1000
    for name, ram, per_gpu, counts in MARKET:
        for index, (price, gpus) in enumerate(zip(per_gpu, counts, strict=True)):
            offer_id += 37
            base = round(price * gpus * factor(MOVES, name, day), 4)
            place = PLACES[(index + day) % len(PLACES)]
            offers.append(
                vast_offer(
                    offer_id, name, gpus, ram, base, geolocation=place, search_type=search_type
                )
            )
    for name, ram, price, gpus, status in NOT_VERIFIED:
        offer_id += 37
        offers.append(
            vast_offer(
                offer_id,
                name,
                gpus,
                ram,
                price * gpus,
                verification=status,
                search_type=search_type,
            )
        )
    # every offer marked an estimate in the data (sample/REFERENCES.md traces none of them)
    return indented_json({"offers": [{**offer, ESTIMATE_KEY: ESTIMATE} for offer in offers]})


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/vastai/: the on-demand and the bid search answers, archived as fetch does."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    for search in SEARCHES.values():
        request = {"method": "POST", "json": search}
        data = bundles(day, str(search["type"]))
        writer.write(data, BUNDLES_URL, fetched_at=moment, request=request)
    return writer.directory
