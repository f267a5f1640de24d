"""Every scrambled source of the sample: where its fixture's offers and prices are, and the
scripted moves its drift reports show (sample/README.md lists them). A JSON source's offers and
price keys are those its module's formats declare (`Rows.prices`), and such a source needs an
entry only for what else it moves (scripted moves, rows left out); an entry gives its own only
where they are not declared rows (an AWS price list item inside a JSON string, the rows of a
listing whose prices the sample keeps)."""

from __future__ import annotations

import dataclasses
from urllib.parse import quote, urlencode

from chipcost.extract import azure, gcp, registry
from chipcost.extract.aws.spot_advisor import ADVISOR_URL
from chipcost.extract.aws.spot_feed import SPOT_FEED_URL
from chipcost.extract.base import Source
from chipcost.extract.lambda_cloud import PAGE_URL as LAMBDA_PAGE
from chipcost.extract.vastai import BUNDLES_URL, SEARCHES
from chipcost.sample.build._scramble import Move, Sample

GET = {"method": "GET"}

# An HTML table row and a dollar price in it.
HTML_ROW, DOLLARS = r"<tr\b[^>]*>.*?</tr>", r"\$(\d[\d,]*\.\d+)"
# A fixture whose prices are public ones (a recorded page or answer, or a catalog's prices
# turned back into the answer): kept as it is (its dates only move), every price traced in
# sample/REFERENCES.md.
KEPT = Sample(mark=None)


def azure_query(price_type: str, series: str, *pages: str) -> tuple[tuple[str, str, dict], ...]:
    """One Retail Prices query's fixture pages, the second fetched from the first's NextPageLink
    (the query again with $skip, '$' and quotes unescaped, as Azure writes it)."""
    params = azure.query_params(price_type, series)
    query = urlencode({**params, "$skip": 1000}, quote_via=lambda text, *_: quote(text, "$'"))
    link = f"https://prices.azure.com:443/api/retail/prices?{query}"
    first = (pages[0], azure.PRICES_URL, {"method": "GET", "params": params})
    return (first, *((page, link, GET) for page in pages[1:]))


ND_PAGES = ("consumption-nd-page-1.json", "consumption-nd-page-2.json")


def gcp_pages(service: str, *pages: str) -> tuple[tuple[str, str, dict], ...]:
    """One Cloud Billing service's fixture pages, each after the first asked by the token the
    page before gave (the compute fixture's first page gives "page-2-token")."""
    params: dict = {"key": "<redacted>", "currencyCode": "USD", "pageSize": gcp.PAGE_SIZE}
    url = gcp.SKUS_URL.format(service=service)
    tokens = ({}, *({"pageToken": f"page-{n}-token"} for n in range(2, len(pages) + 1)))
    return tuple(
        (page, url, {"method": "GET", "params": params | token})
        for page, token in zip(pages, tokens, strict=True)
    )


# AWS's sources: the sample week's answers in tests/fixtures/<source>/week/ (run.json lists
# them with their requests). An item, row or rate is found by its instance type and region.
AWS_RUN = "week/run.json"


def aws_item(types: str, region: str) -> str:
    """A GetProducts item of one of `types` (a regex) in `region`."""
    return f'"instanceType":"({types})".*"regionCode":"{region}"'


