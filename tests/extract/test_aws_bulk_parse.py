"""aws-bulk parse() on recorded price list CSVs: by-name columns, the filter, the SP join.

Fixtures in tests/fixtures/aws-bulk/ (AWS's URL paths) are written by
`python -m tests.aws_bulk_fixtures` from the same products as the aws-pricing-api fixtures.
"""

from __future__ import annotations

import csv
import io
import json
import random
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract.aws import bulk as aws_bulk
from chipcost.extract.aws import pricing as aws_pricing
from chipcost.extract.aws._bulk_csv import filter_file, read_head
from chipcost.extract.aws._bulk_parse import ec2_selection, savings_plan_selection
from tests import aws_bulk_fixtures
from tests.aws_price_list import get_products_page, item_string, offer_item
from tests.paths import ROOT
from tests.sources import payloads_of

FIXTURES = ROOT / "tests" / "fixtures" / "aws-bulk"
EC2 = "offers/v1.0/aws/AmazonEC2"
EAST = f"{EC2}/20251201190623/us-east-1/index.csv"
WEST = f"{EC2}/20251201190623/us-west-2/index.csv"
OLD = f"{EC2}/20230825183306/us-east-1/index.csv"
SP = "savingsPlan/v1.0/aws/AWSComputeSavingsPlan/20251127203214"
SP_EAST, SP_WEST = f"{SP}/us-east-1/index.csv", f"{SP}/us-west-2/index.csv"
FETCHED_AT = datetime(2026, 11, 14, 6, 0, 3, tzinfo=UTC)


# each price file at its path on AWS's host, with the region its fetch asked for
payload = payloads_of(
    "aws-bulk", "https://pricing.us-east-1.amazonaws.com/{name}", request={"region": ""}
)


ON_DEMAND = ("on_demand", "none", "none", "default")


def find(records, instance_type: str, region: str, offer: tuple[str, ...] = ON_DEMAND):
    """The one record of (model, term, payment, plan) for an instance type in a region."""
    key = (instance_type, region, *offer)
    found = [
        r
        for r in records
        if (r.instance_type, r.region, r.pricing_model, r.term, r.payment, r.plan) == key
    ]
    assert len(found) == 1, f"{len(found)} records for {key}"
    return found[0]


@pytest.fixture(scope="module")
def current():
    return aws_bulk.parse(
        [
            payload(EAST, region="us-east-1"),
            payload(WEST, region="us-west-2"),
            payload(SP_EAST, region="us-east-1"),
            payload(SP_WEST, region="us-west-2"),
        ]
    )


def test_fixtures_are_what_the_writer_writes():
    for folder, built in (
        ("aws-bulk", aws_bulk_fixtures.files()),
        ("aws-spot-feed", aws_bulk_fixtures.spot_files()),
    ):
        root = ROOT / "tests" / "fixtures" / folder
        # ORIGIN.md, contract.toml, recorded-* files and the sample week (week/) come from
        # elsewhere (ORIGIN.md says where).
        written = [p for p in root.rglob("*") if p.is_file() and not _kept_apart(p, root)]
        on_disk = {str(p.relative_to(root)): p.read_bytes() for p in written}
        assert built == on_disk, "run: python -m tests.aws_bulk_fixtures"


def _kept_apart(path: Path, root: Path) -> bool:
    name = path.name
    return (
        name in ("ORIGIN.md", "contract.toml")
        or name.startswith("recorded-")
        or path.relative_to(root).parts[0] == "week"
    )


def test_on_demand_and_reserved_prices_as_the_api_source_makes_them(current):
    page = json.dumps(get_products_page([item_string(offer_item("p5.48xlarge", "us-east-1"))]))
    api = aws_pricing.parse([Payload(page.encode(), "u", FETCHED_AT, "p", "p")]).records
    bulk = [r for r in current.records if r.sku == api[0].sku]
    assert len(bulk) == len(api) == 13  # on demand and 12 reserved terms

    def key(r):
        return (r.offer_key(), r.price_per_hour, r.upfront, r.chip, r.chip_count)

    assert sorted(map(key, bulk)) == sorted(map(key, api))
    assert {r.source for r in bulk} == {"aws-bulk"}
    # The CSV's "vCPU", "Memory" ("2048 GiB") and "Storage" ("8 x 3840 SSD") columns.
    assert {(r.vcpus, r.ram_gb, r.disk_gb) for r in bulk} == {(192.0, 2048.0, 30720.0)}


