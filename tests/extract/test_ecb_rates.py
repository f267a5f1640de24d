"""ecb-rates: what the contract test does not say, on the recorded daily file and the 90-day
structure: every day and currency a fact, the euro at 1, bad rates refused one by one."""

from __future__ import annotations

import pytest

from chipcost.core.errors import ParseError
from chipcost.extract.ecb_rates import RATES_90D_URL, SOURCE
from tests.sources import payload

DAILY = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"


def rates(*names: str):
    found = SOURCE.parse([payload("ecb-rates", n, RATES_90D_URL) for n in names])
    return {(str(r["day"]), r["currency"]): r["per_eur"] for r in found.facts["fx_rates"]}, found


def test_the_recorded_daily_file_gives_every_rate_of_its_day():
    found, result = rates("eurofxref-daily-2013-08-20.xml")
    assert found[("2013-08-20", "USD")] == 1.3392 and found[("2013-08-20", "JPY")] == 130.33
    assert found[("2013-08-20", "EUR")] == 1.0
    assert len(found) == 32 + 1 and not result.rejects and not result.records


def test_the_90_day_file_gives_each_day():
    found, _ = rates("eurofxref-hist-90d.xml")
    assert {day for day, _ in found} == {f"2026-11-{d}" for d in (11, 12, 13, 16, 17, 18, 19, 20)}
    assert found[("2026-11-12", "USD")] == 1.05


def test_bad_rates_are_refused_one_by_one_and_the_good_kept():
    found, result = rates("bad-rows.xml")
    assert found == {("2026-11-16", "EUR"): 1.0, ("2026-11-16", "JPY"): 162.2}
    reasons = sorted(r.reason for r in result.rejects)
    assert len(reasons) == 4, reasons
    assert any("rate='n/a'" in r for r in reasons) and any("2026-13-40" in r for r in reasons)


@pytest.mark.parametrize(
    "body", [b"<html>Service temporarily unavailable</html>", b"<Cube><Cube></Cube></Cube>"]
)
def test_a_file_without_any_day_is_refused(body):
    with pytest.raises(ParseError, match="ecb"):
        SOURCE.parse([payload("ecb-rates", "x.xml", DAILY, data=body)])


DAY_TWICE = """<?xml version="1.0" encoding="UTF-8"?>
<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">
	<Cube>
		<Cube time="2026-11-13">
			<Cube currency="USD" rate="1.0600"/>
			<Cube currency="GBP" rate="0.85000"/>
		</Cube>
		<Cube time="{day}">
			<Cube currency="{currency}" rate="{rate}"/>
		</Cube>
		<Cube time="2026-11-12">
			<Cube currency="USD" rate="1.0500"/>
			<Cube currency="GBP" rate="0.84900"/>
		</Cube>
	</Cube>
</gesmes:Envelope>
"""


@pytest.mark.parametrize(
    ("day", "currency", "rate", "listed"),
    [
        ("2026-11-13", "USD", "1.4840", "1.06"),  # +40%: inside the jump check's band
        ("2026-11-13", "USD", "1.0601", "1.06"),  # a hair apart is still two rates
        ("2026-11-12", "GBP", "0.60000", "0.849"),
        ("2026-11-12", "USD", "0.7", "1.05"),
    ],
)
def test_a_day_listed_twice_at_two_rates_refuses_the_file(day, currency, rate, listed):
    body = DAY_TWICE.format(day=day, currency=currency, rate=rate).encode()
    with pytest.raises(ParseError) as refused:
        SOURCE.parse([payload("ecb-rates", "twice.xml", RATES_90D_URL, data=body)])
    message = str(refused.value)
    assert "\n" not in message and f"{currency} on {day} twice" in message
    assert f"{float(listed):g}" in message and f"{float(rate):g}" in message


@pytest.mark.parametrize(
    ("day", "currency", "rate"), [("2026-11-13", "USD", "1.0600"), ("2026-11-12", "GBP", "0.849")]
)
def test_a_day_listed_twice_alike_is_one_day(day, currency, rate):
    body = DAY_TWICE.format(day=day, currency=currency, rate=rate).encode()
    found = SOURCE.parse([payload("ecb-rates", "twice.xml", RATES_90D_URL, data=body)])
    keys = [(str(r["day"]), r["currency"]) for r in found.facts["fx_rates"]]
    assert len(keys) == len(set(keys)) == 6 and (day, currency) in keys


def test_two_files_at_two_rates_for_one_day_are_refused():
    one = DAY_TWICE.format(day="2026-11-12", currency="GBP", rate="0.849").encode()
    other = one.replace(b'"1.0500"', b'"1.2500"')
    with pytest.raises(ParseError, match="USD on 2026-11-12 twice, at 1.05 and 1.25"):
        SOURCE.parse(
            [payload("ecb-rates", n, RATES_90D_URL, data=d) for n, d in (("a", one), ("b", other))]
        )


def test_a_refused_rates_file_fails_its_source_alone_in_a_replay(tmp_path):
    """The conflict is one line in the run's summary; the other sources of the run load."""
    from datetime import UTC, datetime

    from chipcost.archive import ArchiveWriter
    from chipcost.core.settings import Settings
    from chipcost.extract import registry
    from chipcost.extract.ovhcloud import CATALOG_URL
    from chipcost.pipeline.collect import replay_sources
    from tests.paths import FIXTURES

    stamp, when = "2026-11-14T060000Z", datetime(2026, 11, 14, 6, 0, 2, tzinfo=UTC)
    body = DAY_TWICE.format(day="2026-11-13", currency="USD", rate="1.4840").encode()
    ArchiveWriter(tmp_path, stamp, "ecb-rates").write(body, RATES_90D_URL, fetched_at=when)
    catalog = (FIXTURES / "ovhcloud" / "catalog.json").read_bytes()
    ArchiveWriter(tmp_path, stamp, "ovhcloud").write(catalog, CATALOG_URL, fetched_at=when)
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    sources = [registry()["ecb-rates"], registry()["ovhcloud"]]
    ecb, ovh = replay_sources(
        sources, settings=settings, replay_dir=tmp_path / stamp, already_loaded={}
    )
    assert ecb.status == "failed" and "\n" not in ecb.message
    assert "USD on 2026-11-13 twice, at 1.06 and 1.484 per euro" in ecb.message
    assert ovh.status == "ok" and ovh.records
