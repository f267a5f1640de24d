"""Pure parsing of AWS's EC2 and savings-plan price list CSVs into price records.

EC2 rows are regrouped into the Price List's product/terms shape and priced by the same
helper as the API source (extract/_aws_price_list.product_offers), so both sources make
identical records from identical prices. Savings-plan rates join to EC2 products through
their DiscountedSKU.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field, replace
from typing import Any

from chipcost.core.catalog import aws_families
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract._estimate import ESTIMATE_KEY, estimate_of
from chipcost.extract._kit import positive
from chipcost.extract.aws._bulk_csv import CsvHead, Selection
from chipcost.extract.aws._price_list import (
    INSTANCE_FAMILIES,
    PURCHASE_OPTIONS,
    TERM_MATCH,
    Origin,
    product_offers,
)

# CSV column -> the Price List attribute it carries (the API source's vocabulary).
ATTRIBUTE_COLUMNS = {
    "Instance Type": "instanceType",
    "Region Code": "regionCode",
    "Instance Family": "instanceFamily",
    "GPU": "gpu",
    "GPU Memory": "gpuMemory",
    "vCPU": "vcpu",
    "Memory": "memory",
    "Storage": "storage",
    "Location": "location",
    "Operating System": "operatingSystem",
    "Tenancy": "tenancy",
    "Pre Installed S/W": "preInstalledSw",
    "CapacityStatus": "capacitystatus",
    "MarketOption": "marketoption",
    "License Model": "licenseModel",
}
COLUMN_OF = {attribute: column for column, attribute in ATTRIBUTE_COLUMNS.items()}
TERM_TYPES = ("OnDemand", "Reserved")
# Columns without which a row cannot be priced. Newer files add columns and older ones lack
# a few filter columns (MarketOption, CapacityStatus): those filters apply where they exist.
EC2_REQUIRED = (
    "SKU", "OfferTermCode", "RateCode", "TermType", "Unit", "PricePerUnit", "Currency",
    "LeaseContractLength", "PurchaseOption", "OfferingClass", "Instance Type",
    "Instance Family", "Operating System", "Tenancy",
)  # fmt: skip
SP_REQUIRED = (
    "SKU", "RateCode", "Unit", "DiscountedRate", "Currency", "DiscountedSKU",
    "DiscountedServiceCode", "DiscountedUsageType", "DiscountedOperation", "PurchaseOption",
    "LeaseContractLength", "Product Family",
)  # fmt: skip
# The savings plan types that discount EC2 instances, in the record's vocabulary.
PLAN_FAMILIES = {"ComputeSavingsPlans": "compute", "EC2InstanceSavingsPlans": "ec2_instance"}
# Savings-plan rates for shared-tenancy Linux: usage type "<prefix>BoxUsage:<type>" and
# operation "RunInstances" (other operations are other operating systems).
BOX_USAGE = "BoxUsage:"
LINUX_OPERATION = "RunInstances"


def _families() -> list[str]:
    return sorted(aws_families())


def ec2_selection() -> Selection:
    """The API source's filters (TERM_MATCH), on-demand and reserved terms, accelerators only."""
    families = _families()

    # An instance type is "<family>.<size>": the filter finds rows by "<family>." in the raw
    # line (the marks), so a value without a dot is no type of ours.
    def scope(row: Mapping[str, str]) -> bool:
        family, dot, _ = row["Instance Type"].partition(".")
        return row["Instance Family"] in INSTANCE_FAMILIES or (dot == "." and family in families)

    places = ", ".join("?" for _ in families)
    return Selection(
        name="aws-bulk ec2",
        required=EC2_REQUIRED,
        match={"TermType": TERM_TYPES}
        | {COLUMN_OF[name]: (value,) for name, value in TERM_MATCH.items()},
        scope_sql=(
            '"Instance Family" IN (?, ?) OR (contains("Instance Type", \'.\') AND '
            f"split_part(\"Instance Type\", '.', 1) IN ({places}))"
        ),
        scope_params=(*INSTANCE_FAMILIES, *families),
        scope=scope,
        marks=(*INSTANCE_FAMILIES, *(f"{family}." for family in families)),
    )


