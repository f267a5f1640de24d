"""Pure helpers for AWS Price List products and terms (GetProducts items and bulk offer files)."""

from __future__ import annotations

import json
import re
from collections.abc import Mapping
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from chipcost.core.catalog import ChipMatch, aws_chip_for, aws_location_regions
from chipcost.core.clean import CONTROL
from chipcost.core.record import HOURS_PER_TERM, ParseResult, PriceRecord
from chipcost.extract._estimate import estimate_of
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import Origin, RowUnreadable, decimal, json_of, read_row

# The Price List's words for a reserved term, in the record's vocabulary (core/record.py).
LEASE_TERMS = {"1yr": "1yr", "3yr": "3yr"}
PURCHASE_OPTIONS = {
    "No Upfront": "no_upfront",
    "Partial Upfront": "partial_upfront",
    "All Upfront": "all_upfront",
}
OFFERING_CLASSES = ("standard", "convertible")
# Price dimension units: "Hrs" is the hourly rate, "Quantity" a reserved term's Upfront Fee.
HOURLY_UNIT = "Hrs"
UPFRONT_UNIT = "Quantity"
UNITS_BY_TERM_TYPE = {"OnDemand": (HOURLY_UNIT,), "Reserved": (HOURLY_UNIT, UPFRONT_UNIT)}
REQUIRED_ATTRIBUTES = ("instanceType", "regionCode")
# What an instance type and a region are named as: "p5.48xlarge", "p6-b200.48xlarge"
# (family, a dot, size) and "us-east-1", "us-west-2-lax-1" (a Local Zone's). A name with
# anything else in it (a NUL, a space, a capital) is not AWS's: "p5.48xlarge\x00" is no other
# type to load beside p5.48xlarge, it is refused naming the attribute.
INSTANCE_TYPE = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)*\.[a-z0-9]+(?:-[a-z0-9]+)*")
REGION_NAME = re.compile(r"[a-z0-9]+(?:-[a-z0-9]+)+")
# The other attributes a record keeps (its extra, its host specs, its chip count): control
# and invisible characters (core/clean.py CONTROL) in one refuse the product, never load.
READ_ATTRIBUTES = ("instanceFamily", "gpu", "gpuMemory", "vcpu", "memory", "storage", "location")
_CONTROL = re.compile(CONTROL)
# Attributes worth keeping with each record; everything else is in the archived payload.
# (vcpu, memory and storage are the record's host specs: host_specs below.)
EXTRA_ATTRIBUTES = ("location", "regionCodeFrom", "gpuMemory")
# The instance store as the Price List words it: "8 x 3840 SSD", "1 x 250 NVMe SSD" (disks x
# GB each), or "EBS only" (no local disk: 0). Any other wording leaves disk_gb empty.
_DISKS = re.compile(r"^\s*(\d+)\s*x\s*([\d,.]+)\b")
NO_LOCAL_DISK = "EBS only"
CAPACITY_BLOCK_MARKET = "CapacityBlock"
CAPACITY_BLOCK_REASON = (
    "capacity-block rows are listed at $0 in the Price List and are not prices "
    "(Capacity Block prices come from the EC2 capacity-block offerings)"
)
FAMILIES_CSV = "core/data/aws_families.csv"
INSTANCE_TYPES_CSV = "core/data/aws_instance_types.csv"
LOCATIONS_CSV = "core/data/aws_locations.csv"


# Shared by the Price List API source and the price list files (aws_bulk).
# One listed price per instance type and region: the shared-tenancy Linux on-demand SKU,
# which also carries that instance's Reserved terms. Other OS, tenancy, licence or capacity
# rows (reservations, Capacity Blocks) are different prices of the same hardware.
TERM_MATCH = {
    "operatingSystem": "Linux",
    "tenancy": "Shared",
    "preInstalledSw": "NA",
    "capacitystatus": "Used",
    "marketoption": "OnDemand",
    "licenseModel": "No License required",
}
# One query per accelerator family value finds every accelerator type in every region,
# including types our catalog (core/data/aws_families.csv) does not know yet.
INSTANCE_FAMILIES = ("GPU instance", "Machine Learning ASIC Instances")


@dataclass(frozen=True)
class _Product:
    sku: str
    instance_type: str
    region: str
    chip: str
    chip_count: float
    market: str
    extra: dict[str, str] = field(default_factory=dict)
    notes: tuple[str, ...] = ()
    host: dict[str, float | None] = field(default_factory=dict)


