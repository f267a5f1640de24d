"""aws-spot-feed: parse() on the recorded spot.js, fetch() from a local HTTP server."""

from __future__ import annotations

import json

import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError, SourceError, SourceSkipped
from chipcost.core.settings import SourceSettings
from chipcost.extract.aws import _public as _aws_public
from chipcost.extract.aws import spot_feed as aws_spot_feed
from chipcost.extract.aws.spot_feed import SOURCE_NAME, parse
from chipcost.extract.base import FetchContext
from chipcost.transform.validate import validate_records
from tests.fault_server import fault_server, respond
from tests.paths import FIXTURES
from tests.price_files_server import Faults, serve
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "aws-spot-feed"
FEED = "0001.js.gz"  # the name fetch() archives the feed under
payload = payloads_of(SOURCE_NAME, aws_spot_feed.SPOT_FEED_URL, file="spot.js")


def feed_with(size: str, price: str, region: str = "us-west-2") -> bytes:
    """The recorded feed with one more entry."""
    text = (FIXTURES / "spot.js").read_text()
    body = json.loads(text[len("callback(") : -2])
    entry = {"size": size, "valueColumns": [{"name": "linux", "prices": {"USD": price}}]}
    body["config"]["regions"].append(
        {"region": region, "instanceTypes": [{"type": "gpuCurrentGen", "sizes": [entry]}]}
    )
    return f"callback({json.dumps(body)});".encode()


def test_one_linux_spot_price_per_region_and_accelerator_type():
    result = parse([payload(FEED)])
    found = {(r.region, r.instance_type): r.price_per_hour for r in result.records}
    assert found == {
        ("us-east-1", "p5.48xlarge"): 23.8843,
        ("us-east-1", "g6e.xlarge"): 0.6512,
        ("us-east-1", "trn1.32xlarge"): 7.122,
        ("us-west-2", "p5.48xlarge"): 19.9021,
        ("us-west-2", "inf2.48xlarge"): 3.8931,
        ("eu-west-1", "g5.xlarge"): 0.4829,  # the feed's "eu-ireland"
    }
    p5 = next(r for r in result.records if r.instance_type == "p5.48xlarge")
    assert (p5.pricing_model, p5.zone, p5.term, p5.chip, p5.chip_count) == (
        "spot",
        "",
        "none",
        "H100-SXM",
        8,
    )
    assert p5.extra["feedRegion"] == "us-east" and p5.payload_ref.endswith("0001.js.gz")


def test_no_spot_market_is_a_reject_that_says_so():
    reasons = sorted(r.reason for r in parse([payload(FEED)]).rejects)
    assert reasons == [
        "p4d.24xlarge in eu-west-1: no spot market: the feed lists 'N/A' (not offered as "
        "spot here)",
        "p6-b200.48xlarge in us-east-1: no spot market: the feed lists 'N/A*' (not offered as "
        "spot here)",
    ]


def test_java_style_numbers_are_numbers_and_implausible_ones_are_caught():
    # t4g.nano's "9.0E-4" in the recording is not an accelerator: skipped, not a reject.
    assert not [r for r in parse([payload(FEED)]).rejects if "t4g" in str(r.row)]
    result = parse([payload(FEED, data=feed_with("g6e.xlarge", "9.0E-4", "ap-south-1"))])
    odd = next(r for r in result.records if r.region == "ap-south-1")
    assert odd.price_per_hour == pytest.approx(0.0009)
    validated = validate_records([odd], {SOURCE_NAME: "aws"})
    assert not validated.records
    assert "outside the plausible range" in validated.rejects[0].reason


def test_an_unknown_region_name_or_type_size_is_a_reject_with_what_to_do():
    result = parse([payload(FEED, data=feed_with("p5.48xlarge", "20.1", "apac-mars"))])
    (reject,) = [r for r in result.rejects if "apac-mars" in r.reason]
    assert "REGION_ALIASES" in reject.reason
    result = parse([payload(FEED, data=feed_with("p5.12xlarge", "5.0"))])
    assert any("add p5.12xlarge to" in r.reason for r in result.rejects)


