"""Sample runs of mithril: the instance types and spot auctions in the shape SkyPilot's
fetcher and Mithril's Flow SDK read, at the last prices SkyPilot's published Mithril catalog
holds (skypilot-org/skypilot-catalog, catalogs/v7/mithril/vms.csv at 1ba9415d;
tests/fixtures/mithril/ORIGIN.md). Not fetched from Mithril; fids and capacities made up."""

from __future__ import annotations

from datetime import datetime
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract.mithril import AVAILABILITY_URL, SOURCE_NAME, TYPES_URL
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = (
    "last auction prices of SkyPilot's published Mithril catalog in the API's shape, not "
    "fetched from the provider"
)
# fid, name, GPU, GPUs, vCPUs, GB RAM, {region: USD per instance-hour}.
TYPES = (
    ("it_XqgKWbhZ5gznAYsG", "h100-80gb.sxm.8x", "H100", 8, 168, 1814,
     {"us-central1-b": 8.0, "us-central2-a": 12.0}),
    ("it_J7OyNf9idfImLIFo", "a100-80gb.sxm.8x", "A100", 8, 204, 1520, {"us-central3-a": 4.0}),
    ("it_MsIRhxj3ccyVWGfP", "a100-80gb.sxm.1x", "A100", 1, 26, 190, {"us-central3-a": 0.5}),
    ("it_5M6aGxGovNeX5ltT", "a100-80gb.sxm.2x", "A100", 2, 52, 380, {"us-central3-a": 1.0}),
)  # fmt: skip
# An auction's price moves with its bids: (type name, first day) -> factor from that day on.
MOVES = {("h100-80gb.sxm.8x", 3): 1.25, ("h100-80gb.sxm.8x", 6): 0.9}


def kinds() -> list[dict[str, Any]]:
    return [
        {"fid": fid, "name": name, "gpu_type": gpu, "num_gpus": count, "gpu_memory_gb": 80,
         "num_cpus": cpus, "ram_gb": ram}
        for fid, name, gpu, count, cpus, ram, _ in TYPES
    ]  # fmt: skip


def _estimate(name: str, day: int) -> str:
    """What a sample auction's price rests on: SkyPilot's published catalog (not traced row by
    row in sample/REFERENCES.md), and the sample's scripted move where one applies."""
    moved = factor(MOVES, name, day)
    basis = "last auction price of SkyPilot's published Mithril catalog (vms.csv at 1ba9415)"
    return basis if moved == 1.0 else f"{basis}, times {moved:g} by the sample's script"


def auctions(day: int) -> list[dict[str, Any]]:
    found = []
    for fid, name, _, count, _, _, prices in TYPES:
        for region, price in prices.items():
            found.append({
                "fid": f"auc_{name}_{region}", "instance_type": fid, "region": region,
                "capacity": 16 // count,
                "last_instance_price": f"${price * factor(MOVES, name, day):.2f}",
                ESTIMATE_KEY: _estimate(name, day),
            })  # fmt: skip
    return found


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/mithril/: the instance types, then the spot auctions (no key kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    for url, body in ((TYPES_URL, kinds()), (AVAILABILITY_URL, auctions(day))):
        # Both answers are bare lists: the sample's label goes in the first entry.
        labelled = [{SAMPLE_KEY: SAMPLE_LABEL, **body[0]}, *body[1:]]
        writer.write(indented_json(labelled), url, fetched_at=moment, request={"method": "GET"})
    return writer.directory