class _Refused(Exception):
    """Internal: a product or term that cannot become a record; the message is the reason."""


def decode_item(raw: object) -> dict[str, Any]:
    """A GetProducts PriceList item (a JSON string) as a dict; ValueError says what is wrong."""
    if isinstance(raw, Mapping):
        return dict(raw)
    if not isinstance(raw, str):
        raise ValueError(f"PriceList item is a {type(raw).__name__}, not a JSON string")
    try:
        item = json_of(raw)
    except json.JSONDecodeError as exc:
        raise ValueError(f"PriceList item is not valid JSON ({exc})") from exc
    if not isinstance(item, dict):
        raise ValueError(f"PriceList item is a JSON {type(item).__name__}, not an object")
    return item


def item_offers(
    item: Mapping[str, Any], origin: Origin, *, expected: Mapping[str, str], raw: object
) -> ParseResult:
    """Records for one GetProducts item: {"product", "terms", "version", ...}."""
    return product_offers(
        item.get("product"),
        item.get("terms"),
        origin,
        expected=expected,
        raw=raw,
        version=str(item.get("version", "")),
    )


def product_offers(
    product: object,
    terms: object,
    origin: Origin,
    *,
    expected: Mapping[str, str],
    raw: object,
    version: str = "",
) -> ParseResult:
    """One record per OnDemand/Reserved term of one product, or rejects saying why not.

    `expected` holds attribute values a row must have (the query's filters); a row with
    others is rejected, not silently loaded.
    """
    result = ParseResult()
    sku = str(product.get("sku", "")) if isinstance(product, Mapping) else ""
    try:
        offer = read_row(lambda p: _product(p, expected), product)
        term_list = read_row(_terms, terms)
    except (_Refused, RowUnreadable) as exc:
        result.rejects.append(origin.reject(str(exc), raw, sku))
        return result
    result.notes.extend(offer.notes)
    for term_type, term in term_list:
        try:
            read = partial(_term_record, offer, term_type, origin=origin, version=version)
            result.records.append(read_row(read, term))
        except (_Refused, RowUnreadable) as exc:
            row = {
                "sku": offer.sku,
                "instanceType": offer.instance_type,
                "regionCode": offer.region,
                "termType": term_type,
                "term": term,
            }
            result.rejects.append(origin.reject(str(exc), row, sku))
    return result


def _product(product: object, expected: Mapping[str, str]) -> _Product:
    if not isinstance(product, Mapping):
        raise _Refused("item has no product object")
    attributes = product.get("attributes")
    if not isinstance(attributes, Mapping):
        raise _Refused("product has no attributes")
    attributes = _with_region_code(attributes)
    missing = [name for name in REQUIRED_ATTRIBUTES if not attributes.get(name)]
    if missing:
        where = attributes.get("location")
        unmapped = where and "regionCode" in missing
        known = f" (location {where!r} is not in {LOCATIONS_CSV})" if unmapped else ""
        raise _Refused(
            f"missing attribute {', '.join(missing)}{known}: cannot tell what or where it is"
        )
    mismatch = _filter_mismatch(attributes, expected)
    if mismatch:
        raise _Refused(mismatch)
    _check_names(attributes, str(product.get("sku", "")))
    instance_type = str(attributes["instanceType"])
    gpu_text = str(attributes.get("gpu", "")).strip()
    match = aws_chip_for(instance_type, decimal(gpu_text))
    if not match.chip_count > 0:
        raise _Refused(
            f"chip count unknown: {instance_type} is not in {INSTANCE_TYPES_CSV} and the "
            f"Price List gives no gpu count (gpu={gpu_text or 'missing'}); add a row there"
        )
    extra = {name: str(attributes[name]) for name in EXTRA_ATTRIBUTES if attributes.get(name)}
    extra |= match.share_label()
    return _Product(
        sku=str(product.get("sku", "")),
        instance_type=instance_type,
        region=str(attributes["regionCode"]),
        chip=match.chip,
        chip_count=match.chip_count,
        market=str(attributes.get("marketoption", "")),
        extra=extra,
        notes=_catalog_notes(instance_type, attributes, gpu_text, match),
        host=host_specs(attributes),
    )


