"""AWS's EC2 and savings-plan region CSVs in their real format, pricing the GetProducts catalog."""

from __future__ import annotations

from typing import Any

from tests.aws_price_list import REGIONS, offer_item, sku_for

DISCLAIMER = (
    "This pricing list is for informational purposes only. All prices are subject to the "
    "additional terms included in the pricing pages on http://aws.amazon.com. All Free Tier "
    "prices are also subject to the terms included at https://aws.amazon.com/free/"
)
EC2_PATH = "/offers/v1.0/aws/AmazonEC2"
SP_PATH = "/savingsPlan/v1.0/aws/AWSComputeSavingsPlan"
# The EC2 CSV header as AWS published it in 2025 (columns grow over time).
HEADER_2025 = (
    "SKU,OfferTermCode,RateCode,TermType,PriceDescription,EffectiveDate,StartingRange,"
    "EndingRange,Unit,PricePerUnit,Currency,RelatedTo,LeaseContractLength,PurchaseOption,"
    "OfferingClass,Product Family,serviceCode,Location,Location Type,Instance Type,"
    "Current Generation,Instance Family,vCPU,Physical Processor,Clock Speed,Memory,Storage,"
    "Network Performance,Processor Architecture,Storage Media,Volume Type,Max Volume Size,"
    "Max IOPS/volume,Max IOPS Burst Performance,Max throughput/volume,Provisioned,Tenancy,"
    "EBS Optimized,Operating System,License Model,Group,Group Description,Transfer Type,"
    "From Location,From Location Type,To Location,To Location Type,usageType,operation,"
    "AvailabilityZone,CapacityStatus,ClassicNetworkingSupport,Dedicated EBS Throughput,ECU,"
    "Elastic Graphics Type,Enhanced Networking Supported,From Region Code,GPU,GPU Memory,"
    "Instance,Instance Capacity - 10xlarge,Instance Capacity - 12xlarge,"
    "Instance Capacity - 16xlarge,Instance Capacity - 18xlarge,Instance Capacity - 24xlarge,"
    "Instance Capacity - 2xlarge,Instance Capacity - 32xlarge,Instance Capacity - 4xlarge,"
    "Instance Capacity - 8xlarge,Instance Capacity - 9xlarge,Instance Capacity - large,"
    "Instance Capacity - medium,Instance Capacity - metal,Instance Capacity - xlarge,"
    "instanceSKU,Intel AVX2 Available,Intel AVX Available,Intel Turbo Available,MarketOption,"
    "Normalization Size Factor,Physical Cores,Pre Installed S/W,Processor Features,"
    "Product Type,Region Code,Resource Type,serviceName,SnapshotArchiveFeeType,To Region Code,"
    "Volume API Name,VPCNetworkingSupport"
).split(",")
# An older header: no RelatedTo, Region Code, CapacityStatus, MarketOption or GPU Memory yet.
HEADER_OLD = [
    c
    for c in HEADER_2025
    if c not in {"RelatedTo", "Region Code", "CapacityStatus", "MarketOption", "GPU Memory"}
]
# A later header: two columns AWS might add, and the columns in another order (reversed).
HEADER_REORDERED = ["Compute Type", *reversed(HEADER_2025), "Instance Capacity - 48xlarge"]
SP_HEADER = (
    "SKU,RateCode,Unit,EffectiveDate,DiscountedRate,Currency,DiscountedSKU,"
    "DiscountedServiceCode,DiscountedUsageType,DiscountedOperation,PurchaseOption,"
    "LeaseContractLength,LeaseContractLengthUnit,ServiceCode,UsageType,Operation,Description,"
    "Instance Family,Location,Location Type,Granularity,Product Family,DiscountedRegionCode,"
    "DiscountedInstanceType"
).split(",")
# Savings-plan rate as a share of on-demand per (plan, years), for No/Partial/All Upfront.
SP_SHARE = {
    ("ComputeSavingsPlans", 1): (0.72, 0.69, 0.67),
    ("ComputeSavingsPlans", 3): (0.50, 0.47, 0.45),
    ("EC2InstanceSavingsPlans", 1): (0.65, 0.62, 0.61),
    ("EC2InstanceSavingsPlans", 3): (0.42, 0.40, 0.38),
}
OPTIONS = ("No Upfront", "Partial Upfront", "All Upfront")
# Product attribute -> EC2 CSV column.
ATTRIBUTE_COLUMN = {
    "instanceType": "Instance Type",
    "instanceFamily": "Instance Family",
    "gpu": "GPU",
    "gpuMemory": "GPU Memory",
    "vcpu": "vCPU",
    "memory": "Memory",
    "storage": "Storage",
    "networkPerformance": "Network Performance",
    "physicalProcessor": "Physical Processor",
    "processorArchitecture": "Processor Architecture",
    "currentGeneration": "Current Generation",
    "normalizationSizeFactor": "Normalization Size Factor",
    "location": "Location",
    "locationType": "Location Type",
    "regionCode": "Region Code",
    "availabilityzone": "AvailabilityZone",
    "operatingSystem": "Operating System",
    "tenancy": "Tenancy",
    "preInstalledSw": "Pre Installed S/W",
    "capacitystatus": "CapacityStatus",
    "marketoption": "MarketOption",
    "licenseModel": "License Model",
    "usagetype": "usageType",
    "operation": "operation",
    "servicecode": "serviceCode",
    "servicename": "serviceName",
}


def csv_line(values: list[str | None]) -> str:
    """As AWS writes EC2 files: every value quoted, an empty field left bare."""
    return ",".join("" if v in (None, "") else '"' + v.replace('"', '""') + '"' for v in values)


