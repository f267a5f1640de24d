"""The scrambler (sample/build/_scramble.py and its table, _table.py): every scrambled source's
eight runs load, are labelled and marked, move their fixture's prices by the seeded factor and
their dates by the day, show each scripted move on its day, and are what the bundled archive
holds."""

from __future__ import annotations

import gzip
import json
import re
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.core.payload import Payload
from chipcost.extract import registry, source_providers
from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.sample import ARCHIVE as SAMPLE
from chipcost.sample.build import Scrambled, run_time
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, SAMPLE_KEY
from chipcost.sample.build._scramble import (
    SPREAD,
    Day,
    Move,
    Sample,
    base_factor,
    fixture_files,
    moved_money,
    moved_offer,
    scramble_text,
    shifted_dates,
)
from chipcost.sample.build._table import SAMPLES
from chipcost.transform.validate import validate_batches
from tests.paths import FIXTURES

SOURCES = sorted(SAMPLES)
MARKED = [s for s in SOURCES if SAMPLES[s].mark is not None]
MOVES = [(s, m) for s in SOURCES for m in SAMPLES[s].moves]


@pytest.fixture(scope="module")
def days(tmp_path_factory) -> dict[int, Path]:
    out = tmp_path_factory.mktemp("sample")
    runs = {}
    for day in range(1, 9):
        for source in SOURCES:
            runs[day] = Scrambled(source, SAMPLES[source]).write_run(out, day, run_time(day)).parent
    return runs


def parsed(run: Path, source: str):
    return registry()[source].parse(read_payloads(run, source))


def key(r) -> tuple:
    return (r.region, r.zone, r.instance_type, r.pricing_model, r.term, r.payment, r.plan)


def prices(run: Path, source: str) -> dict[tuple, float]:
    return {key(r): r.price_per_hour for r in parsed(run, source).records}


def fixture_prices(source: str) -> dict[tuple, float]:
    """The source's records parsed from its fixture as it is (the contract test's payloads)."""
    at = datetime(2026, 11, 14, 6, tzinfo=UTC)
    payloads = [
        Payload((FIXTURES / source / file).read_bytes(), url, at, file, f"f/{source}/{file}", asked)
        for file, url, asked in fixture_files(source, SAMPLES[source])
    ]
    return {key(r): r.price_per_hour for r in registry()[source].parse(payloads).records}


def zero_day(source: str, day: int) -> bool:
    return any(m.kind == "zero" and m.day == day for m in SAMPLES[source].moves)


@pytest.mark.parametrize("source", SOURCES)
def test_every_day_loads_and_validates_but_the_scripted_zero_row(days, source):
    results = {day: parsed(run, source) for day, run in days.items()}
    baseline = len(results[1].rejects)
    # each day its own batch, as a replay validates them, in one pandera call
    batches = validate_batches([r.records for r in results.values()], source_providers())
    for (day, run), validated in zip(days.items(), batches, strict=True):
        result = results[day]
        assert result.records or result.facts, (run.name, source)
        assert not validated.rejects, (run.name, source)
        assert read_manifest(run / source)["sample"] is True
        if zero_day(source, day):
            zero = [r for r in result.rejects if "positive" in r.reason or "zero" in r.reason]
            assert zero, (run.name, source)
        else:
            assert len(result.rejects) == baseline, (run.name, [r.reason for r in result.rejects])


