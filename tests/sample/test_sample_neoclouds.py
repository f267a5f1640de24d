"""The sample builders of coreweave, spheron, nebius and verda, and the archive they wrote."""

from __future__ import annotations

import gzip
import json
from pathlib import Path

import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.extract import registry, source_providers
from chipcost.sample import ARCHIVE as SAMPLE
from chipcost.sample.build import coreweave, nebius, run_time, spheron, verda
from chipcost.transform.validate import validate_records

SOURCES = ("coreweave", "spheron", "nebius", "verda")
BUILDERS = (coreweave, spheron, nebius, verda)


def write(out: Path, day: int) -> Path:
    """The four sources' run of one sample day; returns the run directory."""
    for builder in BUILDERS:
        run = builder.write_run(out, day, run_time(day)).parent
    return run


def parsed(run: Path, source: str):
    return registry()[source].parse(read_payloads(run, source))


@pytest.fixture(scope="module")
def days(tmp_path_factory) -> dict[int, Path]:
    out = tmp_path_factory.mktemp("sample")
    return {day: write(out, day) for day in range(1, 9)}


def test_every_day_parses_and_validates_for_every_source(days):
    for run in days.values():
        for source in SOURCES:
            result = parsed(run, source)
            validated = validate_records(result.records, source_providers())
            assert result.records and not validated.rejects, (run.name, source)
            assert len(result.rejects) == (1 if source == "nebius" else 0)  # L40S preemptible "—"


def test_payloads_are_labelled_sample(days):
    run = days[1]
    for source in SOURCES:
        assert read_manifest(run / source)["sample"] is True
    html = gzip.decompress((run / "coreweave" / "0001.html.gz").read_bytes()).decode()
    assert "chipcost sample data" in html
    feed = json.loads(gzip.decompress((run / "spheron" / "0001.json.gz").read_bytes()))
    assert "synthetic" in feed["chipcostSample"]


def test_the_last_day_shows_the_published_spheron_prices(days):
    records = parsed(days[8], "spheron").records
    one_h200 = {
        r.pricing_model: r.price_per_hour
        for r in records
        if (r.instance_type, r.region) == ("1x H200 SXM5", "us-central")
    }
    assert one_h200 == {"on_demand": 4.54, "spot": 3.31}
    b200 = {(r.pricing_model, r.price_per_hour) for r in records if r.chip == "B200"}
    assert b200 == {("spot", 5.34), ("spot", 42.72)}


def test_one_offer_moves_more_than_the_jump_factor_on_day_6(days):
    def l40s(day: int) -> float:
        [record] = [r for r in parsed(days[day], "spheron").records if r.chip == "L40S"]
        return record.price_per_hour

    assert (l40s(5), l40s(6), l40s(7), l40s(8)) == (0.89, 7.12, 7.12, 0.89)


def test_the_writer_is_deterministic(tmp_path, days):
    again = write(tmp_path, 3)
    for source in SOURCES:
        first = [p.data for p in read_payloads(days[3], source)]
        assert first == [p.data for p in read_payloads(again, source)]


def test_the_bundled_sample_archive_is_what_the_writer_writes(days):
    for run in days.values():
        bundled = SAMPLE / run.name
        for source in SOURCES:
            written = [p.data for p in read_payloads(run, source)]
            assert [p.data for p in read_payloads(bundled, source)] == written, (
                f"sample/archive/{run.name}/{source} is stale: run python -m chipcost.sample.build"
            )