def savings_plan_selection(skus: Iterable[str]) -> Selection:
    """Linux shared-tenancy EC2 rates of our SKUs, and of any accelerator type (to report)."""
    families, known = _families(), sorted(set(skus))

    def scope(row: Mapping[str, str]) -> bool:
        usage = row["DiscountedUsageType"]
        kind = usage.split(":", 1)[1] if BOX_USAGE in usage else ""
        return row["DiscountedSKU"] in known or kind.split(".", 1)[0] in families

    marks = ", ".join("?" for _ in families)
    return Selection(
        name="aws-bulk savings plans",
        required=SP_REQUIRED,
        match={"DiscountedServiceCode": ("AmazonEC2",), "DiscountedOperation": (LINUX_OPERATION,)},
        scope_sql=(
            '"DiscountedSKU" IN (SELECT unnest(?::VARCHAR[])) OR ("DiscountedUsageType" LIKE '
            f"'%{BOX_USAGE}%' AND split_part(split_part(\"DiscountedUsageType\", ':', 2), '.', 1)"
            f" IN ({marks}))"
        ),
        scope_params=(known, *families),
        scope=scope,
    )


@dataclass
class Ec2Offers:
    """Records of one EC2 file, and its products by SKU for the savings-plan join."""

    result: ParseResult = field(default_factory=ParseResult)
    products: dict[str, PriceRecord] = field(default_factory=dict)
    skus: set[str] = field(default_factory=set)


def ec2_offers(
    head: CsvHead, rows: Iterable[dict[str, str]], origin: Origin, region: str
) -> Ec2Offers:
    """One record per term of every selected product; `region` fills a missing Region Code."""
    selection = ec2_selection()
    expected = {k: v for k, v in TERM_MATCH.items() if COLUMN_OF[k] in head.columns}
    by_sku: dict[str, list[dict[str, str]]] = {}
    for row in rows:
        if selection.keeps(row):
            by_sku.setdefault(row["SKU"], []).append(row)
    found = Ec2Offers(skus=set(by_sku))
    for sku, sku_rows in by_sku.items():
        raw = [{k: v for k, v in row.items() if v} for row in sku_rows]
        offers = product_offers(
            _product(sku, sku_rows[0], region),
            _terms(sku, sku_rows),
            origin,
            expected=expected,
            raw=raw,
            version=head.version,
        )
        found.result.extend(offers)
        if offers.records:
            found.products[sku] = offers.records[0]
    return found


def _product(sku: str, row: Mapping[str, str], region: str) -> dict[str, Any]:
    attributes = {
        name: row[column] for column, name in ATTRIBUTE_COLUMNS.items() if row.get(column)
    }
    if region and not attributes.get("regionCode"):
        attributes["regionCode"] = region
    return {"sku": sku, "attributes": attributes}


def _terms(sku: str, rows: list[dict[str, str]]) -> dict[str, dict[str, Any]]:
    """Rows (one per price dimension) regrouped as the JSON's terms[type][sku.code]."""
    terms: dict[str, dict[str, Any]] = {}
    for row in rows:
        code = row["OfferTermCode"]
        term = terms.setdefault(row["TermType"], {}).setdefault(
            f"{sku}.{code}",
            {
                "sku": sku,
                "offerTermCode": code,
                "effectiveDate": row.get("EffectiveDate", ""),
                "priceDimensions": {},
                "termAttributes": {
                    name: row[name]
                    for name in ("LeaseContractLength", "PurchaseOption", "OfferingClass")
                    if row[name]
                },
                **{ESTIMATE_KEY: row.get(ESTIMATE_KEY, "")},  # the sample's mark; AWS has none
            },
        )
        term["priceDimensions"][row["RateCode"]] = {
            "rateCode": row["RateCode"],
            "unit": row["Unit"],
            "description": row.get("PriceDescription", ""),
            "pricePerUnit": {row["Currency"] or "(none)": row["PricePerUnit"]},
        }
    return terms