def test_reserved_rate_is_hourly_plus_upfront_over_the_term(current):
    offer = ("reserved", "1yr", "partial_upfront", "standard")
    partial = find(current.records, "p5.48xlarge", "us-east-1", offer)
    body = "".join((FIXTURES / EAST).read_text().splitlines(keepends=True)[5:])
    wanted = {"SKU": partial.sku, "PurchaseOption": "Partial Upfront", "OfferingClass": "standard"}
    rows = [
        row
        for row in csv.DictReader(io.StringIO(body))
        if all(row[k] == v for k, v in wanted.items()) and row["LeaseContractLength"] == "1yr"
    ]
    hourly = next(float(r["PricePerUnit"]) for r in rows if r["Unit"] == "Hrs")
    upfront = next(float(r["PricePerUnit"]) for r in rows if r["Unit"] == "Quantity")
    assert partial.upfront == upfront
    assert partial.price_per_hour == pytest.approx(hourly + upfront / 8760)
    assert partial.chip == "H100-SXM" and partial.chip_count == 8


def test_savings_plans_join_ec2_skus_through_the_discounted_sku(current):
    on_demand = find(current.records, "p5.48xlarge", "us-east-1")
    compute = find(
        current.records,
        "p5.48xlarge",
        "us-east-1",
        ("savings_plan", "1yr", "no_upfront", "compute"),
    )
    ec2 = find(
        current.records,
        "p5.48xlarge",
        "us-east-1",
        ("savings_plan", "3yr", "all_upfront", "ec2_instance"),
    )
    assert compute.price_per_hour == pytest.approx(round(on_demand.price_per_hour * 0.72, 4))
    assert ec2.price_per_hour == pytest.approx(round(on_demand.price_per_hour * 0.38, 4))
    assert compute.extra["discountedSku"] == on_demand.sku
    assert compute.sku == f"{compute.extra['savingsPlanSku']}.{on_demand.sku}"
    assert compute.chip == "H100-SXM" and compute.upfront is None
    plans = {
        (r.term, r.payment, r.plan)
        for r in current.records
        if r.offer_key()[1:5] == ("us-east-1", "", "p5.48xlarge", "savings_plan")
    }
    assert len(plans) == 12  # 2 plans x 2 terms x 3 payment options


def test_a_rate_for_a_sku_we_never_saw_is_a_reject(current):
    (reject,) = current.rejects
    assert "which no EC2 price list file of this run lists" in reject.reason
    assert "p5en.48xlarge" in reject.reason
    assert reject.payload_ref.endswith(SP_EAST)
    # Windows, dedicated-tenancy and m5 rates are outside the selection, not rejects.
    assert not [r for r in current.records if r.instance_type == "m5.large"]


def test_rows_outside_the_filters_are_not_prices(current):
    east = [
        r for r in current.records if r.region == "us-east-1" and r.pricing_model == "on_demand"
    ]
    assert sorted(r.instance_type for r in east) == [
        "g6e.xlarge", "g9x.48xlarge", "inf2.48xlarge", "p5.48xlarge", "trn1.32xlarge",
    ]  # fmt: skip
    # Windows, Dedicated, unused reservations, SQL Web, Capacity Blocks: one p5 price only.
    assert find(current.records, "p5.48xlarge", "us-east-1").price_per_hour == 55.04
    assert any("g9x.48xlarge" in note and "aws_families.csv" in note for note in current.notes)


def test_columns_are_selected_by_name_in_any_order():
    original = (FIXTURES / EAST).read_text().splitlines(keepends=True)
    table = list(csv.reader(io.StringIO("".join(original[5:]))))
    order = list(range(len(table[0])))
    random.Random(7).shuffle(order)
    shuffled = "".join(original[:5]) + "".join(
        ",".join(f'"{row[i]}"' if row[i] else "" for i in order) + "\n" for row in table
    )
    before = aws_bulk.parse([payload(EAST, region="us-east-1")]).records
    after = aws_bulk.parse([payload(EAST, region="us-east-1", data=shuffled.encode())]).records
    assert [(r.offer_key(), r.price_per_hour) for r in after] == [
        (r.offer_key(), r.price_per_hour) for r in before
    ]