def _check_names(attributes: Mapping[str, Any], sku: str) -> None:
    """_Refused when the product's instance type or region is no AWS name, or an attribute a
    record keeps (or its SKU) holds a control or invisible character."""
    for name, what, pattern in (
        ("instanceType", "instance type", INSTANCE_TYPE),
        ("regionCode", "region", REGION_NAME),
    ):
        value = attributes[name]
        if not isinstance(value, str) or not pattern.fullmatch(value):
            raise _Refused(
                f"{name} {value!r} is not an AWS {what} name (lower-case letters, digits and "
                "hyphens): refused, not loaded as another one"
            )
    for name in READ_ATTRIBUTES:
        value = attributes.get(name)
        if isinstance(value, str) and _CONTROL.search(value):
            raise _Refused(f"{name} {value!r} holds a control or invisible character")
    if _CONTROL.search(sku):
        raise _Refused(f"sku {sku!r} holds a control or invisible character")


def host_specs(attributes: Mapping[str, Any]) -> dict[str, float | None]:
    """vcpus, ram_gb and disk_gb from a product's vcpu ("192"), memory ("2048 GiB") and
    storage ("8 x 3840 SSD", "EBS only") attributes; None where one is missing or unread."""
    memory = str(attributes.get("memory", "")).removesuffix("GiB")
    storage = str(attributes.get("storage", "")).strip()
    disks = _DISKS.match(storage)
    disk = None
    if storage == NO_LOCAL_DISK:
        disk = 0.0
    elif disks and (size := host_spec(disks[2])) is not None:
        disk = int(disks[1]) * size
    vcpus = host_spec(attributes.get("vcpu"))
    return {"vcpus": vcpus, "ram_gb": host_spec(memory), "disk_gb": disk}


def _with_region_code(attributes: Mapping[str, Any]) -> Mapping[str, Any]:
    """Older items name the region only by `location`: its code from aws_locations.csv.

    A location the table lacks (or a Local Zone's) leaves regionCode missing: refused.
    """
    location = attributes.get("location")
    if attributes.get("regionCode") or not isinstance(location, str):
        return attributes
    if attributes.get("locationType", "AWS Region") != "AWS Region":
        return attributes
    code = aws_location_regions().get(location)
    if code is None:
        return attributes
    return {**attributes, "regionCode": code, "regionCodeFrom": f"location {location!r}"}


def _catalog_notes(
    instance_type: str, attributes: Mapping[str, Any], gpu_text: str, match: ChipMatch
) -> tuple[str, ...]:
    """What to add to the catalog so that this type loads with its real chip and count."""
    if match.is_unknown:
        family = attributes.get("instanceFamily", "?")
        return (
            f"unknown accelerator type {instance_type} (instanceFamily {family}, "
            f"gpu={gpu_text}): loaded as chip 'unknown'; add it to {FAMILIES_CSV}",
        )
    if not match.known_type:
        return (
            f"{instance_type} is not in {INSTANCE_TYPES_CSV}: chip_count "
            f"{match.chip_count:g} taken from the Price List gpu attribute; add a row there",
        )
    return ()


def _filter_mismatch(attributes: Mapping[str, Any], expected: Mapping[str, str]) -> str:
    wrong = [
        (name, attributes.get(name))
        for name, want in expected.items()
        if attributes.get(name) != want
    ]
    if not wrong:
        return ""
    said = "; ".join(f"{name} is {value!r}, not {expected[name]!r}" for name, value in wrong)
    if attributes.get("marketoption") == CAPACITY_BLOCK_MARKET:
        return f"{said}: {CAPACITY_BLOCK_REASON}"
    return f"{said}: not a price this source collects"


def _terms(terms: object) -> list[tuple[str, Any]]:
    if not isinstance(terms, Mapping) or not terms:
        raise _Refused("item has no terms (expected OnDemand and/or Reserved)")
    found = []
    for term_type, by_code in terms.items():
        if not isinstance(by_code, Mapping):
            raise _Refused(f"{term_type} terms are not an object")
        found.extend((term_type, term) for term in by_code.values())
    return found


