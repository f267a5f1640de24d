"""AWS's public price list files (no credentials): EC2 on-demand, reserved and savings plans.

offer index -> AmazonEC2 region index -> per-region EC2 CSV (filtered to accelerator rows),
and the savings-plan region index it names -> per-region savings-plan CSV (rates joined to
the EC2 SKUs). Runs only where boto3 finds no AWS credentials; then the API sources run.
"""

from __future__ import annotations

from collections.abc import Sequence

from chipcost.core.errors import ChipcostError, ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract._kit import Origin
from chipcost.extract.aws._bulk_csv import CsvHead, rows, split
from chipcost.extract.aws._bulk_fetch import (
    EC2_OFFER,
    OFFER_INDEX_PATH,
    REFUSED,
    archive_json,
    archive_region_index,
    extract_skus,
    missing_message,
    offer_entry,
    region_extract,
)
from chipcost.extract.aws._bulk_parse import (
    ec2_offers,
    ec2_selection,
    savings_plan_offers,
    savings_plan_selection,
)
from chipcost.extract.aws._public import (
    PUBLIC_FILE_SETTINGS,
    REGIONS_ENV,
    PublicFiles,
    public_files,
    skip_if_credentials,
)
from chipcost.extract.base import CLOUD_OFFERS, Checked, FetchContext, Source, refuse_empty

SOURCE_NAME = "aws-bulk"
PROVIDER = "aws"
INSTEAD = "AWS prices come from the API sources (aws-pricing-api, aws-savings-plans)"
# The savings-plan files' offer code, and the key naming their region index in the EC2
# offer (older indexes name only the version index, beside which it sits).
SAVINGS_PLAN_INDEX_KEYS = ("currentSavingsPlanIndexUrl", "savingsPlanVersionIndexUrl")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Indexes archived whole; each wanted region's EC2 and savings-plan extract."""
    skip_if_credentials(SOURCE_NAME, INSTEAD)
    files = public_files(ctx, SOURCE_NAME)
    with files.client:
        offer_payload, offers = archive_json(ctx, files, OFFER_INDEX_PATH, "offer-index")
        ec2 = offer_entry(offers, EC2_OFFER, SOURCE_NAME)
        payloads = [offer_payload]
        index_payload, regions = archive_region_index(
            ctx, files, ec2.get("currentRegionIndexUrl", ""), "region-index"
        )
        payloads.append(index_payload)
        if not regions:
            raise SourceError(_no_regions_message(files))
        plans = _savings_plan_files(ctx, files, ec2, payloads, set(regions))
        failures: list[str] = []
        for region, url in regions.items():
            try:
                payloads.extend(_fetch_region(ctx, files, region, url, plans.get(region)))
            except ChipcostError as exc:
                failures.append(str(exc))
                ctx.on_time(f"{SOURCE_NAME}: stopped after {region}")  # no region is left
    if failures:
        raise SourceError(
            f"{SOURCE_NAME}: {len(failures)} of {len(regions)} region(s) failed: "
            + " | ".join(failures)
            + ". Files fetched so far are archived and downloads resume: run again"
        )
    return payloads


def _savings_plan_files(
    ctx: FetchContext, files: PublicFiles, ec2: dict, payloads: list[Payload], regions: set[str]
) -> dict[str, str]:
    path = ec2.get(SAVINGS_PLAN_INDEX_KEYS[0])
    if not path and ec2.get(SAVINGS_PLAN_INDEX_KEYS[1]):
        path = str(ec2[SAVINGS_PLAN_INDEX_KEYS[1]]).replace("/index.json", "/region_index.json")
    if not path:
        ctx.progress("the EC2 offer names no savings-plan files: savings plans skipped")
        return {}
    payload, found = archive_region_index(
        ctx, files, path, "savings-plan-region-index", url_key="versionUrl", among=regions
    )
    payloads.append(payload)
    return found


def _fetch_region(
    ctx: FetchContext, files: PublicFiles, region: str, url: str, plan_url: str | None
) -> list[Payload]:
    ec2 = region_extract(
        ctx,
        files,
        url,
        ec2_selection(),
        request={"kind": "ec2", "region": region},
        progress=ctx.progress,
    )
    if plan_url is None:
        return [ec2]
    skus = extract_skus(ec2, f"{SOURCE_NAME}: {url}")
    plans = region_extract(
        ctx,
        files,
        plan_url,
        savings_plan_selection(skus),
        request={"kind": "savings-plan", "region": region},
        progress=ctx.progress,
    )
    return [ec2, plans]