def test_a_later_header_with_new_columns_in_another_order(current):
    head = read_head(FIXTURES / WEST, "w")
    assert head.columns[0] == "Compute Type" and head.columns[-1] == "Instance Capacity - 48xlarge"
    p5 = find(current.records, "p5.48xlarge", "us-west-2")
    assert p5.price_per_hour == 55.04 and p5.extra["version"] == "20251201190623"
    assert (p5.vcpus, p5.ram_gb, p5.disk_gb) == (192.0, 2048.0, 30720.0)  # columns by name


def test_an_older_header_without_region_code_takes_the_files_region():
    head = read_head(FIXTURES / OLD, "w")
    assert "Region Code" not in head.columns and "MarketOption" not in head.columns
    result = aws_bulk.parse([payload(OLD, region="us-east-1")])
    p5 = find(result.records, "p5.48xlarge", "us-east-1")
    assert p5.price_per_hour == 98.32 and not result.rejects


@pytest.mark.parametrize(
    ("relative", "selection"),
    [(EAST, ec2_selection()), (WEST, ec2_selection()), (OLD, ec2_selection())],
)
def test_the_duckdb_filter_keeps_exactly_what_the_parser_keeps(tmp_path, relative, selection):
    path = FIXTURES / relative
    extract = filter_file(path, selection, read_head(path, "w"), "w")
    lines = set(path.read_text().splitlines())
    assert all(line in lines for line in extract.decode().splitlines())  # AWS's own bytes
    full = aws_bulk.parse([payload(relative, region="us-east-1")])
    kept = aws_bulk.parse([payload(relative, region="us-east-1", data=extract)])
    assert [(r.offer_key(), r.price_per_hour) for r in kept.records] == [
        (r.offer_key(), r.price_per_hour) for r in full.records
    ]


def test_the_savings_plan_filter_matches_the_parser(current):
    skus = {r.sku for r in current.records if r.pricing_model == "on_demand"}
    path = FIXTURES / SP_EAST
    extract = filter_file(path, savings_plan_selection(skus), read_head(path, "w"), "w")
    ec2 = payload(EAST, region="us-east-1")
    full = aws_bulk.parse([ec2, payload(SP_EAST, region="us-east-1")])
    kept = aws_bulk.parse([ec2, payload(SP_EAST, region="us-east-1", data=extract)])
    assert len(kept.records) == len(full.records) and len(kept.rejects) == len(full.rejects) == 1
    assert extract.count(b"\n") == 6 + 3 * 12 + 1  # three products' rates and the stray SKU


def test_a_rate_of_a_rejected_product_says_so():
    text = (FIXTURES / EAST).read_text()
    text = text.replace('"p5.48xlarge","Yes"', '"p5.12xlarge","Yes"')  # no chip count anywhere
    text = text.replace(',"8","640 GB",', ",,,")
    result = aws_bulk.parse(
        [
            payload(EAST, region="us-east-1", data=text.encode()),
            payload(SP_EAST, region="us-east-1"),
        ]
    )
    reasons = [r.reason for r in result.rejects]
    assert any(reason.startswith("chip count unknown: p5.12xlarge") for reason in reasons)
    assert sum("was rejected (see its reject)" in reason for reason in reasons) == 12


@pytest.mark.parametrize(
    ("data", "message"),
    [
        ((FIXTURES / "bad" / "ec2-cut-off.csv").read_bytes(), "cut off or malformed"),
        ((FIXTURES / "bad" / "ec2-missing-column.csv").read_bytes(), "'PricePerUnit'"),
        (b"<html><body>503 Service Unavailable</body></html>\n" * 6, "not an AWS price list"),
        (b'"FormatVersion","v1.0"\n"Disclaimer","x"\n', "ends before its header line"),
        # the fifth line's quote left open swallows the column header
        (
            b'"FormatVersion","v1.0"\n"Disclaimer","x"\n"Publication Date","2025-12-01"\n'
            b'"Version","1"\n"OfferCode","AmazonEC2\n"\n"SKU","OfferTermCode"\n',
            "no column header",
        ),
    ],
)
def test_bad_files_are_parse_errors_naming_the_payload(data, message):
    with pytest.raises(ParseError, match=message) as failed:
        aws_bulk.parse([payload(EAST, region="us-east-1", data=data)])
    assert EAST in str(failed.value)


