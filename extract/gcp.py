"""Google Cloud Billing Catalog: accelerator VMs and Cloud TPUs, on demand, spot and committed."""

from __future__ import annotations

from collections import Counter
from collections.abc import Sequence
from dataclasses import dataclass, field
from functools import partial
from typing import Any

from chipcost.core.commands import REPLAY_DIR
from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, Reject
from chipcost.extract import _fetch, _http
from chipcost.extract import _gcp_skus as skus
from chipcost.extract import _gcp_tpus as tpus
from chipcost.extract._estimate import estimate_of, estimate_of_all
from chipcost.extract._formats import Format, Rows
from chipcost.extract._gcp_machines import Rate, machine_records, part_offer
from chipcost.extract._kit import (
    Origin,
    RowUnreadable,
    field_names,
    load_json,
    read_row,
    require_columns,
    require_offers,
    shape_error,
)
from chipcost.extract.base import CLOUD_OFFERS, Checked, FetchContext, Source

SOURCE_NAME = "gcp"
PROVIDER = "gcp"
# Sent as the `key` parameter, which the archive keeps as <redacted>.
API_KEY = _fetch.ApiKey("gcp_api_key", "GCP_API_KEY")
SKUS_URL = "https://cloudbilling.googleapis.com/v1/services/{service}/skus"
# Compute Engine holds the GPU, vCPU and RAM SKUs and the newer TPUs (v5e, v5p, v6e); Cloud
# TPU holds the older TPUs and, where Google lists them there, newer ones.
SERVICES = ("6F81-5844-456A", "E000-3F24-B8AA")
PAGE_SIZE = 5000
# Compute Engine lists some tens of thousands of SKUs: a handful of pages. A runaway
# nextPageToken chain stops here.
MAX_PAGES = 40
NO_KEY = (
    f"no GCP API key: set {API_KEY.env} to a Google Cloud API key allowed to call the Cloud "
    "Billing API (its catalog is public; no billing account is needed), or run "
    f"`{REPLAY_DIR}`"
)

FORMAT = Format(
    "Cloud Billing SKUs v1",
    "/skus",
    (
        Rows(
            "skus[]",
            {
                "name": "string",
                "skuId": "string",
                "description": "string",
                "category": "object",
                "serviceRegions": "array",
                "pricingInfo": "array",
                "serviceProviderName": "string",
                "geoTaxonomy": "object",
                "node": "null",
                "pv": "null",
            },
            required=("skuId", "description", "category", "serviceRegions", "pricingInfo"),
            optional=("node", "pv"),
            prices=("unitPrice",),
        ),
    ),
)
EXPECTED_FIELDS = FORMAT.required("skus[]")


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """Every page of both services' SKU lists, each archived as it arrives."""
    key = API_KEY.of(ctx)
    if not key:
        raise SourceSkipped(NO_KEY)
    payloads: list[Payload] = []
    with client or _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env) as http:
        for service in SERVICES:
            url = SKUS_URL.format(service=service)
            params = {"key": key, "currencyCode": "USD", "pageSize": PAGE_SIZE}
            payloads += _fetch.linked_pages(
                ctx,
                http,
                url,
                params,
                token="nextPageToken",
                token_param="pageToken",
                max_pages=MAX_PAGES,
                label=f"{SOURCE_NAME}: {service}",
                where=url,
                too_many="raise MAX_PAGES in extract/gcp.py if Google lists that many",
            )
    return payloads


