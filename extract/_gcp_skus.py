"""Reading Cloud Billing Catalog SKUs: description stems, TPU versions, usage types, prices."""

from __future__ import annotations

import csv
import json
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources
from typing import Any

from chipcost.extract._bounds import too_many_places

MACHINE_TABLE = "gcp_machine_types.csv"
TPU_TABLE = "gcp_tpus.csv"
CONSUMPTION_TABLE = "gcp_consumption.csv"
# usageType -> (pricing_model, term, payment). Committed-use discounts are billed monthly
# over the term with nothing up front.
USAGE = {
    "OnDemand": ("on_demand", "none", "none"),
    "Preemptible": ("spot", "none", "none"),
    "Commit1Yr": ("commitment", "1yr", "no_upfront"),
    "Commit3Yr": ("commitment", "3yr", "no_upfront"),
    "FlexStart": ("flex_start", "none", "none"),
    # A calendar-mode reservation runs one to 90 days at this hourly price, fixed when booked.
    "Calendar": ("capacity_block", "none", "none"),
}
# The consumption option (gcp_consumption.csv) each usage prices.
OPTION = {
    "OnDemand": "on_demand",
    "Preemptible": "spot",
    "Commit1Yr": "commitment",
    "Commit3Yr": "commitment",
    "FlexStart": "flex_start",
    "Calendar": "calendar_mode",
}
OPTIONS_OFFERED = ("yes", "no", "not_stated")
# The pricing model each option's prices are recorded under: its own name (on_demand, spot,
# flex_start, commitment: core/vocabulary.py), but for these two.
_MODEL_NAMED_APART = {"calendar_mode": "capacity_block", "future_reservation": "reserved"}


def model_of(option: str) -> str:
    """The pricing model a consumption option's prices are recorded under."""
    return _MODEL_NAMED_APART.get(option, option)


# A future reservation of a shape Google does not rent on demand is charged at the OnDemand SKU's
# rate ("reserved resources are charged at the same on-demand rates as running VMs",
# gcp_consumption.csv): recorded as reserved, with no fixed term and nothing up front.
RESERVATION = ("reserved", "none", "none")
# Two ways to rent that Google lists under usageType OnDemand and tells apart only in the
# description: Dynamic Workload Scheduler flex-start ("Nvidia H100 80GB GPU attached to DWS
# Defined Duration VMs running in Americas", "DWS Defined Duration A3 Core running in Americas")
# and calendar mode ("Reserved Nvidia H100 80GB GPU in Seoul in Calendar Mode", "DWS Calendar
# Mode A4 Nvidia B200 (1 gpu slice) in Seoul"). Spellings from public captures: a Cloud Billing
# report of a Vertex AI flex-start job (SKU 341A-49A5-0C07 and 9A32-36B2-7FBC) and a recorded
# list of Compute Engine SKUs (tests/fixtures/gcp/ORIGIN.md).
_MODES = (
    (re.compile(r"DWS Defined Duration|Flex[- ]start", re.IGNORECASE), "FlexStart"),
    (re.compile(r"Calendar Mode", re.IGNORECASE), "Calendar"),
)
_MODE_WORDS = re.compile(
    r"^(dws defined duration|dws calendar mode|reserved)\s+|\s+in calendar mode$", re.IGNORECASE
)
# A calendar-mode SKU ends with its place only: "... (1 gpu slice) in Seoul".
_PLACE_END = re.compile(r"\s+in\s+[^()]*$")
# Description prefixes that only say which usage type a SKU is (already in category.usageType).
_USAGE_PREFIX = re.compile(r"^(spot preemptible|preemptible|commitment v\d+:)\s+", re.IGNORECASE)
# What a description itself says of its usage; read with usageType, and a SKU whose two disagree
# (a "Spot Preemptible ..." SKU listed OnDemand) is refused, not filed under either.
_SPOT_WORDS = re.compile(r"\b(spot|preemptible)\b", re.IGNORECASE)
_COMMIT_WORDS = re.compile(r"^commitment v\d+:|\bfor\s+(\d+)\s+years?$", re.IGNORECASE)
_COMMIT_YEARS = re.compile(r"\bfor\s+(\d+)\s+years?$", re.IGNORECASE)
# Where the stem ends: "... running in Americas", "... attached to Spot Preemptible VMs
# running in X", "Commitment v1: A2 Cpu in APAC for 1 Year".
_STEM_END = re.compile(
    r"\s+(running in|attached to)\s.*$|\s+in\s+[^:]*\s+for\s+\d+\s+years?$", re.IGNORECASE
)
# SKUs of the same resource that are not a rental chipcost prices: other products or fees
# (looked for once a flex-start or calendar-mode SKU's own words are taken out).
NOT_RENTALS = (
    "Sole Tenancy",
    "Reserved",
    "Premium",
    "Custom",
    "suspended",
    "Virtual Workstation",
    "DWS",
)
# Data-centre GPUs Google sells only attached to N1 VMs and chipcost does not price (the K80 is
# retired); T4, V100, P100 and P4 are priced per GPU (gcp_machine_types.csv, billing gpu_only).
ATTACHED_GPUS = ("Tesla K80",)
# Words a GPU SKU may carry or drop without naming another resource: the vendor and product
# line ("Nvidia H200 141GB GPU" became "H200 141GB GPU"), "Instance" ("A2 Instance Core" and
# "A2 Cpu" in commitments). A3 Mega's GPU is spelled "H100 80GB Mega", "H100 Mega 80GB" and
# "H100 80GB Plus" in different regions (SkyPilot's sky/catalog/data_fetchers/fetch_gcp.py);
# word order does not count, so the key is the sorted words.
_NOISE = frozenset({"nvidia", "tesla", "gpu", "instance"})
_SYNONYMS = {"core": "cpu", "plus": "mega"}
_TPU_VERSION = re.compile(r"\btpu[\s_-]*(v?\d+(?:[a-z]+|\s+lite\b)?)", re.IGNORECASE)


