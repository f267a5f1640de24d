"""Google machine types priced from their SKUs: a GPU, and the vCPUs and memory where the
machine is billed by its components; one record per usage and region where every part is listed,
under each consumption option Google sells the machine's family by (gcp_consumption.csv)."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass, field
from typing import Any

from chipcost.core.record import ParseResult
from chipcost.core.vocabulary import not_rentable
from chipcost.extract import _gcp_skus as skus
from chipcost.extract._estimate import estimate_of_all
from chipcost.extract._kit import Offer, Origin

# (stem key, usage, region): where one SKU's price applies.
Place = tuple[str, str, str]
# The fields of an offer's key a usage type sets (skus.USAGE's triples).
TERMS = ("pricing_model", "term", "payment")


@dataclass(frozen=True)
class Rate:
    """One SKU's price, with the page that listed it: a machine joined from several SKUs takes
    its provenance from its GPU's."""

    price: float
    sku: str
    origin: Origin
    effective: str
    estimate: str = ""  # the sample's mark on the SKU (extract/_estimate.py); Google sends none
    # The SKU as listed: a reject's row when another SKU (or this one again) prices its place
    # otherwise.
    row: Any = field(default=None, compare=False, repr=False)

    def offer(self, usage: str, region: str, terms: tuple[str, str, str] | None = None) -> Offer:
        """What the records priced from this rate share: where, the usage type's terms (or the
        `terms` given), SKU."""
        model, term, payment = terms or skus.USAGE[usage]
        return self.origin.offer(
            region=region, pricing_model=model, term=term, payment=payment, sku=self.sku
        )


@dataclass
class Unsold:
    """The prices of machines Google does not sell by a way a SKU prices: named, not loaded."""

    regions: Counter[tuple[str, str, str]] = field(default_factory=Counter)
    rates: dict[tuple[str, str, str], set[tuple[str, float]]] = field(default_factory=dict)

    def add(self, machine: str, option: str, offered: str, rate: Rate) -> None:
        key = (option, offered, machine)
        self.regions[key] += 1
        self.rates.setdefault(key, set()).add((rate.sku, rate.price))

    def notes(self) -> list[str]:
        notes = []
        by_reason: dict[tuple[str, str], list[str]] = {}
        for (option, offered, machine), count in sorted(self.regions.items()):
            seen = sorted(self.rates[(option, offered, machine)])
            named = ", ".join(f"SKU {sku} at {price:g}/h" for sku, price in seen[:3])
            more = f" and {len(seen) - 3} more" if len(seen) > 3 else ""
            by_reason.setdefault((option, offered), []).append(
                f"{machine} ({named}{more}; {count} region price(s))"
            )
        for (option, offered), machines in by_reason.items():
            model = skus.model_of(option)
            why = (
                f"Google's consumption pages do not sell the family by {option}"
                if offered == "no"
                else f"no Google page found says the family is sold by {option}"
            )
            notes.append(
                f"{not_rentable(model, why)} (core/data/{skus.CONSUMPTION_TABLE}): "
                + "; ".join(machines)
            )
        return notes


def machine_records(rates: dict[Place, Rate], conflicts: set[Place]) -> ParseResult:
    """A record per machine type, usage and region where every SKU that prices it is listed and
    Google sells the family that way; a note per part missing, per machine type whose GPU SKU no
    page lists, per share of a GPU no SKU prices, and per price of a way it is not sold."""
    result = ParseResult()
    missing: Counter[tuple[str, str]] = Counter()
    unsold, clashes = Unsold(), set()
    by_key: dict[str, list[tuple[str, str, Rate]]] = {}
    for (key, usage, region), rate in sorted(rates.items(), key=_by_place):
        by_key.setdefault(key, []).append((usage, region, rate))
    shares = []
    for machine in skus.machine_types():
        if machine.billing == "share":
            shares.append(machine)
            continue
        for usage, region, gpu in by_key.get(machine.gpu, []):
            terms = _terms(machine, usage, gpu, unsold)
            if terms is None:
                continue
            parts = {"gpu": gpu}
            for kind, part in (("cpu", machine.cpu), ("ram", machine.ram)):
                if part and (rate := rates.get((part, usage, region))) is not None:
                    parts[kind] = rate
                elif part:
                    missing[(machine.name, f"{part} ({usage})")] += 1
            if len(parts) != 1 + bool(machine.cpu) + bool(machine.ram):
                continue
            clashing = [p for p in _keys(machine).values() if p and (p, usage, region) in conflicts]
            if clashing:
                clashes.add((machine.name, region, usage, ", ".join(clashing)))
                continue
            result.records.append(_machine_record(machine, (usage, region), parts, terms))
    result.notes.extend(
        f"{name}: no {part} price in {count} region(s) where its GPU is priced; not recorded there"
        for (name, part), count in sorted(missing.items())
    )
    result.notes.extend(unsold.notes())
    result.notes.extend(_clash_notes(clashes))
    if shares:
        result.notes.append(_share_note(shares, set(by_key)))
    if rates:
        result.notes.extend(skus.unlisted_notes(set(by_key)))
    return result