# Every source's fixture moves by its seeded factor and carries the estimate mark, except the
# KEPT ones.
TABLE: dict[str, Sample] = {
    "civo": KEPT,
    "coreweave": KEPT,
    "crusoe": KEPT,
    "gmicloud": KEPT,
    "nebius": KEPT,
    "voltagepark": KEPT,
    "latitude": Sample(mark=None, offers="data.*", left_out="m3-large-x86"),
    "novita": KEPT,
    "scaleway": Sample(mark=None, offers="servers.*", left_out="DEV1-S"),
    # SkyPilot's published catalog, turned back into the answer (tests/fixtures/*/ORIGIN.md)
    "fluidstack": KEPT,
    "hyperstack": Sample(mark=None, offers="data.*", left_out='"gpu": ""'),
    "ovhcloud": Sample(mark=None, offers="addons.*", left_out='"planCode": "(b2-7|storage)'),
    "lambda": Sample(
        rows=HTML_ROW,
        cells=DOLLARS,
        files=(("pricing-2026-08-22.html", LAMBDA_PAGE, GET),),  # the path without an API key
        # the recorded page's B200 and H100 SXM prices, which sample/REFERENCES.md traces
        traced=r"(B200 SXM6|H100 SXM)<",
        moves=(Move(6, "GH200", factor=0.9),),
    ),
    "modal": Sample(
        rows=r'<div class="price-row">.*?</div>',
        cells=r"\$(\d+\.\d+)",
        traced=r"Nvidia (H100|A100, 80 GB|L40S|L4|T4)<",
    ),
    "together-clusters": Sample(
        rows=HTML_ROW, cells=DOLLARS, moves=(Move(5, "HGX H200", factor=0.92),)
    ),
    # the four shapes the comparison articles quote (sample/REFERENCES.md [A]) keep their price
    "oci": Sample(
        left_out="AI Enterprise|OCPU",
        traced=r"GPU - (H100|H200|B200|MI300X)\"",
    ),
    "amddevcloud": Sample(mark=None, offers="sizes.*", left_out="s-1vcpu"),
    "digitalocean": Sample(
        left_out="s-1vcpu",
        moves=(Move(3, "gpu-mi300x", factor=0.9),),
    ),
    "cloudrift": Sample(
        left_out="rtx59-16c-nr.4",
        moves=(Move(4, "rtx49-16c-nr.1", factor=0.92),),
    ),
    "cudo": Sample(
        left_out="epyc-milan",
    ),
    "daytona": Sample(
        moves=(Move(3, "RTX.?4090", factor=0.9),),
    ),
    "hotaisle": Sample(moves=(Move(6, "MI300X", factor=0.95),)),
    "jarvislabs": Sample(
        moves=(Move(4, '"gpu_type": "H100"', factor=0.9),),
    ),
    "lium": Sample(
        moves=(Move(3, "RTX 5090", factor=1.1), Move(5, "H200", factor=0.92)),
    ),
    # The fixture's 4x H200 NVL spot offer is a test mock's 78 cents an hour ($0.18 a chip,
    # about a fifteenth of any H200's rent): no level a user would see, so not in the sample.
    "massedcompute": Sample(
        left_out="cpu_small|h200_nvl",
        mark="instance_type",
        moves=(Move(4, "gpu_1x_l40", factor=0.93),),
    ),
    "mithril": Sample(daily=0.04),
    "paperspace": Sample(
        left_out='"label": "C5"',
        moves=(Move(7, '"label": "A6000', factor=0.9),),
    ),
    "simplepod": Sample(
        traced=r'"gpuModel": "RTX (A4000|4090|5090|PRO 6000)',
    ),
    "tensordock": Sample(left_out=r'"gpus": \[\]'),
    "vastai": Sample(
        renumbered=("id", "ask_contract_id", "bundle_id"),
        moves=(Move(5, '"gpu_name": "H100 SXM"', factor=0.95),),
        files=tuple(
            (file, BUNDLES_URL, {"method": "POST", "json": SEARCHES[model]})
            for file, model in (("search-on-demand.json", "on_demand"), ("search-bid.json", "spot"))
        ),
    ),
    "verda": Sample(
        left_out="CPU.4V",
        moves=(Move(7, '"instance_type": "1B200', factor=0.95),),
    ),
    "vultr": Sample(
        left_out="vcg-a100-(1c|6c)",
        moves=(Move(4, "h100", factor=0.9),),
    ),
    "runpod": Sample(
        moves=(Move(3, "H200", factor=0.94),),
    ),
    "spheron": Sample(
        moves=(
            Move(2, "sph-rtx4090-1x-hel", "zero"),
            Move(3, "h200-sxm5-1x-.*::spot", factor=0.95),
            Move(4, "dc-1A100", "new"),
            Move(5, "ses-h100-sxm5-1x-mrs", "gone"),
            # an 8-GPU price shown for one GPU, then put right: flagged as a jump both ways
            Move(6, 'vp-h100-sxm5-1x-dfw"', factor=8.0),
            Move(8, 'vp-h100-sxm5-1x-dfw"', factor=0.125),
        ),
    ),
    # AWS's advisor file as recorded, cut to the accelerator types (buckets, not prices: kept).
    "aws-spot-advisor": Sample(
        mark=None,
        files=(
            (
                "recorded-spotinfo-2025-06-28-accelerators.json",
                ADVISOR_URL,
                {"kind": "spot-advisor"},
            ),
        ),
    ),
    "aws-spot-feed": Sample(
        daily=0.04,
        files=(("spot.js", SPOT_FEED_URL, {"kind": "spot-feed"}),),
    ),
    # The capture sample/REFERENCES.md traces (the H100 v5's on-demand and spot rows in eastus)
    # keeps its price; MI300X v5 is listed in westus only.
    "azure": Sample(
        traced=r'"armRegionName": "eastus",.*"type": "Consumption",.*"Standard_ND96isr_H100_v5"',
        moves=(Move(4, "Standard_ND96isr_H200_v5", factor=0.9),),
        files=(
            *azure_query("Consumption", "Standard_ND", *ND_PAGES),
            *azure_query("Consumption", "Standard_NC", "consumption-nc.json"),
            *azure_query("Consumption", "Standard_NV", "consumption-nv.json"),
            *azure_query("Consumption", "Standard_NG", "empty.json"),
            *azure_query("Reservation", "Standard_ND", "reservation-nd.json"),
            *azure_query("Reservation", "Standard_NC", "reservation-nc.json"),
            *azure_query("Reservation", "Standard_NV", "empty.json"),
            *azure_query("Reservation", "Standard_NG", "empty.json"),
        ),
    ),
    # Google's prices sample/REFERENCES.md traces keep theirs: the A100 and A2 SKUs on demand
    # (a recorded page), TPU v6e on demand, A4's B200 slice and the flex-start and calendar SKUs
    # (public captures).
    "gcp": Sample(
        traced=r'"description": "(TpuV6e|Nvidia Tesla A100 GPU|A2 Instance (Core|Ram)) running in '
        r'Americas"|A4 Nvidia B200 \(1 gpu slice\)|DWS Defined Duration',
        # the g2-standard types: their L4 GPU, vCPU and memory SKUs
        moves=(Move(4, r"Nvidia L4 GPU|G2 Instance (Core|Ram)", factor=0.85),),
        files=(
            *gcp_pages(gcp.SERVICES[0], "compute-skus-page-1.json", "compute-skus-page-2.json"),
            *gcp_pages(gcp.SERVICES[1], "tpu-skus-page-1.json"),
        ),
    ),
    # The ECB's days of rates (no prices, so nothing to mark): each run lists the days published
    # before it, each day's rates moved by a share of its own, the same in every run.
    "ecb-rates": Sample(
        mark=None,
        rows=r'<Cube time="[^"]*">.*?</Cube>',
        cells=r'rate="(\d+\.\d+)"',
        dated=r'time="(\d{4}-\d{2}-\d{2})"',
        daily=0.003,
    ),
    # the six on-demand prices sample/REFERENCES.md traces keep theirs (their reserved terms
    # are marked in the fixture); a $0 product, a price cut, a launch, a withdrawal
    "aws-pricing-api": Sample(
        run=AWS_RUN,
        offers="PriceList.*",
        prices=("pricePerUnit",),
        mark="terms.*.*",
        traced="|".join(
            (
                aws_item(
                    r"p5\.48xlarge|p5en\.48xlarge|p6-b200\.48xlarge|trn1\.32xlarge", "us-east-1"
                ),
                aws_item(r"p5\.48xlarge", "us-west-2"),
                aws_item(r"trn2\.48xlarge", "us-east-2"),
            )
        ),
        moves=(
            Move(2, aws_item(r"g5\.xlarge", "eu-north-1"), "zero"),
            Move(4, aws_item(r"p4d\.24xlarge", "us-west-2"), factor=0.92, within="OnDemand"),
            Move(5, aws_item(r'g6e\.[^"]+', "ap-northeast-1"), "new"),
            Move(6, aws_item(r"inf2\.48xlarge", "us-west-2"), factor=0.94),
            Move(7, aws_item(r"p4d\.24xlarge", "eu-west-1"), "gone"),
        ),
    ),  # fmt: skip
    "aws-bulk": Sample(
        run=AWS_RUN,
        rows=r'(?m)^"?[A-Z0-9]{16}"?,[^\n]*',  # a price line of the EC2 or savings-plan CSV
        cells=r'(?:"(?:Hrs|Quantity)","|,Hrs,[^,]*,)(\d[\d.]*)',  # its PricePerUnit or rate
        marks=r'(?<=,)"?(synthetic:[^"\n]*?)"?$',  # the fixture's chipcostEstimate column
        moves=(Move(5, '"OnDemand".*"g6e\\.xlarge".*"ap-south-1"', factor=0.9),),
    ),
    "aws-savings-plans": Sample(
        run=AWS_RUN,
        moves=(Move(6, '"planType": "Compute".*BoxUsage:p5en\\.', factor=0.95),),
    ),
    "aws-spot": Sample(run=AWS_RUN, daily=0.06),
    "aws-capacity-blocks": Sample(run=AWS_RUN, daily=0.03),
    "seeweb": Sample(
        left_out="eCS4",
        moves=(Move(5, "MI300X", factor=0.92),),
    ),
}