def stem_key(description: str) -> str:
    """The resource a SKU prices, whatever its usage type, place and spelling: 'a2 cpu' for
    both 'Commitment v1: A2 Cpu in APAC for 1 Year' and 'A2 Instance Core running in Americas',
    '141gb h200' for 'H200 141GB GPU running in Americas' and 'Nvidia H200 141GB GPU'.
    """
    text = stem(description).lower().replace("(", " ").replace(")", " ")
    words = {_SYNONYMS.get(word, word) for word in text.split()} - _NOISE
    return " ".join(sorted(words))


def stem(description: str) -> str:
    """The description without its usage prefix, its flex-start or calendar-mode words and its
    place, as Google spells it."""
    text = _USAGE_PREFIX.sub("", description.strip())
    if _mode_of(description) == "Calendar":
        text = _PLACE_END.sub("", _MODE_WORDS.sub("", _MODE_WORDS.sub("", text)))
    return _STEM_END.sub("", _MODE_WORDS.sub("", text)).strip()


def usage_of(description: str, usage_type: str) -> str:
    """The usage a SKU prices, read from its usageType and its description together, case-blind:
    FlexStart / Calendar for an OnDemand SKU whose description names the mode; '' where the two
    disagree (a "Spot Preemptible ..." or "Commitment v1: ..." SKU under another usage type)."""
    said, mode = _said_usage(description), _mode_of(description)
    if mode:
        return mode if usage_type == "OnDemand" and not said else ""
    if said == "Commit" and usage_type.startswith("Commit") or said in ("", usage_type):
        return usage_type
    return ""


def _said_usage(description: str) -> str:
    """'Preemptible', 'Commit1Yr', 'Commit3Yr' ('Commit' without its years) or '' as the
    description's own words say."""
    text = description.strip()
    if _COMMIT_WORDS.search(text):
        years = _COMMIT_YEARS.search(text)
        return f"Commit{years.group(1)}Yr" if years else "Commit"
    return "Preemptible" if _SPOT_WORDS.search(text) else ""


def not_a_rental(description: str) -> bool:
    """True for a SKU of another product or a fee (sole tenancy, a prepaid reservation, ...),
    whatever its case ("RESERVED Nvidia L4 GPU running in Dallas" is a reservation's fee)."""
    text = description
    if _mode_of(description):
        text = _MODE_WORDS.sub("", _MODE_WORDS.sub("", _USAGE_PREFIX.sub("", description)))
        text = _MODES[0][0].sub("", text)
    words = text.lower()
    return any(re.search(rf"\b{marker.lower()}\b", words) for marker in NOT_RENTALS)


def _mode_of(description: str) -> str:
    """'FlexStart' or 'Calendar' where the description names the mode, else ''."""
    return next((mode for words, mode in _MODES if words.search(description)), "")