@pytest.mark.parametrize("source", MARKED)
def test_day_one_is_the_fixture_times_the_seeded_factor_and_marked(days, source):
    """Every price of the fixture moved (a price key the table missed would stay put) and
    marked, but the offers the table says sample/REFERENCES.md traces, kept as they are; new offers
    apart, day 1 lists what the fixture does."""
    spec = SAMPLES[source]
    factor = base_factor(source, spec)
    assert factor != 1.0 and abs(factor - 1) <= SPREAD + 1e-9
    recorded = fixture_prices(source)
    sampled = {key(r): r for r in parsed(days[1], source).records}
    assert set(sampled) <= set(recorded)
    if not [m for m in spec.moves if m.kind == "new"]:
        # but an offer the table leaves out (massedcompute's mock H200 NVL at $0.18 a chip)
        left_out = re.compile(spec.left_out) if spec.left_out else None
        kept = {k for k in recorded if not (left_out and left_out.search(" ".join(map(str, k))))}
        assert set(sampled) == kept
    mark = Day(source, spec, 1).mark_text
    for found, record in sampled.items():
        # the scrambler's mark: moved; else kept, traced (a reconstructed fixture may mark the
        # other prices of a traced offer itself: aws-pricing-api's reserved terms)
        if record.extra.get("estimate") == mark:
            want = recorded[found] * factor
            # a page's price per chip is rounded to the cent, then multiplied by the chips
            cent = 0.006 * record.chip_count
            tolerance = {"rel": 0.005 + spec.daily, "abs": cent}
            if spec.traced and record.price_per_hour != pytest.approx(want, **tolerance):
                # a machine priced from several offers (Google's GPU, vCPU and memory SKUs)
                # may join traced ones, kept, and moved ones
                low, high = sorted((recorded[found], want))
                assert low - cent <= record.price_per_hour <= high + cent, found
                continue
            assert record.price_per_hour == pytest.approx(want, **tolerance)
        else:
            assert spec.traced and record.price_per_hour == recorded[found], found


@pytest.mark.parametrize("source", sorted(set(SOURCES) - set(MARKED)))
def test_recorded_prices_are_kept_as_recorded_and_unmarked(days, source):
    """A recorded page's prices are public ones (sample/REFERENCES.md traces them): kept."""
    assert base_factor(source, SAMPLES[source]) == 1.0
    if not SAMPLES[source].daily:
        assert prices(days[8], source) == fixture_prices(source)
    assert not [r for r in parsed(days[8], source).records if "estimate" in r.extra]


@pytest.mark.parametrize(("source", "move"), MOVES, ids=[f"{s}-{m.kind}-{m.day}" for s, m in MOVES])
def test_each_scripted_move_shows_on_its_day(days, source: str, move: Move):
    before, after = prices(days[move.day - 1], source), prices(days[move.day], source)
    gone, new = set(before) - set(after), set(after) - set(before)
    if move.kind in ("gone", "zero"):
        assert gone and not new
    elif move.kind == "new":
        assert new and not gone
    else:
        ratios = [after[k] / before[k] for k in before.keys() & after.keys() if before[k]]
        assert [r for r in ratios if r == pytest.approx(move.factor, rel=0.02)], ratios


def test_the_drift_reports_have_a_drop_a_withdrawal_an_arrival_and_a_zero_row():
    kinds = {m.kind for _s, m in MOVES}
    assert kinds == {"price", "gone", "new", "zero"}
    assert [m for _s, m in MOVES if m.kind == "price" and m.factor < 1]


def test_dates_move_with_the_run():
    text = b'{"generatedAt": "2026-11-13T22:00:00Z", "time": "2026-11-30", "v": "20251201"}'
    assert shifted_dates(text, 3) == (
        b'{"generatedAt": "2026-11-16T22:00:00Z", "time": "2026-12-03", "v": "20251201"}'
    )


def test_a_dated_file_lists_the_days_before_its_run_each_at_one_rate(days):
    """The ECB's days stay put: a run lists those published before it, and a day's rate is
    the same in every run that lists it (the warehouse keeps a changed one as a revision)."""
    seen: dict[tuple, float] = {}
    for day, run in days.items():
        rows = parsed(run, "ecb-rates").facts["fx_rates"]
        assert max(r["day"] for r in rows) < run_time(day).date()
        for r in rows:
            assert seen.setdefault((r["day"], r["currency"]), r["per_eur"]) == r["per_eur"]
    usd = sorted((d, rate) for (d, currency), rate in seen.items() if currency == "USD")
    assert len(usd) == 8 and len({rate for _d, rate in usd}) > 1


def test_googles_units_and_nanos_move_as_one_amount():
    money = {"currencyCode": "USD", "units": "2", "nanos": 933908000}
    assert moved_money(money, 1.05) == {"currencyCode": "USD", "units": "3", "nanos": 80603400}