class _Refused(Exception):
    """Internal: a savings-plan rate that cannot become a record; the message says why."""


def savings_plan_offers(
    head: CsvHead,
    rows: Iterable[dict[str, str]],
    origin: Origin,
    products: Mapping[str, PriceRecord],
    skus: set[str],
) -> ParseResult:
    """One savings_plan record per rate of a product we priced; every other rate a reject."""
    selection = savings_plan_selection(skus)
    result = ParseResult()
    for row in rows:
        if not selection.keeps(row):
            continue
        try:
            product = _discounted_product(row, products, skus)
            result.records.append(_plan_record(row, product, origin, head.version))
        except _Refused as exc:
            raw = {k: v for k, v in row.items() if v}
            result.rejects.append(origin.reject(str(exc), raw, row["RateCode"]))
    return result


def _discounted_product(
    row: Mapping[str, str], products: Mapping[str, PriceRecord], skus: set[str]
) -> PriceRecord:
    sku = row["DiscountedSKU"]
    if sku in products:
        return products[sku]
    if sku in skus:
        raise _Refused(
            f"the EC2 product of DiscountedSKU {sku} was rejected (see its reject), so this "
            "savings-plan rate has nothing to price"
        )
    raise _Refused(
        f"savings-plan rate for EC2 SKU {sku} ({row['DiscountedUsageType']}), which no EC2 "
        "price list file of this run lists: the two files were published at different times "
        "or that region's EC2 file was not read; it loads once both list it"
    )


def _plan_record(
    row: Mapping[str, str], product: PriceRecord, origin: Origin, version: str
) -> PriceRecord:
    plan = PLAN_FAMILIES.get(row["Product Family"])
    if plan is None:
        raise _Refused(f"Product Family {row['Product Family']!r} is not an EC2 savings plan")
    payment = PURCHASE_OPTIONS.get(row["PurchaseOption"])
    if payment is None:
        raise _Refused(f"unknown PurchaseOption {row['PurchaseOption']!r}")
    if row["Unit"] != "Hrs":
        raise _Refused(f"rate unit {row['Unit']!r} is not Hrs")
    if row["Currency"] != "USD":
        raise _Refused(f"non-USD currency {row['Currency']!r}: not converted")
    region = row.get("DiscountedRegionCode", "")
    if region and region != product.region:
        raise _Refused(f"rate is for region {region}, its EC2 SKU for {product.region}")
    extra = {
        "savingsPlanSku": row["SKU"],
        "discountedSku": row["DiscountedSKU"],
        "usageType": row["DiscountedUsageType"],
        "effectiveDate": row.get("EffectiveDate", ""),
        "description": row.get("Description", ""),
        "version": version,
        **estimate_of(row),  # the sample's mark; AWS's files have no such column
    }
    return replace(
        product,
        pricing_model="savings_plan",
        term=_term(row),
        payment=payment,
        plan=plan,
        price_per_hour=_rate(row["DiscountedRate"]),
        upfront=None,
        sku=row["RateCode"],
        observed_at=origin.observed_at,
        extra={k: v for k, v in extra.items() if v},
    )


def _term(row: Mapping[str, str]) -> str:
    length = row["LeaseContractLength"].strip()
    unit = (row.get("LeaseContractLengthUnit") or "year").strip().lower()
    if length in ("1yr", "3yr"):
        return length
    if length in ("1", "3") and unit.startswith("year"):
        return f"{length}yr"
    raise _Refused(f"unknown term {length!r} {unit!r} (expected 1 or 3 years)")


def _rate(text: str) -> float:
    return positive(text, "DiscountedRate", _Refused)