def test_a_new_accelerator_family_in_the_feed_s_gpu_group_is_a_reject_naming_what_to_add():
    """p7.48xlarge in gpuCurrentGen, a family the catalog lacks: it was skipped without a
    word (a new size of a known family, p5.96xlarge, was refused). A size of a family the
    catalog lacks in another group (m5.large in generalCurrentGen) is still not ours."""
    result = parse([payload(FEED, data=feed_with("p7.48xlarge", "41.2"))])
    (refused,) = [r for r in result.rejects if "p7" in r.reason]
    assert refused.reason.startswith("p7.48xlarge in us-west-2: family p7 is not in")
    assert "aws_families.csv" in refused.reason and "gpuCurrentGen" in refused.reason
    assert refused.offer["instance_type"] == "p7.48xlarge"
    assert not [r for r in result.rejects if "m5.large" in r.reason or "t4g" in r.reason]
    assert len(result.records) == 6  # the feed's own


@pytest.mark.parametrize(
    ("recorded", "sent", "instance_type"),
    [
        ("23.8843", "2_3.8843", "p5.48xlarge"),  # float() reads 23.8843
        ("7.1220", "\\u0667.1220", "trn1.32xlarge"),  # an Arabic-Indic 7: float() reads 7.122
        ("7.1220", " 7.1220", "trn1.32xlarge"),
    ],
)
def test_a_price_float_would_read_as_another_number_is_a_reject_naming_it(
    recorded, sent, instance_type
):
    text = (FIXTURES / "spot.js").read_text()
    assert text.count(f'"USD":"{recorded}"') == 1
    data = text.replace(f'"USD":"{recorded}"', f'"USD":"{sent}"').encode()
    result = parse([payload(FEED, data=data)])
    assert ("us-east-1", instance_type) not in {(r.region, r.instance_type) for r in result.records}
    (reject,) = [r for r in result.rejects if instance_type in r.reason]
    shown = json.loads(f'"{sent}"')
    assert (
        reject.reason
        == f"{instance_type} in us-east-1: spot price {shown!r} is not a positive number"
    )
    assert reject.offer["instance_type"] == instance_type  # its offer kept open
    assert len(result.records) == 5


@pytest.mark.parametrize("size", ["p5.48xlarge\x00", "p5.48xlarge\u200b", "p5.48xlarge "])
def test_a_size_that_is_no_instance_type_name_is_a_reject(size):
    """ "p5.48xlarge\\x00" loaded as a type of its own beside p5.48xlarge, mapped to H100-SXM."""
    result = parse([payload(FEED, data=feed_with(size, "20.1"))])
    assert {r.instance_type for r in result.records} <= {
        "p5.48xlarge", "g6e.xlarge", "trn1.32xlarge", "inf2.48xlarge", "g5.xlarge"
    }  # fmt: skip
    (reject,) = [r for r in result.rejects if "not an EC2 instance type name" in r.reason]
    assert reject.reason.startswith(f"{size} in us-west-2: size {size!r} is not")
    assert len(result.records) == 6


RECORDED = "recorded-spot-json-spotinfo-excerpt.json"
PLAIN_URL = "https://website.spot.ec2.aws.a2z.com/spot.json"


def recorded_with(rate: str | None = "perhr", currency: str = "USD", per: float = 1) -> bytes:
    """The recorded feed (spot.json) stating `rate` (None: no rate) and pricing in `currency`,
    each price divided by `per`: the same prices as a feed in that unit would state them."""
    feed = json.loads((FIXTURES / RECORDED).read_text())
    if rate is None:
        del feed["config"]["rate"]
    else:
        feed["config"]["rate"] = rate
    feed["config"]["currencies"] = [currency]
    for region in feed["config"]["regions"]:
        for group in region["instanceTypes"]:
            for size in group["sizes"]:
                for column in size["valueColumns"]:
                    (price,) = column["prices"].values()
                    if not price.startswith("N/A"):
                        price = f"{float(price) / per:.6f}"
                    column["prices"] = {currency: price}
    return json.dumps(feed).encode()


@pytest.mark.parametrize(
    ("rate", "per"), [("permin", 60), ("persec", 3600), ("permonth", 1 / 730), (None, 1)]
)
def test_a_feed_stating_another_unit_has_every_row_refused_naming_it(rate, per):
    """Priced per minute, the recorded feed's g4dn.xlarge at $0.2452/h reads $0.004087: it
    loaded as $0.004087 an hour (and a price per second or month was refused only where its
    per-chip price fell outside the plausible range)."""
    recorded = parse([payload(FEED, PLAIN_URL, data=recorded_with())])
    result = parse([payload(FEED, PLAIN_URL, data=recorded_with(rate, per=per))])
    assert not result.records
    assert len(result.rejects) == len(recorded.records) == 8
    named = f"config.rate {rate!r} is not 'perhr'" if rate else "config lacks rate"
    for reject in result.rejects:
        assert named in reject.reason and "0001.js.gz" in reject.reason
        assert "report it" in reject.reason