def test_a_move_within_a_key_moves_only_the_prices_under_it():
    """An AWS item's on-demand cut leaves its reserved terms as they were."""
    spec = Sample(prices=("USD",), moves=(Move(1, "p4d", factor=0.5, within="OnDemand"),))
    today = Day("example", spec, 1)
    item = {"type": "p4d", "OnDemand": {"a": {"USD": "10.00"}}, "Reserved": {"b": {"USD": "8.00"}}}
    moved = moved_offer(item, spec.prices, today.factors(json.dumps(item)))
    assert moved["OnDemand"]["a"]["USD"] == f"{10 * today.base * 0.5:.2f}"
    assert moved["Reserved"]["b"]["USD"] == f"{8 * today.base:.2f}"


def test_a_mark_the_fixture_row_carries_is_rewritten_where_a_new_key_has_no_room():
    """A CSV row's own estimate column says what the sample's moved price rests on."""
    spec = Sample(rows=r"(?m)^A,[^\n]*", cells=r"^A,(\d+\.\d+)", marks=r",(synthetic:[^,\n]*)$")
    today = Day("example", spec, 1)
    data = b"name,price,chipcostEstimate\nA,10.00,synthetic: the fixture's words\n"
    lines = scramble_text(data, today, "csv").decode().splitlines()
    assert lines == ["name,price,chipcostEstimate", f"A,{10 * today.base:.2f},{today.mark_text}"]


@pytest.mark.parametrize("source", SOURCES)
def test_payloads_say_they_are_sample_data(days, source):
    for payload in read_payloads(days[1], source):
        text = payload.data.decode("utf-8")
        if payload.name.endswith(".html.gz"):
            assert HTML_SAMPLE_COMMENT in text
        elif payload.name.endswith(".json.gz"):
            body = json.loads(text)
            assert not isinstance(body, dict) or "sample data" in body[SAMPLE_KEY]


def test_the_writer_is_deterministic(tmp_path, days):
    for source in SOURCES:
        again = Scrambled(source, SAMPLES[source]).write_run(tmp_path, 3, run_time(3))
        first = [p.data for p in read_payloads(days[3], source)]
        assert first == [p.data for p in read_payloads(again.parent, source)], source


def test_the_bundled_sample_archive_is_what_the_writer_writes(days):
    """A source's bundled runs missing (a new source before its first build) or differing say
    the one command that writes them, not the archive reader's error."""
    for run in days.values():
        for source in SOURCES:
            stale = (
                f"sample/archive/{run.name}/{source} is stale: run python -m chipcost.sample.build"
            )
            assert (SAMPLE / run.name / source).is_dir(), stale.replace("is stale", "is missing")
            written = [gzip.compress(p.data, mtime=0) for p in read_payloads(run, source)]
            bundled = [gzip.compress(p.data, mtime=0) for p in read_payloads(SAMPLE / run.name,
                                                                              source)]  # fmt: skip
            assert bundled == written, stale


def test_amd_instinct_is_sold_under_its_own_chips(days):
    chips = {r.chip for source in SOURCES for r in parsed(days[8], source).records}
    assert {"MI300X", "MI350X", "MI355X"} <= chips


def test_seeweb_prices_stay_euros_and_reads_convert_them_at_the_rate_of_their_day(days, tmp_path):
    """The ECB's rates move from day to day (tests/fixtures/ecb-rates/): the L40S plan's euro
    price stays, no price change is recorded for it, and a read gives the dollars of the last
    rate the sample's ECB file lists."""
    import duckdb

    from tests import warehouses

    def l40s(day: int) -> tuple[float, str]:
        found = next(
            r for r in parsed(days[day], "seeweb").records if r.instance_type == "ECS1GPU7"
        )
        return found.price_per_hour, found.currency

    euros, currency = l40s(5)
    assert l40s(4) == (euros, currency) and currency == "EUR"
    rates = parsed(days[8], "ecb-rates").facts["fx_rates"]
    last = max((r for r in rates if r["currency"] == "USD"), key=lambda r: r["day"])["per_eur"]
    first = min((r for r in rates if r["currency"] == "USD"), key=lambda r: r["day"])["per_eur"]
    assert last != first
    con = duckdb.connect(str(warehouses.sample(tmp_path / "w.duckdb")), read_only=True)
    try:
        read = con.execute(
            "SELECT DISTINCT price_per_hour, currency FROM current_prices "
            "WHERE source = 'seeweb' AND instance_type = 'ECS1GPU7'"
        ).fetchall()
        moved = con.execute(
            "SELECT count(*) FROM price_changes WHERE source = 'seeweb' "
            "AND instance_type = 'ECS1GPU7' AND change = 'changed'"
        ).fetchall()
    finally:
        con.close()
    assert read == [(pytest.approx(euros * last), "USD")] and moved == [(0,)]


