"""seeweb: parse() on gpuhunt's /ecs/v2/plans mock (euros, stored as stated), bad plans, an
archive of an earlier version holding the ECB's file beside the plans, and fetch() with and
without SEEWEB_API_TOKEN (skipped without it; the token never archived)."""

from __future__ import annotations

import json

import httpx
import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.errors import ParseError, SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.settings import SourceSettings
from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.seeweb import PLANS_URL, SOURCE, fetch, parse
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "seeweb"
TOKEN = "sw-secret0token"
ECB = "ecb-eurofxref-daily.xml"


payload = payloads_of("seeweb", PLANS_URL)


def good(name: str = "plans.json") -> list[Payload]:
    return [payload(name)]


def offers(records) -> dict[tuple[str, str], object]:
    return {(r.instance_type, r.region): r for r in records}


def test_gpu_plans_per_region_in_euros_as_seeweb_states_them():
    found = offers(parse(good()).records)
    assert set(found) == {("ECS1GPU7", "it-fr2"), ("ECS1GPU7", "it-mi2"),
                          ("ECS2GPU3", "it-fr2"), ("ECS1GPU9", "it-fr2")}  # fmt: skip
    l40s = found[("ECS1GPU7", "it-fr2")]
    assert (l40s.chip, l40s.chip_count, l40s.currency) == ("L40S", 1.0, "EUR")
    # cpu "8", ram "32768" (MB) and disk "500" (GB).
    assert (l40s.vcpus, l40s.ram_gb, l40s.disk_gb) == (8.0, 32.0, 500.0)
    assert l40s.price_per_hour == 0.85
    a100 = found[("ECS2GPU3", "it-fr2")]
    assert (a100.chip, a100.chip_count, a100.price_per_hour) == ("A100-80GB", 2.0, 1.98)
    assert found[("ECS1GPU9", "it-fr2")].chip == "MI300X"  # AMD is loaded, not skipped


def test_every_good_record_validates_in_euros():
    records = parse(good()).records
    validated = validate_records(records, {"seeweb": "seeweb"})
    assert validated.rejects == [] and len(validated.records) == 4
    assert {r.currency for r in validated.records} == {"EUR"}


def test_an_earlier_archive_with_the_ecb_file_beside_the_plans_replays_with_its_rates():
    ecb = payload(ECB, ECB_DAILY_URL)
    earlier = parse([payload("plans.json"), ecb])
    assert earlier.records == parse(good()).records and not earlier.rejects
    rates = {r["currency"]: r for r in earlier.facts["fx_rates"]}
    assert (str(rates["USD"]["day"]), rates["USD"]["per_eur"]) == ("2017-03-08", 1.0556)
    assert {(r["source"], r["payload_ref"]) for r in rates.values()} == {("seeweb", ecb.ref)}
    assert "fx_rates" not in parse(good()).facts


def test_an_archived_ecb_file_that_cannot_be_read_is_a_reject_and_the_plans_load():
    undated = payload(ECB, ECB_DAILY_URL, data=b"<Cube currency='USD' rate='1.05'/>")
    found = parse([payload("plans.json"), undated])
    assert found.records == parse(good()).records and "fx_rates" not in found.facts
    assert [r.reason for r in found.rejects] == [
        f"ecb: {ECB_DAILY_URL} ({undated.ref}) has rates but no <Cube time=...> day to date them: "
        "the ECB's file changed shape"
    ]
    refused = payload(
        "plans.json",
        data=b'{"plans": [{"name": "x", "gpu": "1", '
        b'"gpu_label": "L4", "hourly_price": "?", "available_regions": []}]}',
    )
    # every plan refused: the source fails (chipcost.pipeline.collect), no rate with it
    assert "fx_rates" not in parse([refused, payload(ECB, ECB_DAILY_URL)]).facts


def test_bad_plans_become_rejects_and_retired_plans_are_not_read():
    result = parse(good("bad-rows.json"))
    reasons = {r.reason.split()[0].rstrip(":"): r.reason for r in result.rejects}
    # a null price names no sku, its plan's offers withdrawn; a price refused keeps them open
    skus = {r.reason.split()[0].rstrip(":"): r.sku for r in result.rejects}
    assert skus["ECS1GPU7-null"] == "" and skus["ECS1GPU7-text"] == "ECS1GPU7-text"
    assert "'€0,85' is not a plain number" in reasons["ECS1GPU7-text"]
    assert "no price (None)" in reasons["ECS1GPU7-null"]
    assert "without gpu_label" in reasons["ECS1GPU7-nolabel"]
    assert "GPU count '1/2'" in reasons["ECS1GPU7-half"] and len(reasons) == 4
    found = offers(result.records)
    assert set(found) == {("ECS1GPU4", "it-fr2"), ("ECS1GPU10", "it-mi2")}  # H200 region once
    assert found[("ECS1GPU10", "it-mi2")].chip == "H200"  # "H200 141GB": model and memory
    assert found[("ECS1GPU4", "it-fr2")].chip == "unknown"
    assert any("Tenstorrent Grayskull e75" in note for note in result.notes)


def test_a_renamed_price_field_fails_the_source_naming_provider_and_url():
    with pytest.raises(ParseError) as error:
        parse(good("bad-renamed-field.json"))
    message = str(error.value)
    assert message.startswith("seeweb:") and PLANS_URL in message and "hourly_price" in message


TOKENED = SourceSettings(seeweb_api_key=TOKEN)


def test_without_a_token_the_source_is_skipped_and_nothing_is_requested(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise AssertionError("no request may be sent without a token")

    with pytest.raises(SourceSkipped, match="^SEEWEB_API_TOKEN is not set"):
        fetch(context(tmp_path, SOURCE.name, handler, settings=SourceSettings(seeweb_api_key="")))


def test_fetch_sends_the_token_and_archives_the_plans_only(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == PLANS_URL and request.headers["X-APITOKEN"] == TOKEN
        return httpx.Response(200, content=(FIXTURES / "plans.json").read_bytes())

    payloads = fetch(context(tmp_path, SOURCE.name, handler, settings=TOKENED))
    assert [p.url for p in payloads] == [PLANS_URL]
    assert TOKEN not in json.dumps(read_manifest(tmp_path / STAMP / "seeweb"))
    records = parse(read_payloads(tmp_path / STAMP, "seeweb")).records
    assert {r.currency for r in records} == {"EUR"} and len(records) == 4