def test_a_feed_in_another_currency_has_every_row_refused_naming_it():
    result = parse([payload(FEED, PLAIN_URL, data=recorded_with(currency="EUR"))])
    assert not result.records and len(result.rejects) == 8
    for reject in result.rejects:
        assert "config.currencies ['EUR']" in reject.reason and "0001.js.gz" in reject.reason
        assert "CHIPCOST_AWS_SPOT_FEED_URL" in reject.reason
    # A price keyed by another currency in a feed that says USD: refused naming it, too.
    feed = json.loads(recorded_with())
    feed["config"]["regions"][0]["instanceTypes"][1]["sizes"][0]["valueColumns"][0]["prices"] = {
        "EUR": "0.2"
    }
    result = parse([payload(FEED, PLAIN_URL, data=json.dumps(feed).encode())])
    (reject,) = result.rejects
    assert "priced in EUR, not USD" in reject.reason and len(result.records) == 7


@pytest.mark.parametrize(
    ("data", "message"),
    [
        (b"<html>Access Denied</html>", "not a JSONP callback"),
        (b"callback({not json});", "no valid JSON"),
        (b'callback({"vers": 0.01});', "no config object"),
    ],
)
def test_a_broken_feed_is_a_parse_error(data, message):
    with pytest.raises(ParseError, match=message):
        parse([payload(FEED, data=data)])


@pytest.mark.parametrize(
    "mark",
    [lambda text: b"\xef\xbb\xbf" + text, lambda text: text.decode().encode("utf-16")],
    ids=["UTF-8", "UTF-16"],
)
def test_a_feed_behind_a_byte_order_mark_reads_as_without_it(mark):
    """On fc78b66b a UTF-8 BOM before callback( failed the source: "is not a JSONP
    callback(...) file nor the feed's plain JSON: report a format change"."""
    plain = parse([payload(FEED)]).records
    marked = mark((FIXTURES / "spot.js").read_bytes())
    found = parse([payload(FEED, data=marked)]).records
    assert [(r.region, r.instance_type, r.price_per_hour) for r in found] == [
        (r.region, r.instance_type, r.price_per_hour) for r in plain
    ]
    assert len(found) == 6


def test_a_feed_nested_past_the_reader_is_refused_naming_the_url_and_payload():
    """On fc78b66b: "a JSON document nested deeper than the JSON reader goes ...: report it",
    without the payload's URL or archived name."""
    deep = b'callback({"config": ' + b"[" * 5000 + b"]" * 5000 + b"});"
    with pytest.raises(ParseError) as failed:
        parse([payload(FEED, data=deep)])
    message = str(failed.value)
    assert message.startswith(f"{SOURCE_NAME}: payload ") and FEED in message
    assert f"({aws_spot_feed.SPOT_FEED_URL}) is nested deeper than the JSON reader" in message


@pytest.fixture
def ctx(tmp_path, monkeypatch) -> FetchContext:
    monkeypatch.setattr(_aws_public, "credentials_origin", lambda: "")
    return context(tmp_path / "archive", SOURCE_NAME)


def test_fetch_archives_the_feed_as_it_arrived(ctx, tmp_path):
    with serve(FIXTURES) as server:
        ctx.settings = SourceSettings(aws_spot_feed_url=f"{server.url}/spot.js")
        (fetched,) = aws_spot_feed.fetch(ctx)
    assert fetched.data == (FIXTURES / "spot.js").read_bytes()
    (replayed,) = read_payloads(tmp_path / "archive" / STAMP, SOURCE_NAME)
    assert replayed.name == "0001.js.gz" and replayed.request == {"kind": "spot-feed"}
    assert len(parse([replayed]).records) == 6


def test_fetch_retries_a_server_error_then_names_the_url(ctx):
    with serve(FIXTURES, Faults(status={"/spot.js": [503] * 10})) as server:
        ctx.settings = SourceSettings(aws_spot_feed_url=f"{server.url}/spot.js")
        with pytest.raises(SourceError, match="503") as failed:
            aws_spot_feed.fetch(ctx)
        assert len(server.hits("/spot.js")) == 5
    assert f"{server.url}/spot.js" in str(failed.value)