@pytest.mark.parametrize("source", ["seeweb", "ovhcloud", "scaleway"])
def test_a_sample_run_holds_what_its_source_fetches_now_not_a_retired_format(days, source):
    """The euro sources fetch their listing alone now: the ECB daily file an earlier version
    archived beside it is a retired format, read in old archives only (tests/cli/
    test_archived_rates.py), and no sample run holds it; nor does any other source's."""
    formats = registry()[source].formats
    assert any(f.retired and f.matches(ECB_DAILY_URL) for f in formats)
    for run in days.values():
        for each in SOURCES:
            for payload in read_payloads(run, each):
                known = next((f for f in registry()[each].formats if f.matches(payload.url)), None)
                assert not (known and known.retired), (each, payload.url)
    assert all(p.url != ECB_DAILY_URL for p in read_payloads(SAMPLE / days[1].name, source))


def test_the_replayed_sample_holds_the_ecb_rates_sources_rates_alone(tmp_path):
    """Replaying the sample loaded the 2017 days of the ECB daily file its euro sources' runs
    held (256 rates under ovhcloud, seeweb and scaleway beside ecb-rates' 2026 ones)."""
    import duckdb

    from tests import warehouses

    with duckdb.connect(str(warehouses.sample(tmp_path / "w.duckdb")), read_only=True) as con:
        found = con.execute(
            "SELECT source, min(day)::VARCHAR, max(day)::VARCHAR FROM fx_rates GROUP BY 1"
        ).fetchall()
    assert found == [("ecb-rates", "2026-11-11", "2026-11-20")]


def _stated_and_listed(node, found: list[tuple[float, float]]) -> None:
    """(the $ its description states, its pricePerUnit) of every AWS price dimension."""
    import re

    if isinstance(node, dict):
        said = re.search(r"\$([\d.]+) per ", str(node.get("description", "")))
        if said and "USD" in (node.get("pricePerUnit") or {}):
            found.append((float(said.group(1)), float(node["pricePerUnit"]["USD"])))
        for value in node.values():
            _stated_and_listed(value, found)
    elif isinstance(node, list):
        for value in node:
            _stated_and_listed(value, found)
    elif isinstance(node, str) and node.startswith("{"):
        _stated_and_listed(json.loads(node), found)


def test_an_aws_price_states_in_its_description_the_price_it_lists():
    """On 2487f4c the sample's ap-southeast-2 p5 said "$66.048 per On Demand ..." beside a
    pricePerUnit of 66.4442880000 (and eu-central-1's CSV "$63.296" beside 63.169408): the
    scrambler moved the price, not the text that states it."""
    import csv
    import io
    import re

    found: list[tuple[float, float]] = []
    for path in SAMPLE.glob("*/aws-pricing-api/*.json.gz"):
        _stated_and_listed(json.loads(gzip.decompress(path.read_bytes())), found)
    for path in SAMPLE.glob("*/aws-bulk/*.csv.gz"):
        lines = gzip.decompress(path.read_bytes()).decode().splitlines()
        header = next((i for i, line in enumerate(lines) if line.startswith('"SKU"')), None)
        if header is None:
            continue
        for row in csv.DictReader(io.StringIO("\n".join(lines[header:]))):
            said = re.match(r"\$([\d.]+) per ", row.get("PriceDescription") or "")
            if said and row.get("PricePerUnit"):
                found.append((float(said.group(1)), float(row["PricePerUnit"])))
    assert len(found) > 500
    assert [(s, p) for s, p in found if abs(s - p) > 1e-6] == []