def ec2_rows(item: dict[str, Any]) -> list[dict[str, str]]:
    """One CSV row per price dimension of a GetProducts item (product + terms)."""
    product = item["product"]
    attributes = {ATTRIBUTE_COLUMN[k]: v for k, v in product["attributes"].items()}
    base = {"SKU": product["sku"], "Product Family": product["productFamily"], **attributes}
    rows = []
    for term_type, terms in item["terms"].items():
        for term in terms.values():
            for dim in term["priceDimensions"].values():
                (currency, price), *_ = dim["pricePerUnit"].items()
                row = dict(base, TermType=term_type, OfferTermCode=term["offerTermCode"])
                row.update(
                    RateCode=dim["rateCode"],
                    PriceDescription=dim["description"],
                    EffectiveDate=term["effectiveDate"][:10],
                    StartingRange=dim.get("beginRange", ""),
                    EndingRange=dim.get("endRange", ""),
                    Unit=dim["unit"],
                    PricePerUnit=price,
                    Currency=currency,
                    **term["termAttributes"],
                )
                rows.append(row)
    return rows


def variant(rows: list[dict[str, str]], price_factor: float = 1.0, **changes: str) -> list[dict]:
    """The same product with other attributes (another OS, tenancy, ...): a new SKU."""
    old = rows[0]["SKU"]
    new = sku_for(old, *sorted(f"{k}={v}" for k, v in changes.items()))
    changed = {k.replace("_", " "): v for k, v in changes.items()}
    kind = changed.get("Instance Type")
    out = []
    for row in rows:
        price = float(row["PricePerUnit"]) * price_factor
        shown = f"{price:.10f}" if row["Unit"] == "Hrs" else str(round(price))
        text = row["PriceDescription"].replace(row["Instance Type"], kind or row["Instance Type"])
        rate = row["RateCode"].replace(old, new)
        out.append(
            {**row, **changed, "SKU": new, "RateCode": rate, "PricePerUnit": shown}
            | {"PriceDescription": text}
        )
    return out


def ec2_csv(
    rows: list[dict[str, str]],
    header: list[str],
    version: str,
    published: str,
) -> bytes:
    head = [
        ["FormatVersion", "v1.0"],
        ["Disclaimer", DISCLAIMER],
        ["Publication Date", published],
        ["Version", version],
        ["OfferCode", "AmazonEC2"],
        header,
    ]
    lines = [csv_line(line) for line in head]
    lines += [csv_line([row.get(column) for column in header]) for row in rows]
    return ("\n".join(lines) + "\n").encode()


def product_rows(instance_type: str, region: str, *args: Any, **kw: Any) -> list[dict[str, str]]:
    return ec2_rows(offer_item(instance_type, region, *args, **kw))


def sp_rows(rows: list[dict[str, str]], effective: str) -> list[dict[str, str]]:
    """The twelve savings-plan rates (2 plans x 2 terms x 3 payments) of one EC2 product."""
    on_demand = next(r for r in rows if r["TermType"] == "OnDemand")
    region, kind = on_demand["Region Code"], on_demand["Instance Type"]
    family = kind.split(".", 1)[0]
    prefix = REGIONS.get(region, ("", ""))[1]
    found = []
    for (plan, years), shares in SP_SHARE.items():
        for option, share in zip(OPTIONS, shares, strict=True):
            detail = f"{years}yr{option.replace(' ', '')}"
            instance = plan == "EC2InstanceSavingsPlans"
            sp_sku = sku_for(plan, str(years), option, family if instance else "", region)
            usage = f"{prefix}EC2SP:{family}.{detail}" if instance else f"ComputeSP:{detail}"
            what = (
                f"{family} EC2 Instance Savings Plan in {region}"
                if instance
                else "Compute Savings Plan"
            )
            found.append(
                {
                    "SKU": sp_sku,
                    "RateCode": f"{sp_sku}.{on_demand['SKU']}",
                    "Unit": "Hrs",
                    "EffectiveDate": effective,
                    "DiscountedRate": f"{float(on_demand['PricePerUnit']) * share:.4f}",
                    "Currency": "USD",
                    "DiscountedSKU": on_demand["SKU"],
                    "DiscountedServiceCode": "AmazonEC2",
                    "DiscountedUsageType": on_demand["usageType"],
                    "DiscountedOperation": on_demand["operation"],
                    "PurchaseOption": option,
                    "LeaseContractLength": str(years),
                    "LeaseContractLengthUnit": "year",
                    "ServiceCode": "ComputeSavingsPlans",
                    "UsageType": usage,
                    "Operation": "",
                    "Description": f"{years} year {option} {what}",
                    "Instance Family": family if instance else "",
                    "Location": on_demand["Location"] if instance else "Any",
                    "Location Type": "AWS Region",
                    "Granularity": "hourly",
                    "Product Family": plan,
                    "DiscountedRegionCode": region,
                    "DiscountedInstanceType": kind,
                }
            )
    return found


def sp_csv(
    rows: list[dict[str, str]],
    version: str,
    published: str,
    *,
    header: list[str] = SP_HEADER,
) -> bytes:
    """As AWS writes savings-plan CSVs: values bare (none holds a comma)."""
    head = [
        "FormatVersion,v1.0",
        f"Disclaimer,{DISCLAIMER}",
        f"Publication Date,{published}",
        f"Version,{version}",
        "OfferCode,AWSComputeSavingsPlan",
        ",".join(header),
    ]
    lines = head + [",".join(row.get(c, "") for c in header) for row in rows]
    return ("\n".join(lines) + "\n").encode()
