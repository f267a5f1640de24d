"""Reading Cloud Billing Catalog SKUs: description stems, TPU versions, usage types, prices."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache
from importlib import resources
from typing import Any

MACHINE_TABLE = "gcp_machine_types.csv"
TPU_TABLE = "gcp_tpus.csv"
# usageType -> (pricing_model, term, payment). Committed-use discounts are billed monthly
# over the term with nothing up front.
USAGE = {
    "OnDemand": ("on_demand", "none", "none"),
    "Preemptible": ("spot", "none", "none"),
    "Commit1Yr": ("commitment", "1yr", "no_upfront"),
    "Commit3Yr": ("commitment", "3yr", "no_upfront"),
}
# Description prefixes that only say which usage type a SKU is (already in category.usageType).
_USAGE_PREFIX = re.compile(r"^(spot preemptible|preemptible|commitment v\d+:)\s+", re.IGNORECASE)
# Where the stem ends: "... running in Americas", "... attached to Spot Preemptible VMs
# running in X", "Commitment v1: A2 Cpu in APAC for 1 Year".
_STEM_END = re.compile(
    r"\s+(running in|attached to)\s.*$|\s+in\s+[^:]*\s+for\s+\d+\s+years?$", re.IGNORECASE
)
# SKUs of the same resource that are not the plain rental: other products or fees.
NOT_RENTALS = (
    "Sole Tenancy",
    "Reserved",
    "Premium",
    "Custom",
    "suspended",
    "Virtual Workstation",
    "DWS",
    "Calendar Mode",
    "Flex-start",
)
# Data-centre GPUs Google sells only attached to N1 VMs: the GPU SKU prices no whole VM.
ATTACHED_GPUS = ("Tesla T4", "Tesla V100", "Tesla P100", "Tesla P4", "Tesla K80")
_TPU_VERSION = re.compile(r"\btpu[\s_-]*(v?\d+(?:[a-z]+|\s+lite\b)?)", re.IGNORECASE)


def stem_key(description: str) -> str:
    """The resource a SKU prices, whatever its usage type and place: 'a2 cpu' for both
    'Commitment v1: A2 Cpu in APAC for 1 Year' and 'A2 Instance Core running in Americas'.
    """
    text = _USAGE_PREFIX.sub("", description.strip())
    text = _STEM_END.sub("", text).lower()
    words = ["cpu" if w == "core" else w for w in text.split() if w != "instance"]
    return " ".join(words)


def stem(description: str) -> str:
    """The description without its usage prefix and place, as Google spells it."""
    return _STEM_END.sub("", _USAGE_PREFIX.sub("", description.strip()))


def tpu_version(description: str) -> str:
    """'TPU v6e ...' -> 'v6e', 'Tpu-v5p Pod ...' -> 'v5p', 'TPU7x ...' -> '7x'; '' if none."""
    found = _TPU_VERSION.search(description)
    return "".join(found.group(1).lower().split()) if found else ""


@dataclass(frozen=True)
class MachineType:
    name: str
    family: str
    chip: str
    chip_count: int
    vcpus: float
    memory_gib: float
    billing: str  # "components" or "slice"
    gpu: str  # stem keys of the SKUs that price it
    cpu: str
    ram: str


def _rows(name: str) -> list[dict[str, str]]:
    path = resources.files("chipcost").joinpath("data", name)
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))


@cache
def machine_types() -> tuple[MachineType, ...]:
    """chipcost/data/gcp_machine_types.csv, with SKU stems as stem keys."""
    return tuple(
        MachineType(
            name=row["machine_type"],
            family=row["family"],
            chip=row["chip"],
            chip_count=int(row["chip_count"]),
            vcpus=float(row["vcpus"]),
            memory_gib=float(row["memory_gib"]),
            billing=row["billing"],
            gpu=stem_key(row["gpu_sku"]),
            cpu=stem_key(row["cpu_sku"]) if row["cpu_sku"] else "",
            ram=stem_key(row["ram_sku"]) if row["ram_sku"] else "",
        )
        for row in _rows(MACHINE_TABLE)
    )


@cache
def component_keys() -> frozenset[str]:
    """Every SKU stem key some machine type is priced from."""
    return frozenset(k for m in machine_types() for k in (m.gpu, m.cpu, m.ram) if k)


@cache
def tpu_table() -> dict[str, tuple[str, str]]:
    """TPU version as descriptions spell it -> (canonical chip, Google's accelerator type)."""
    return {row["version"]: (row["chip"], row["accelerator_type"]) for row in _rows(TPU_TABLE)}


def unit_price(sku: dict[str, Any], unit: str) -> tuple[float, str]:
    """(USD per unit of the first tier, '') or (0, why it cannot be used)."""
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or not infos or not isinstance(infos[0], dict):
        return 0.0, "pricingInfo is missing or empty"
    expression = infos[0].get("pricingExpression") or {}
    if expression.get("usageUnit") != unit:
        return 0.0, f"usageUnit {expression.get('usageUnit')!r} is not {unit!r}"
    tiers = [t for t in expression.get("tieredRates") or [] if isinstance(t, dict)]
    first = [t for t in tiers if float(t.get("startUsageAmount") or 0) == 0]
    if len(first) != 1:
        return 0.0, f"expected one tier starting at 0, found {len(first)}"
    money = first[0].get("unitPrice") or {}
    if money.get("currencyCode") != "USD":
        return 0.0, f"currency {money.get('currencyCode')!r} is not USD (the request asked USD)"
    try:
        value = round(int(money.get("units") or 0) + int(money.get("nanos") or 0) / 1e9, 9)
    except (TypeError, ValueError):
        return 0.0, f"unitPrice {money!r} is not units and nanos"
    if not value > 0:
        return 0.0, f"unitPrice {money!r} is not a positive price"
    return value, ""


def effective_time(sku: dict[str, Any]) -> str:
    infos = sku.get("pricingInfo") or [{}]
    return str(infos[0].get("effectiveTime", "")) if isinstance(infos[0], dict) else ""