def _no_regions_message(files: PublicFiles) -> str:
    wanted = ", ".join(files.regions) if files.regions else "any AWS region"
    return f"{SOURCE_NAME}: the EC2 region index lists none of {wanted}: check {REGIONS_ENV}"


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Records from archived EC2 and savings-plan extracts (JSON indexes carry no prices); pure."""
    result = ParseResult()
    products: dict[str, PriceRecord] = {}
    skus: set[str] = set()
    plans: list[tuple[Payload, CsvHead, str]] = []
    versions: dict[str, set[str]] = {}
    for payload in payloads:
        if payload.data.lstrip()[:1] == b"{" or payload.request.get("kind") == REFUSED:
            continue  # an index, or a file the fetch refused (archived to look at)
        where = f"{SOURCE_NAME}: payload {payload.ref or payload.name or '?'} ({payload.url})"
        head, body = split(payload.data, where)
        versions.setdefault(head.offer_code, set()).add(head.version)
        is_plan = "DiscountedSKU" in head.columns
        if not is_plan and head.offer_code != EC2_OFFER:
            raise ParseError(f"{where} is a price list of {head.offer_code!r}, not AmazonEC2")
        selection = savings_plan_selection(()) if is_plan else ec2_selection()
        missing = selection.missing(head.columns)
        if missing:
            raise ParseError(missing_message(where, missing, head))
        if is_plan:
            plans.append((payload, head, body))
            continue
        found = ec2_offers(head, rows(head, body, where), _origin(payload), _file_region(payload))
        result.extend(found.result)
        products.update(found.products)
        skus |= found.skus
    for payload, head, body in plans:
        where = f"{SOURCE_NAME}: payload {payload.ref or payload.name or '?'} ({payload.url})"
        found_rows = rows(head, body, where)
        result.extend(savings_plan_offers(head, found_rows, _origin(payload), products, skus))
    _check_complete(payloads)
    if payloads and not versions:
        raise ParseError(
            f"{SOURCE_NAME}: the run holds {len(payloads)} index file(s) and no price file: "
            "nothing to load (its fetch stopped before the first region; run it again)"
        )
    if versions:  # price files that priced nothing of ours: refused, not every offer withdrawn
        refuse_empty(result, payloads, PROVIDER)
    result.notes = list(dict.fromkeys(result.notes)) + _version_notes(versions)
    return result


# Each region index names the regions its run reads, and which kind of file each gets.
INDEX_KINDS = {"region-index": "ec2", "savings-plan-region-index": "savings-plan"}


def _check_complete(payloads: Sequence[Payload]) -> None:
    """Refuse a run whose fetch stopped part-way: loading it would withdraw the offers of
    the regions it never reached."""
    present = {(p.request.get("kind"), p.request.get("region")) for p in payloads}
    for payload in payloads:
        kind = INDEX_KINDS.get(str(payload.request.get("kind")))
        wanted = payload.request.get("regions")
        if kind is None or not isinstance(wanted, list):
            continue
        missing = [region for region in wanted if (kind, region) not in present]
        if missing:
            raise ParseError(
                f"{SOURCE_NAME}: run {payload.ref.split('/')[0] or '?'} is incomplete: no "
                f"{kind} file for {', '.join(missing)} (its fetch stopped before them); it "
                "is not loaded, so those regions' offers are not withdrawn"
            )


def _origin(payload: Payload) -> Origin:
    return Origin.of(SOURCE_NAME, PROVIDER, payload)


def _file_region(payload: Payload) -> str:
    """The region a file was fetched for: fills a Region Code that older files lack."""
    return str(payload.request.get("region", ""))


def _version_notes(versions: dict[str, set[str]]) -> list[str]:
    said = ", ".join(f"{code} {'/'.join(sorted(v))}" for code, v in sorted(versions.items()))
    return [f"prices from AWS's public price list files ({said})"] if said else []


SOURCE = Source(
    most_offers=CLOUD_OFFERS,
    settings=PUBLIC_FILE_SETTINGS,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "AWS public price list files (no credentials needed): EC2 GPU and ML-ASIC instances, "
        "Linux shared-tenancy on-demand, reserved and savings-plan prices per region; runs "
        "only when no AWS credentials are found"
    ),
    fetch=fetch,
    parse=parse,
    title="AWS",
    checked=Checked(
        asks="the public EC2 and Savings Plans price-list files (index, then per-region CSVs)",
        against="the 2025 CSV header; gpuhunt's filters on the same file",
        rest="reconstructed; searched 2026-11-26, none found",
    ),
    layout=(
        "not declared: the offer files are CSV of hundreds of MB; the parser requires its columns "
        "by name (`EC2_REQUIRED`, `SP_REQUIRED` in `extract/aws/_bulk_parse.py`) and fails naming "
        "any missing, and a file of another offer code is refused"
    ),
)