def _term_record(
    offer: _Product, term_type: str, term: object, origin: Origin, version: str
) -> PriceRecord:
    if term_type not in UNITS_BY_TERM_TYPE:
        raise _Refused(f"unknown term type {term_type!r} (expected OnDemand or Reserved)")
    if not isinstance(term, Mapping):
        raise _Refused(f"{term_type} term is not an object")
    hourly, upfront = _dimensions(term_type, term)
    extra = dict(offer.extra)
    extra.update(
        effectiveDate=str(term.get("effectiveDate", "")),
        offerTermCode=str(term.get("offerTermCode", "")),
        version=version,
    )
    extra.update(estimate_of(term))  # the sample's mark; AWS sends none
    fields: dict[str, Any] = {"pricing_model": "on_demand"}
    if term_type == "Reserved":
        fields = _reserved_fields(term, hourly, upfront)
    elif hourly is None:
        raise _Refused("OnDemand term has no hourly (Hrs) price dimension")
    else:
        fields["price_per_hour"] = hourly
    if fields["price_per_hour"] <= 0:
        reason = "price is zero"
        if offer.market == CAPACITY_BLOCK_MARKET:
            reason = f"{reason}: {CAPACITY_BLOCK_REASON}"
        raise _Refused(reason)
    return origin.record(
        region=offer.region,
        instance_type=offer.instance_type,
        chip=offer.chip,
        chip_count=offer.chip_count,
        sku=offer.sku,
        extra={key: value for key, value in extra.items() if value},
        **offer.host,
        **fields,
    )


def _reserved_fields(
    term: Mapping[str, Any], hourly: float | None, upfront: float | None
) -> dict[str, Any]:
    attributes = term.get("termAttributes")
    if not isinstance(attributes, Mapping):
        raise _Refused("Reserved term has no termAttributes")
    lease = attributes.get("LeaseContractLength")
    option = attributes.get("PurchaseOption")
    offering_class = attributes.get("OfferingClass")
    if lease not in LEASE_TERMS:
        raise _Refused(f"unknown LeaseContractLength {lease!r} (expected 1yr or 3yr)")
    if option not in PURCHASE_OPTIONS:
        raise _Refused(
            f"unknown PurchaseOption {option!r} (expected {', '.join(PURCHASE_OPTIONS)})"
        )
    if offering_class not in OFFERING_CLASSES:
        raise _Refused(f"unknown OfferingClass {offering_class!r} (expected standard/convertible)")
    payment = PURCHASE_OPTIONS[option]
    if payment != "no_upfront" and upfront is None:
        raise _Refused(f"{option} term has no Upfront Fee ({UPFRONT_UNIT}) price dimension")
    if hourly is None and payment != "all_upfront":
        raise _Refused(f"{option} term has no hourly ({HOURLY_UNIT}) price dimension")
    length = LEASE_TERMS[lease]
    effective = (hourly or 0.0) + (upfront or 0.0) / HOURS_PER_TERM[length]
    return {
        "pricing_model": "reserved",
        "term": length,
        "payment": payment,
        "plan": offering_class,
        "price_per_hour": round(effective, 10),
        "upfront": upfront,
    }


def _dimensions(term_type: str, term: Mapping[str, Any]) -> tuple[float | None, float | None]:
    """The hourly rate and the upfront fee of a term, each None where the term has none."""
    dimensions = term.get("priceDimensions")
    if not isinstance(dimensions, Mapping) or not dimensions:
        raise _Refused(f"{term_type} term has no priceDimensions")
    allowed = UNITS_BY_TERM_TYPE[term_type]
    found: dict[str, float] = {}
    for dimension in dimensions.values():
        unit = dimension.get("unit") if isinstance(dimension, Mapping) else None
        if unit not in allowed:
            raise _Refused(
                f"unknown price unit {unit!r} in {term_type} term "
                f"{term.get('offerTermCode', '?')} (expected {' or '.join(allowed)})"
            )
        if unit in found:
            raise _Refused(f"{term_type} term has several {unit} dimensions (tiered price)")
        found[unit] = _usd(dimension)
    return found.get(HOURLY_UNIT), found.get(UPFRONT_UNIT)


def _usd(dimension: Mapping[str, Any]) -> float:
    prices = dimension.get("pricePerUnit")
    if not isinstance(prices, Mapping) or not prices:
        raise _Refused(f"price dimension {dimension.get('rateCode', '?')} has no pricePerUnit")
    if "USD" not in prices:
        raise _Refused(f"non-USD currency {', '.join(map(str, prices))}: not converted")
    value = decimal(str(prices["USD"]))
    if value is None or value < 0:
        raise _Refused(f"price {prices['USD']!r} USD is not a non-negative number")
    return value