def test_indexes_carry_no_prices_and_a_run_of_only_indexes_is_refused():
    index = payload("offers/v1.0/aws/index.json")
    with_prices = aws_bulk.parse([index, payload(OLD, region="us-east-1")])
    assert len(with_prices.records) == len(
        aws_bulk.parse([payload(OLD, region="us-east-1")]).records
    )
    # Loading an empty run would withdraw every open aws-bulk offer: refuse it instead.
    with pytest.raises(ParseError, match="no price file"):
        aws_bulk.parse([index])


P5_SKU = "YVAE37AS34SO7ZNW"  # p5.48xlarge, Linux, shared tenancy, in the us-east-1 file
P5_ON_DEMAND = f'"{P5_SKU}.JRTCKXETXF.6YS6EN2CT7","OnDemand",'


@pytest.mark.parametrize("sent", ["5_5.0400000000", "\u0665\u0665.0400000000", " 55.04"])
def test_a_price_float_would_read_as_another_number_is_a_reject_naming_it(sent):
    """PricePerUnit "5_5.04" loaded as 55.04 (float() reads digit grouping, and other
    scripts' digits): a reject naming the value, its offer kept open by its SKU."""
    lines = (FIXTURES / EAST).read_text().splitlines(keepends=True)
    (at,) = [i for i, line in enumerate(lines) if P5_ON_DEMAND in line]
    assert lines[at].count('"55.0400000000"') == 1
    lines[at] = lines[at].replace('"55.0400000000"', f'"{sent}"')
    result = aws_bulk.parse([payload(EAST, region="us-east-1", data="".join(lines).encode())])
    assert not [r for r in result.records if r.sku == P5_SKU and r.pricing_model == "on_demand"]
    (reject,) = [r for r in result.rejects if r.sku == P5_SKU]
    assert f"price {sent!r} USD is not a non-negative number" in reject.reason
    assert reject.row["termType"] == "OnDemand"


def test_a_savings_plan_rate_float_would_read_otherwise_is_a_reject_naming_it():
    text = (FIXTURES / SP_EAST).read_text()
    rate = next(line for line in text.splitlines() if f".{P5_SKU}," in line).split(",")[4]
    assert text.count(f",{rate},") == 1
    text = text.replace(f",{rate},", f",{rate[0]}_{rate[1:]},")
    ec2 = payload(EAST, region="us-east-1")
    result = aws_bulk.parse([ec2, payload(SP_EAST, region="us-east-1", data=text.encode())])
    (reject,) = [r for r in result.rejects if "DiscountedRate" in r.reason]
    assert reject.reason == f"DiscountedRate '{rate[0]}_{rate[1:]}' is not a positive number"


@pytest.mark.parametrize(
    ("recorded", "sent", "named"),
    [
        ('"p5.48xlarge","Yes"', '"p5.48xlarge\x00","Yes"', "instanceType 'p5.48xlarge\\x00'"),
        ('"p5.48xlarge","Yes"', '"p5.48xlarge\x1b","Yes"', "instanceType 'p5.48xlarge\\x1b'"),
        ('"p5.48xlarge","Yes"', '"P5.48xlarge","Yes"', "instanceType 'P5.48xlarge'"),
        (',"us-east-1",', ',"us-east-1\x00",', "regionCode 'us-east-1\\x00'"),
    ],
)
def test_an_instance_type_or_region_that_is_no_aws_name_is_a_reject(recorded, sent, named):
    """ "p5.48xlarge\\x00" made a ghost type beside p5.48xlarge, mapped to H100-SXM: a clean run
    later showed its offers as new and the ghost's as withdrawn."""
    text = (FIXTURES / EAST).read_text().replace(recorded, sent)
    result = aws_bulk.parse([payload(EAST, region="us-east-1", data=text.encode())])
    names = {(r.instance_type, r.region) for r in result.records}
    assert all(name.isprintable() and name == name.lower() for pair in names for name in pair)
    refused = [r for r in result.rejects if named in r.reason]
    assert refused and all("is not an AWS" in r.reason for r in refused)
    assert {r.sku for r in refused} >= ({P5_SKU} if "p5" in recorded else set())