# The only word a TPU chip's price may carry beside its version ("TPU v5 lite device running in
# EMEA"); any other (Pod, Idle, Evaluation, ...) prices something else than a chip-hour.
_TPU_CHIP_WORDS = frozenset({"device"})


def tpu_extra_words(description: str) -> list[str]:
    """The words of a TPU SKU's stem beside its version: [] for a chip's price ('TpuV6e running
    in Americas'), ['pod'] for 'Tpu-v5p Pod running in Americas', ['idle'] for an idle charge."""
    text = _TPU_VERSION.sub(" ", stem(description).lower(), count=1)
    words = re.findall(r"[a-z0-9]+", text)
    return [word for word in words if word not in _TPU_CHIP_WORDS]


def tpu_version(description: str) -> str:
    """'TPU v6e ...' -> 'v6e', 'Tpu-v5p Pod ...' -> 'v5p', 'TPU7x ...' -> '7x'; '' if none."""
    found = _TPU_VERSION.search(description)
    return "".join(found.group(1).lower().split()) if found else ""


@dataclass(frozen=True)
class MachineType:
    name: str
    family: str
    chip: str
    chip_count: float  # below 1 for a share of one GPU (g4-standard-6: 1/8)
    vcpus: float
    memory_gib: float
    billing: str  # "components", "slice", "gpu_only" or "share"
    gpu: str  # stem keys of the SKUs that price it
    cpu: str
    ram: str
    gpu_sku: str  # the GPU SKU's description as the table spells it

    @property
    def share(self) -> str:
        """'1/8' where the machine rents a share of one GPU, '' where it rents whole GPUs."""
        if not 0 < self.chip_count < 1:
            return ""
        return str(Fraction(self.chip_count).limit_denominator(64))


def _rows(name: str) -> list[dict[str, str]]:
    path = resources.files("chipcost.core").joinpath("data", name)
    with path.open(encoding="utf-8") as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))


@cache
def machine_types() -> tuple[MachineType, ...]:
    """core/data/gcp_machine_types.csv, with SKU stems as stem keys."""
    return tuple(
        MachineType(
            name=row["machine_type"],
            family=row["family"],
            chip=row["chip"],
            chip_count=float(Fraction(row["chip_count"])),
            vcpus=float(row["vcpus"]),
            memory_gib=float(row["memory_gib"]),
            billing=row["billing"],
            gpu=stem_key(row["gpu_sku"]),
            cpu=stem_key(row["cpu_sku"]) if row["cpu_sku"] else "",
            ram=stem_key(row["ram_sku"]) if row["ram_sku"] else "",
            gpu_sku=row["gpu_sku"],
        )
        for row in _rows(MACHINE_TABLE)
    )


def unlisted_notes(listed: set[str]) -> list[str]:
    """The machine types whose GPU SKU no page lists (keys in `listed`): named, never priced
    at 0, so a SKU Google renamed is seen in the run's notes."""
    unlisted: dict[str, list[str]] = {}
    for machine in machine_types():
        if machine.gpu not in listed and machine.billing != "share":
            unlisted.setdefault(machine.gpu_sku, []).append(machine.name)
    return [
        f"no SKU '{sku}' (spelled any way) in the pages: {', '.join(names)} not priced; check "
        f"its description in core/data/{MACHINE_TABLE}"
        for sku, names in sorted(unlisted.items())
    ]


@dataclass(frozen=True)
class Consumption:
    """Whether Google sells a machine family by one consumption option, and where it says so."""

    offered: str  # "yes", "no" or "not_stated"
    source: str
    retrieved: str
    quote: str


@cache
def consumption() -> dict[tuple[str, str], Consumption]:
    """(family, option) -> Consumption: core/data/gcp_consumption.csv."""
    return {
        (row["family"], row["option"]): Consumption(
            row["offered"], row["source"], row["retrieved"], row["quote"]
        )
        for row in _rows(CONSUMPTION_TABLE)
    }


def sold_by(family: str, option: str) -> Consumption:
    """How `family` is sold by `option`; not_stated where the table has no row."""
    return consumption().get((family, option), Consumption("not_stated", CONSUMPTION_TABLE, "", ""))


@cache
def component_keys() -> frozenset[str]:
    """Every SKU stem key some machine type is priced from."""
    return frozenset(k for m in machine_types() for k in (m.gpu, m.cpu, m.ram) if k)