def declared(source: str, sample: Sample) -> Sample:
    """`sample` with its offers and their price keys where the source's formats declare them:
    the rows with `prices` of the formats it fetches now (a retired format is no sample's)."""
    if sample.offers or sample.rows:
        return sample
    formats = registry()[source].formats
    rows = [rows for form in formats if not form.retired for rows in form.rows if rows.prices]
    if not rows:
        return sample
    offers = "|".join(dict.fromkeys(offers_path(rows.at) for rows in rows))
    prices = tuple(dict.fromkeys(key for rows in rows for key in rows.prices))
    return dataclasses.replace(sample, offers=offers, prices=prices)


def offers_path(at: str) -> str:
    """A format's place as the scrambler's path: 'data[].offers[]' -> 'data.*.offers.*',
    '[]' -> '*' (every item of the answer), 'servers.*' as it is."""
    return at.replace("[]", ".*").lstrip(".")


def _declares_prices(source: Source) -> bool:
    return any(rows.prices for form in source.formats for rows in form.rows)


# The table's sources, and every source whose formats declare its offers and prices, which needs
# no entry of its own.
SAMPLES: dict[str, Sample] = {
    name: declared(name, TABLE.get(name, Sample()))
    for name in (*TABLE, *(n for n, s in registry().items() if _declares_prices(s)))
}