@dataclass
class Catalog:
    """The prices read from every page: (stem key, usage type, region) -> rate, and (TPU
    version, usage type, region) -> rate; a place two SKUs price is a conflict, used by neither."""

    rates: dict[tuple[str, str, str], Rate] = field(default_factory=dict)
    conflicts: set[tuple[str, str, str]] = field(default_factory=set)
    tpus: dict[tuple[str, str, str], Rate] = field(default_factory=dict)
    tpu_conflicts: dict[tuple[str, str, str], set[str]] = field(default_factory=dict)
    # The SKUs of a conflict, each refused once with the place two prices were found for.
    refused: dict[tuple[str, float], Reject] = field(default_factory=dict)
    unmapped: set[str] = field(default_factory=set)
    skipped: Counter[str] = field(default_factory=Counter)


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Price records from archived SKU pages; pure. Components join across pages."""
    result, catalog = ParseResult(), Catalog()
    for payload in payloads:
        body = load_json(payload, PROVIDER)
        if not isinstance(body, dict) or not isinstance(body.get("skus", []), list):
            raise shape_error(PROVIDER, payload, "skus list", body)
        page = body.get("skus", [])
        if page:
            require_columns(field_names(page), EXPECTED_FIELDS, payload, PROVIDER)
        origin = Origin.of(SOURCE_NAME, PROVIDER, payload)
        for sku in page:
            try:
                result.rejects.extend(
                    read_row(partial(_read_sku, origin=origin, catalog=catalog), sku)
                )
            except RowUnreadable as exc:
                result.rejects.append(origin.reject(str(exc), sku))
    result.rejects.extend(catalog.refused.values())
    result.extend(machine_records(catalog.rates, catalog.conflicts))
    result.extend(_tpu_records(catalog))
    if payloads:
        # Google always sells accelerator VMs: pages that price none mean the SKUs changed.
        require_offers(result, payloads[0], PROVIDER)
    result.notes.extend(_notes(catalog))
    return result


def _read_sku(sku: Any, origin: Origin, catalog: Catalog) -> list[Reject]:
    """File one SKU's price under its resource, usage type and regions; a reject if unusable."""
    if not isinstance(sku, dict):
        return [origin.reject(f"SKU is a {type(sku).__name__}", sku)]
    category = sku.get("category") if isinstance(sku.get("category"), dict) else {}
    description = sku.get("description")
    if not isinstance(description, str):
        return [origin.reject(f"description is a {type(description).__name__}", sku, _id(sku))]
    group = str(category.get("resourceGroup", ""))
    is_tpu = group == "TPU" or bool(skus.tpu_version(description))
    key = skus.stem_key(description)
    if not is_tpu and key not in skus.component_keys():
        if group == "GPU" or " gpu" in f" {description.lower()}":
            _file_unmapped_gpu(description, catalog)
        return []
    listed = str(category.get("usageType", ""))
    usage = skus.usage_of(description, listed)
    if listed in skus.USAGE and not usage:
        reason = f"{description}: its words and usageType {listed!r} name different usages"
        return [origin.reject(reason, sku, _id(sku))]
    if usage not in skus.USAGE or skus.not_a_rental(description) or (is_tpu and usage != listed):
        # TPU flex-start and calendar-mode SKUs are not read yet: TPUs are priced per chip.
        catalog.skipped[f"{usage or 'no'} usage type or not a plain rental"] += 1
        return []
    if is_tpu and (words := skus.tpu_extra_words(description)):
        catalog.skipped[f"TPU SKUs that price no chip-hour ({', '.join(words)})"] += 1
        return []
    unit = "GiBy.h" if "ram" in key.split() and not is_tpu else "h"
    price, problem = skus.unit_price(sku, unit)
    regions, where = skus.service_regions(sku)
    problem = problem or where
    if not problem and not regions:
        problem = "serviceRegions is empty: cannot tell where the price applies"
    if not problem:
        mark = estimate_of(sku).get("estimate", "")
        rate = Rate(price, _id(sku), origin, skus.effective_time(sku), mark, row=sku)
        if is_tpu:
            _file_tpu(description, usage, regions, rate, catalog)
        else:
            for region in regions:
                _file(catalog, (key, usage, region), rate)
        return []
    if is_tpu or (offer := part_offer(key, usage, regions)) is None:
        return [origin.reject(f"{description}: {problem}", sku, _id(sku))]
    # A machine's vCPU or memory SKU: its machines' records carry their GPU's SKU id, so the
    # reject names their offers instead (a GPU's or a TPU's SKU id is its records' sku).
    return [origin.reject(f"{description}: {problem}", sku, offer=offer)]


def _id(sku: dict[str, Any]) -> str:
    return str(sku.get("skuId", ""))


def _file_unmapped_gpu(description: str, catalog: Catalog) -> None:
    stem = skus.stem(description)
    if skus.not_a_rental(description):
        catalog.skipped["GPU SKUs of other products (DWS, sole tenancy, workstation)"] += 1
    elif any(gpu in stem for gpu in skus.ATTACHED_GPUS):
        catalog.skipped["GPU SKUs of GPUs attached to N1 VMs (priced without their VM)"] += 1
    else:
        catalog.unmapped.add(stem)


def _file(catalog: Catalog, where: tuple[str, str, str], rate: Rate) -> None:
    """Two SKUs for one resource, usage and region are a conflict, and so is one SKU listed
    twice at two prices: neither price is used."""
    known = catalog.rates.setdefault(where, rate)
    if (known.sku, known.price) != (rate.sku, rate.price):
        catalog.conflicts.add(where)
        _refuse(catalog, " ".join(where[0].split()) + f" {where[1]} in {where[2]}", known, rate)


