"""verda: parse() on recorded instance-types and long-term periods, bad rows, and fetch().

tests/fixtures/verda/ holds the instance-types list (prices as strings, per instance, with
gpu.number_of_gpus and the instance's total gpu_memory), the long-term periods, a list of
bad rows, and a list where price_per_hour was renamed.
"""

from __future__ import annotations

import json

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.extract.verda import INSTANCE_TYPES_URL, PERIODS_URL, SOURCE, fetch, parse
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "verda"
payload = payloads_of("verda", INSTANCE_TYPES_URL)


def good() -> list[Payload]:
    return [payload("instance-types.json"), payload("long-term-periods.json", PERIODS_URL)]


def find(records, instance_type, model="on_demand", plan="default", term="none"):
    key = (instance_type, model, plan, term)
    found = [r for r in records if (r.instance_type, r.pricing_model, r.plan, r.term) == key]
    assert len(found) == 1, f"{len(found)} records for {key}"
    return found[0]


def test_fixed_spot_and_dynamic_prices_per_instance():
    records = parse(good()).records
    eight = find(records, "8H200.141S.176V")
    assert (eight.chip, eight.chip_count, eight.price_per_hour) == ("H200", 8.0, 28.72)
    assert find(records, "8H200.141S.176V", "spot").price_per_hour == 11.52
    dynamic = find(records, "8H200.141S.176V", plan="dynamic")
    assert dynamic.price_per_hour == 21.52 and dynamic.extra["max_dynamic_price"] == "28.72"
    assert eight.source_url == INSTANCE_TYPES_URL and eight.currency == "USD"
    assert eight.payload_ref == f"{STAMP}/verda/instance-types.json"
    # cpu.number_of_cores 176, memory.size_in_gigabytes 1450; storage "dynamic": no size.
    assert (eight.vcpus, eight.ram_gb, eight.disk_gb) == (176.0, 1450.0, None)
    assert find(records, "8H200.141S.176V", "spot").vcpus == 176.0  # every price of it


def test_memory_per_gpu_separates_a100_40_from_80():
    records = parse(good()).records
    assert find(records, "1A100.80S.22V").chip == "A100-80GB"
    assert find(records, "1A100.40S.22V").chip == "A100-40GB"
    assert find(records, "1A100.40S.22V", "spot").price_per_hour == 0.2524


def test_long_term_periods_become_commitment_prices_with_terms():
    records = parse(good()).records
    one_year = find(records, "1H100.80S.30V", "commitment", term="1yr")
    assert one_year.price_per_hour == pytest.approx(2.29 * 0.74)
    assert one_year.extra["period"] == "1_YEAR" and one_year.extra["discount_percentage"] == 26
    terms = {r.term for r in records if r.instance_type == "1H100.80S.30V"}
    assert terms == {"none", "1mo", "3mo", "6mo", "1yr", "2yr"}  # 3 years is disabled


def test_types_without_spot_or_dynamic_prices_load_what_they_have():
    records = [r for r in parse(good()).records if r.instance_type == "1L40S.20V"]
    assert {(r.pricing_model, r.plan) for r in records} == {
        ("on_demand", "default"),
        ("spot", "default"),
        ("commitment", "default"),
    }


def test_cpu_only_types_are_not_accelerator_offers():
    result = parse(good())
    assert not [r for r in result.records if r.instance_type.startswith("CPU.")]
    assert not [r for r in result.rejects if "CPU." in r.reason]


def test_every_good_record_validates():
    records = parse(good()).records
    validated = validate_records(records, {"verda": "verda"})
    assert validated.rejects == [] and len(validated.records) == len(records)
    assert {r.chip for r in records} >= {"B200", "B300", "H200", "H100-SXM", "L40S", "V100"}


def test_without_the_periods_payload_the_rest_loads_and_a_note_says_so():
    result = parse([payload("instance-types.json")])
    assert not [r for r in result.records if r.pricing_model == "commitment"]
    assert find(result.records, "1B200.30V").price_per_hour == 3.99
    assert any("commitment prices are missing" in note for note in result.notes)


def with_periods(change) -> list[Payload]:
    """The instance types and the recorded periods, each enabled period changed by `change`."""
    periods = json.loads((FIXTURES / "long-term-periods.json").read_text())
    for period in periods:
        if period["is_enabled"]:
            change(period)
    data = json.dumps(periods).encode()
    return [payload("instance-types.json"), payload("periods.json", PERIODS_URL, data=data)]


def test_a_period_of_a_unit_not_known_is_a_reject_keeping_every_commitment_open():
    """unit_name "week" in every period: the 65 commitment prices were dropped without a word
    (and withdrawn). Each enabled period is now a reject naming its unit, and names the
    commitment offers of any term and type: they stay open."""
    commitments = [r for r in parse(good()).records if r.pricing_model == "commitment"]
    result = parse(with_periods(lambda period: period.update(unit_name="week")))
    assert len(commitments) == 65
    assert not [r for r in result.records if r.pricing_model == "commitment"]
    assert len(result.rejects) == 5  # the enabled periods
    for refused in result.rejects:
        assert "unit_name 'week'" in refused.reason and refused.row["unit_name"] == "week"
        assert refused.payload_ref.endswith("periods.json")
        assert refused.offer["pricing_model"] == "commitment"
        assert "term" not in refused.offer and "instance_type" not in refused.offer