@cache
def tpu_table() -> dict[str, tuple[str, str]]:
    """TPU version as descriptions spell it -> (canonical chip, Google's accelerator type)."""
    return {row["version"]: (row["chip"], row["accelerator_type"]) for row in _rows(TPU_TABLE)}


def unit_price(sku: dict[str, Any], unit: str) -> tuple[float, str]:
    """(USD per unit of the first tier, '') or (0, why it cannot be used, naming the field)."""
    info, why = current_pricing(sku)
    if info is None:
        return 0.0, why
    expression = info.get("pricingExpression")
    if not isinstance(expression, dict):
        return 0.0, f"pricingExpression is a {type(expression).__name__}, not an object"
    if expression.get("usageUnit") != unit:
        return 0.0, f"usageUnit {expression.get('usageUnit')!r} is not {unit!r}"
    tiers = expression.get("tieredRates")
    if not isinstance(tiers, list) or not all(isinstance(t, dict) for t in tiers):
        return 0.0, f"tieredRates is {_kind(tiers)}, not a list of objects"
    if not all(_is_number(t.get("startUsageAmount", 0)) for t in tiers):
        return 0.0, "tieredRates[].startUsageAmount is not a number"
    first = [t for t in tiers if float(t.get("startUsageAmount") or 0) == 0]
    if len(first) != 1:
        return 0.0, f"expected one tier starting at 0, found {len(first)}"
    money = first[0].get("unitPrice")
    if not isinstance(money, dict):
        return 0.0, f"unitPrice is {_kind(money)}, not an object"
    if money.get("currencyCode") != "USD":
        return 0.0, f"currency {money.get('currencyCode')!r} is not USD (the request asked USD)"
    units, nanos = money.get("units") or 0, money.get("nanos") or 0
    # Google sends units as a decimal string ("2") and nanos as an integer.
    if not isinstance(units, str | int) or isinstance(units, bool) or not str(units).isdigit():
        return 0.0, f"unitPrice.units {units!r} is not a whole number"
    if not isinstance(nanos, int) or isinstance(nanos, bool):
        return 0.0, f"unitPrice.nanos {nanos!r} is not an integer"
    value = round(int(units) + nanos / 1e9, 9)
    if not value > 0:
        return 0.0, f"unitPrice {money!r} is not a positive price"
    return value, ""


def service_regions(sku: dict[str, Any]) -> tuple[list[str], str]:
    """(the regions a SKU's price applies in, '') or ([], why serviceRegions cannot be read)."""
    listed = sku.get("serviceRegions")
    if listed is None:
        return [], ""
    if not isinstance(listed, list):
        return [], f"serviceRegions is {_kind(listed)}, not a list"
    regions = [r for r in listed if isinstance(r, str) and r]
    if why := too_many_places(regions, "serviceRegions"):
        return [], why
    return regions, ""


def _kind(value: Any) -> str:
    return "missing" if value is None else f"a {type(value).__name__}"


def _is_number(value: Any) -> bool:
    if isinstance(value, bool):
        return False
    if isinstance(value, int | float):
        return True
    try:
        float(value)
    except (TypeError, ValueError):
        return False
    return True


def current_pricing(sku: dict[str, Any]) -> tuple[dict[str, Any] | None, str]:
    """(the SKU's pricing in force, '') or (None, why none can be used). The API calls
    pricingInfo "a timeline of pricing info in chronological order": the newest effectiveTime
    is in force, and two different prices effective at that same time are a conflict, never
    the first or the last one taken."""
    infos = sku.get("pricingInfo")
    if not isinstance(infos, list) or not infos or not all(isinstance(i, dict) for i in infos):
        return None, "pricingInfo is missing, empty or not a list of objects"
    newest = max(str(i.get("effectiveTime", "")) for i in infos)
    current = [i for i in infos if str(i.get("effectiveTime", "")) == newest]
    prices = {json.dumps(i.get("pricingExpression"), sort_keys=True, default=str) for i in current}
    if len(prices) > 1:
        return None, (
            f"pricingInfo lists {len(prices)} different prices effective at {newest or 'no time'}"
            ": which one Google charges cannot be told"
        )
    return current[0], ""


def effective_time(sku: dict[str, Any]) -> str:
    info, _ = current_pricing(sku)
    return str(info.get("effectiveTime", "")) if info is not None else ""