def _terms(
    machine: skus.MachineType, usage: str, gpu: Rate, unsold: Unsold
) -> tuple[str, str, str] | None:
    """The (pricing model, term, payment) a SKU of `usage` prices `machine` at, or None (noted in
    `unsold`) where Google does not sell the machine's family that way."""
    terms = _sold_as(machine, usage)
    if terms is None:
        option = skus.OPTION[usage]
        unsold.add(machine.name, option, skus.sold_by(machine.family, option).offered, gpu)
    return terms


def _sold_as(machine: skus.MachineType, usage: str) -> tuple[str, str, str] | None:
    """(pricing model, term, payment) of `machine` priced by a SKU of `usage`, or None where
    Google does not sell its family that way. The OnDemand SKU of a family not rented on demand
    is what its future reservations are charged."""
    option = skus.OPTION[usage]
    if skus.sold_by(machine.family, option).offered == "yes":
        return skus.USAGE[usage]
    if (
        option == "on_demand"
        and skus.sold_by(machine.family, "future_reservation").offered == "yes"
    ):
        return skus.RESERVATION
    return None


def part_offer(key: str, usage: str, regions: list[str]) -> dict[str, str | None] | None:
    """What a refused vCPU or memory SKU (stem `key`, `usage`, in `regions`) names of the
    machine offers it prices, for its reject to keep them open: each field of their key they all
    share, the others (machine types, regions it prices several of) left out to match any; None
    where it prices no machine. A GPU's SKU names its machines by its id, their records' sku."""
    offers = [
        {"instance_type": machine.name, "region": region, **dict(zip(TERMS, terms, strict=True))}
        for machine in skus.machine_types()
        if machine.billing == "components" and key in (machine.cpu, machine.ram)
        if (terms := _sold_as(machine, usage)) is not None
        for region in regions or [None]
    ]
    if not offers:
        return None
    return {name: value if all(o[name] == value for o in offers) else None
            for name, value in offers[0].items()}  # fmt: skip


def _keys(machine: skus.MachineType) -> dict[str, str]:
    return {"gpu": machine.gpu, "cpu": machine.cpu, "ram": machine.ram}


def _clash_notes(clashes: set[tuple[str, str, str, str]]) -> list[str]:
    if not clashes:
        return []
    named = "; ".join(
        f"{name} in {region} ({usage}: {parts})" for name, region, usage, parts in sorted(clashes)
    )
    return [f"several SKUs price one part of a machine type in one region and usage; none is used: "
            f"{named}"]  # fmt: skip


def _share_note(shares: list[skus.MachineType], listed: set[str]) -> str:
    named = ", ".join(f"{m.name} ({m.share})" for m in shares)
    gpus = sorted({m.gpu_sku for m in shares if m.gpu in listed})
    seen = f"; the pages list {', '.join(gpus)} for the whole GPU only" if gpus else ""
    return (
        f"{len(shares)} machine type(s) rent a share of one GPU and no SKU found prices the "
        f"share: {named}; not priced{seen}"
    )


def _by_place(item: tuple[Place, Rate]) -> Place:
    return item[0]


def _machine_record(
    machine: skus.MachineType,
    where: tuple[str, str],
    parts: dict[str, Rate],
    terms: tuple[str, str, str],
):
    usage, region = where
    gpu = parts["gpu"]
    total = machine.chip_count * gpu.price
    if machine.billing == "components":
        total += machine.vcpus * parts["cpu"].price + machine.memory_gib * parts["ram"].price
    option = skus.OPTION[usage] if terms == skus.USAGE[usage] else "future_reservation"
    extra = {
        "family": machine.family,
        "billing": machine.billing,
        "gpu_per_hour": gpu.price,
        "skus": [rate.sku for rate in parts.values()],
        "effective": gpu.effective,
        "sold_by": f"{option}: {skus.sold_by(machine.family, option).source}",
    }
    if option == "future_reservation":
        extra["priced"] = (
            "a future reservation, charged at the OnDemand SKU's rate: Google rents this shape "
            "through reservations, not on demand"
        )
    if machine.billing == "components":
        extra |= {"vcpu_per_hour": parts["cpu"].price, "ram_gib_per_hour": parts["ram"].price}
    elif machine.billing == "gpu_only":
        extra["priced"] = "the GPUs only: the N1 VM they attach to is billed apart"
    # the sample's marks on the SKUs that price it, each once
    extra |= estimate_of_all({"estimate": rate.estimate} for rate in parts.values())
    return gpu.offer(usage, region, terms).record(
        instance_type=machine.name,
        chip=machine.chip,
        chip_count=float(machine.chip_count),
        price_per_hour=round(total, 6),
        extra=extra,
        **_host(machine),
    )


def _host(machine: skus.MachineType) -> dict[str, float | None]:
    """The VM's vCPUs and memory (GiB) as the machine types file gives them; none for GPUs
    attached to an N1 VM (the row prices the GPU alone). Local SSD is not in the file."""
    if machine.billing == "gpu_only":
        return {}
    return {"vcpus": float(machine.vcpus), "ram_gb": float(machine.memory_gib)}