def _file_tpu(
    description: str, usage: str, regions: list[str], rate: Rate, catalog: Catalog
) -> None:
    version = skus.tpu_version(description)
    if version not in skus.tpu_table():
        catalog.unmapped.add(skus.stem(description))
        return
    for region in regions:
        known = catalog.tpus.setdefault((version, usage, region), rate)
        if (known.sku, known.price) != (rate.sku, rate.price):
            named = catalog.tpu_conflicts.setdefault((version, usage, region), {_named(known)})
            named.add(_named(rate))
            _refuse(catalog, f"TPU {version} {usage} in {region}", known, rate)


def _refuse(catalog: Catalog, place: str, known: Rate, rate: Rate) -> None:
    """Both SKUs of a conflict into the rejects (once each), naming the place and prices."""
    reason = (
        f"{place} is priced by SKU {_named(known)} and SKU {_named(rate)} per unit: which "
        "Google charges cannot be told, so neither price is used there"
    )
    for each in (known, rate):
        catalog.refused.setdefault(
            (each.sku, each.price), each.origin.reject(reason, each.row, each.sku)
        )


def _named(rate: Rate) -> str:
    """'ABCD-1234 at 1.2' : a conflicting TPU rate, told apart by its price as well as its SKU."""
    return f"{rate.sku} at {rate.price:g}"


def machine_types() -> tuple[skus.MachineType, ...]:
    """The accelerator machine types this source prices (core/data/gcp_machine_types.csv)."""
    return skus.machine_types()


def tpu_types() -> dict[str, tuple[str, str, int]]:
    """TPU instance type -> (chip, accelerator type, chips): every slice of a chip with slices
    ('ct6e-standard-8t', 'v6e-16'), one chip ('tpu-v4') of a chip without."""
    return {
        shape.name: (chip, shape.accelerator_type, shape.chips)
        for chip, acc in skus.tpu_table().values()
        for shape in tpus.shapes(chip, acc)
    }


def _tpu_records(catalog: Catalog) -> ParseResult:
    result = ParseResult()
    for (version, usage, region), rate in sorted(catalog.tpus.items()):
        if (version, usage, region) in catalog.tpu_conflicts:
            continue
        chip, accelerator = skus.tpu_table()[version]
        for shape in tpus.shapes(chip, accelerator):
            extra = {"priced": "per chip-hour", "chip_per_hour": rate.price}
            extra |= {"accelerator_type": shape.accelerator_type, "topology": shape.topology}
            extra["effective"] = rate.effective
            extra |= estimate_of_all([{"estimate": rate.estimate}])
            result.records.append(
                rate.offer(usage, region).record(
                    instance_type=shape.name,
                    chip=chip,
                    chip_count=float(shape.chips),
                    # Google bills TPUs per chip-hour: a slice is its chips' hours.
                    price_per_hour=round(rate.price * shape.chips, 6),
                    extra=extra,
                )
            )
    if catalog.tpu_conflicts:
        named = "; ".join(
            f"TPU {version} in {region} ({usage}): SKUs {', '.join(sorted(ids))}"
            for (version, usage, region), ids in sorted(catalog.tpu_conflicts.items())
        )
        result.notes.append(f"several SKUs price one TPU chip-hour; none is used: {named}")
    return result


def _notes(catalog: Catalog) -> list[str]:
    notes = [f"skipped {count} {what}" for what, count in sorted(catalog.skipped.items())]
    if catalog.unmapped:
        notes.append(
            f"{len(catalog.unmapped)} accelerator SKU(s) price no machine type or TPU that "
            f"chipcost knows: {'; '.join(sorted(catalog.unmapped))}; add them to "
            f"core/data/{skus.MACHINE_TABLE} or {skus.TPU_TABLE}"
        )
    return notes


SOURCE = Source(
    most_offers=CLOUD_OFFERS,
    formats=(FORMAT,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Google Cloud Billing Catalog API (GCP_API_KEY): Compute Engine accelerator VMs (A2, "
        "A3, A4, A4X, G2, G4, N1 GPUs) and Cloud TPU chips, by each way Google sells them: on "
        "demand, spot, flex-start, calendar mode, future reservations and 1/3-year committed use"
    ),
    fetch=fetch,
    parse=parse,
    title="Google Cloud",
    checked=Checked(
        asks="Cloud Billing Catalog SKUs of Compute Engine and Cloud TPU",
        against=(
            "**recorded** Cloud Billing Catalog page (opencost `pkg/cloud/gcp/test/skus.json`): "
            "the A100 GPU and A2 vCPU/RAM SKUs; `a2-highgpu-1g` prices at Google's $3.673385"
        ),
        when="effective 2023-03-24",
        rest=(
            "H100, H200, L4, B200, GB200, spot, commitment and TPU SKU descriptions reconstructed;"
            " the ways Google sells each family quoted from its consumption pages "
            "(`gcp_consumption.csv`)"
        ),
    ),
)