def test_a_feed_url_redirecting_to_itself_fails_the_source_in_one_line(ctx):
    """On fc78b66b: "unexpected TooManyRedirects in aws-spot-feed: ... a bug in chipcost"."""
    with fault_server(respond(302, b"", {"Location": "/spot.js"})) as server:
        ctx.settings = SourceSettings(aws_spot_feed_url=f"{server.url}/spot.js")
        with pytest.raises(SourceError) as failed:
            aws_spot_feed.fetch(ctx)
    assert str(failed.value) == (
        f"aws-spot-feed: GET {server.url}/spot.js redirected more than 5 times: report it"
    )


def test_with_credentials_aws_spot_runs_instead(ctx, monkeypatch):
    monkeypatch.setattr(_aws_public, "credentials_origin", lambda: "the AWS credentials file")
    with pytest.raises(SourceSkipped, match=r"\(the AWS credentials file\): spot prices come"):
        aws_spot_feed.fetch(ctx)


def test_a_recorded_feed_copy_with_a_comment_header_parses():
    # ligoj's 2018 copy of the feed (ORIGIN.md): four non-accelerator sizes, a licence comment
    # added above callback(...). Its shape parses; none of its sizes is ours.
    # Alone it prices nothing of ours, so it is refused as a feed that gave no offer.
    data = (FIXTURES / "recorded-spot-ligoj-2018.js").read_bytes()
    with pytest.raises(ParseError, match="gave no offer"):
        parse([payload(FEED, data=data)])


def test_the_recorded_feed_prices_each_accelerator_size_of_its_region():
    """AWS's feed as spot.json serves it (kept by alexei-led/spotinfo; an excerpt, ORIGIN.md):
    af-south-1's GPU group, seven g4dn sizes and inf1.24xlarge, read from their Linux column."""
    data = (FIXTURES / "recorded-spot-json-spotinfo-excerpt.json").read_bytes()
    result = parse([payload(FEED, "https://website.spot.ec2.aws.a2z.com/spot.json", data=data)])
    prices = {(r.region, r.instance_type): r.price_per_hour for r in result.records}
    assert prices == {
        ("af-south-1", "g4dn.xlarge"): 0.2452, ("af-south-1", "g4dn.2xlarge"): 0.2708,
        ("af-south-1", "g4dn.4xlarge"): 0.4347, ("af-south-1", "g4dn.8xlarge"): 0.38,
        ("af-south-1", "g4dn.12xlarge"): 0.9625, ("af-south-1", "g4dn.16xlarge"): 1.5179,
        ("af-south-1", "g4dn.metal"): 10.381, ("af-south-1", "inf1.24xlarge"): 0.6249,
    }  # fmt: skip
    inf1 = next(r for r in result.records if r.instance_type == "inf1.24xlarge")
    said = (inf1.chip, inf1.chip_count, inf1.pricing_model, inf1.zone, inf1.term)
    assert said == ("Inferentia1", 16, "spot", "", "none")
    assert inf1.extra["feedType"] == "gpuCurrentGen" and not result.rejects
    assert not validate_records(result.records, {SOURCE_NAME: "aws"}).rejects


def test_a_retired_family_the_catalog_lacks_is_noted_once_not_refused_in_every_region():
    """Recorded feeds list cg1.4xlarge in gpuPreviousGen, a retired family chipcost never
    mapped: on 72e1e029 it was a reject in every region of every run. Noted once a run."""
    text = (FIXTURES / "spot.js").read_text()
    body = json.loads(text[len("callback(") : -2])
    entry = {"size": "cg1.4xlarge", "valueColumns": [{"name": "linux", "prices": {"USD": "0.65"}}]}
    for region in ("us-east", "us-west-2"):
        body["config"]["regions"].append(
            {"region": region, "instanceTypes": [{"type": "gpuPreviousGen", "sizes": [entry]}]}
        )
    result = parse([payload(FEED, data=f"callback({json.dumps(body)});".encode())])
    assert not [r for r in result.rejects if "cg1" in r.reason]
    assert [n for n in result.notes if "cg1" in n] == [
        "cg1 sizes in the feed's gpuPreviousGen group are not collected: the family is not in "
        "core/data/aws_families.csv (add it there to price it)"
    ]
    assert len(result.records) == 6