def test_a_discount_sent_as_text_is_a_reject_keeping_its_term_open():
    result = parse(
        with_periods(lambda p: p.update(discount_percentage=str(p["discount_percentage"])))
    )
    assert not [r for r in result.records if r.pricing_model == "commitment"]
    refused = {r.offer["term"]: r.reason for r in result.rejects}
    assert set(refused) == {"1mo", "3mo", "6mo", "1yr", "2yr"}
    assert "1_MONTH: discount_percentage '7' is not a number" in refused["1mo"]


@pytest.mark.parametrize(
    ("instance_type", "reason", "kept"),
    [
        ("1H100.80S.30V-bad0", "price '$2.49/hr' is not a plain number", {"plan": "default"}),
        ("1H100.80S.30V-bad1", "price '2,49' is not a plain number", {"plan": "default"}),
        ("1H100.80S.30V-bad2", "no price listed (Contact sales)", None),
        ("1H100.80S.30V-bad3", "no price listed (—)", None),
        ("0H100.bad", "GPU count 0 is below 1", {}),
        ("halfH100.bad", "GPU count '1/2' is not a whole number of GPUs", {}),
    ],
)
def test_bad_rows_become_rejects_with_reasons(instance_type, reason, kept):
    """A price that cannot be read keeps its offer open, and the fixed price's the commitments
    priced from it (any pricing model and term of its plan); a count, every offer of the type;
    a cell saying there is no price, none (it is withdrawn)."""
    result = parse([payload("bad-rows.json")])
    [refused] = [r for r in result.rejects if r.row["instance_type"] == instance_type]
    assert reason in refused.reason and refused.payload_ref.endswith("bad-rows.json")
    if kept is None:
        assert refused.offer == {}
    else:
        assert refused.offer["instance_type"] == instance_type and refused.sku == ""
        named = {k: refused.offer.get(k) for k in ("pricing_model", "term", "plan")}
        assert named == {"pricing_model": None, "term": None, "plan": None} | kept
    assert json.loads(refused.row_json())["instance_type"] == instance_type
    assert not [r for r in result.records if r.instance_type == instance_type]


def test_a_row_in_a_currency_not_stored_is_refused_by_validation_not_mixed_in():
    # the fixture's foreign row is in GBP: USD and EUR are stored, any other refused
    records = parse([payload("bad-rows.json")]).records
    validated = validate_records(records, {"verda": "verda"})
    foreign = [r for r in validated.rejects if "1H100.80S.30V-eur" in r.row_json()]
    assert foreign and all("is not one prices are stored in" in r.reason for r in foreign)
    assert {r.instance_type for r in validated.records} == {"8H100.80S.176V"}


def test_a_renamed_price_field_fails_the_source_naming_provider_and_url():
    with pytest.raises(ParseError) as error:
        parse([payload("renamed-price-field.json")])
    message = str(error.value)
    assert message.startswith("verda:") and INSTANCE_TYPES_URL in message
    assert "price_per_hour" in message


def test_an_error_object_instead_of_a_list_fails_the_source():
    body = json.dumps({"code": "unauthorized_request", "message": "Invalid token"}).encode()
    with pytest.raises(ParseError, match="list of instance types"):
        parse([payload("error.json", data=body)])


def test_fetch_archives_both_endpoints(tmp_path):
    bodies = {
        INSTANCE_TYPES_URL: (FIXTURES / "instance-types.json").read_bytes(),
        PERIODS_URL: (FIXTURES / "long-term-periods.json").read_bytes(),
    }

    def handler(request: httpx.Request) -> httpx.Response:
        return httpx.Response(200, content=bodies[str(request.url)],
                              headers={"Content-Type": "application/json"})  # fmt: skip

    payloads = fetch(context(tmp_path, SOURCE.name, handler))
    assert [p.url for p in payloads] == [INSTANCE_TYPES_URL, PERIODS_URL]
    archived = read_payloads(tmp_path / STAMP, "verda")
    assert [p.data for p in archived] == list(bodies.values())
    assert any(r.pricing_model == "commitment" for r in parse(archived).records)


def test_periods_refused_still_fetches_prices_and_says_what_is_missing(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        if str(request.url) == PERIODS_URL:
            return httpx.Response(401, json={"code": "unauthorized_request"})
        return httpx.Response(200, content=(FIXTURES / "instance-types.json").read_bytes())

    payloads = fetch(context(tmp_path, SOURCE.name, handler))
    assert [p.url for p in payloads] == [INSTANCE_TYPES_URL]
    result = parse(read_payloads(tmp_path / STAMP, "verda"))
    assert result.records and any("commitment prices are missing" in n for n in result.notes)


def test_a_timeout_fails_the_source_naming_provider_url_and_what_to_do(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ReadTimeout("timed out", request=request)

    with pytest.raises(SourceError) as error:
        fetch(context(tmp_path, SOURCE.name, handler))
    message = str(error.value)
    assert message.startswith("verda:") and INSTANCE_TYPES_URL in message
    assert "timed out" in message and "run again" in message


def test_gpuhunts_instance_types_items_parse_with_their_chips():
    # Four items of verda.instance_types.get() kept in dstackai/gpuhunt's tests (ORIGIN.md).
    result = parse([payload("gpuhunt-instance-types.json")])
    chips = {(r.instance_type, r.pricing_model): r.chip for r in result.records}
    assert chips[("1H100.80S.30V", "on_demand")] == "H100-SXM"
    assert chips[("2A6000.20V", "spot")] == "RTX-A6000"
    assert chips[("1V100.6V", "on_demand")] == "V100"
    assert find(result.records, "1H100.80S.30V").price_per_hour == 3.95
    assert not result.rejects and "unknown" not in chips.values()
