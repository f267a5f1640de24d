"""Google machine types priced from their SKUs: a GPU, and the vCPUs and memory where the
machine is billed by its components; one record per usage and region where every part is listed."""

from __future__ import annotations

from collections import Counter
from dataclasses import dataclass

from chipcost.core.record import ParseResult
from chipcost.extract import _gcp_skus as skus
from chipcost.extract._kit import Offer, Origin

# (stem key, usage, region): where one SKU's price applies.
Place = tuple[str, str, str]


@dataclass(frozen=True)
class Rate:
    """One SKU's price, with the page that listed it: a machine joined from several SKUs takes
    its provenance from its GPU's."""

    price: float
    sku: str
    origin: Origin
    effective: str

    def offer(self, usage: str, region: str) -> Offer:
        """What the records priced from this rate share: where, the usage type's terms, SKU."""
        model, term, payment = skus.USAGE[usage]
        return self.origin.offer(
            region=region, pricing_model=model, term=term, payment=payment, sku=self.sku
        )


def machine_records(
    rates: dict[Place, Rate], conflicts: set[Place], not_rentable: Counter[str]
) -> ParseResult:
    """A record per machine type, usage and region where every SKU that prices it is listed;
    a note per part missing, per machine type whose GPU SKU no page lists, and a count in
    `not_rentable` per on-demand price of a shape Google rents only through reservations."""
    result = ParseResult()
    missing: Counter[tuple[str, str]] = Counter()
    by_key: dict[str, list[tuple[str, str, Rate]]] = {}
    for (key, usage, region), rate in sorted(rates.items(), key=_by_place):
        by_key.setdefault(key, []).append((usage, region, rate))
    for machine in skus.machine_types():
        for usage, region, gpu in by_key.get(machine.gpu, []):
            if usage == "OnDemand" and not machine.on_demand:
                not_rentable[machine.name] += 1
                continue
            parts = {"gpu": gpu}
            for kind, part in (("cpu", machine.cpu), ("ram", machine.ram)):
                if part and (rate := rates.get((part, usage, region))) is not None:
                    parts[kind] = rate
                elif part:
                    missing[(machine.name, f"{part} ({usage})")] += 1
            if len(parts) == 1 + bool(machine.cpu) + bool(machine.ram):
                result.extend(_machine_record(machine, (usage, region), parts, conflicts))
    result.notes.extend(
        f"{name}: no {part} price in {count} region(s) where its GPU is priced; not recorded there"
        for (name, part), count in sorted(missing.items())
    )
    if rates:
        result.notes.extend(skus.unlisted_notes(set(by_key)))
    return result


def _by_place(item: tuple[Place, Rate]) -> Place:
    return item[0]


def _machine_record(
    machine: skus.MachineType, where: tuple[str, str], parts: dict[str, Rate], conflicts: set[Place]
) -> ParseResult:
    usage, region = where
    result = ParseResult()
    keys = {"gpu": machine.gpu, "cpu": machine.cpu, "ram": machine.ram}
    clashing = [keys[k] for k in parts if (keys[k], usage, region) in conflicts]
    gpu = parts["gpu"]
    if clashing:
        reason = (
            f"{machine.name} in {region} ({usage}): several SKUs price {', '.join(clashing)} "
            "differently; none is used"
        )
        result.rejects.append(gpu.origin.reject(reason, machine.name, gpu.sku))
        return result
    total = machine.chip_count * gpu.price
    if machine.billing == "components":
        total += machine.vcpus * parts["cpu"].price + machine.memory_gib * parts["ram"].price
    extra = {
        "family": machine.family,
        "billing": machine.billing,
        "gpu_per_hour": gpu.price,
        "skus": [rate.sku for rate in parts.values()],
        "effective": gpu.effective,
    }
    if machine.billing == "components":
        extra |= {"vcpu_per_hour": parts["cpu"].price, "ram_gib_per_hour": parts["ram"].price}
    elif machine.billing == "gpu_only":
        extra["priced"] = "the GPUs only: the N1 VM they attach to is billed apart"
    result.records.append(
        gpu.offer(usage, region).record(
            instance_type=machine.name,
            chip=machine.chip,
            chip_count=float(machine.chip_count),
            price_per_hour=round(total, 6),
            extra=extra,
            **_host(machine),
        )
    )
    return result


def _host(machine: skus.MachineType) -> dict[str, float | None]:
    """The VM's vCPUs and memory (GiB) as the machine types file gives them; none for GPUs
    attached to an N1 VM (the row prices the GPU alone). Local SSD is not in the file."""
    if machine.billing == "gpu_only":
        return {}
    return {"vcpus": float(machine.vcpus), "ram_gb": float(machine.memory_gib)}
