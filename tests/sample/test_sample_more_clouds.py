"""The sample builders of the eight plan-list and feed sources, and the archive they wrote."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipcost.archive import read_manifest, read_payloads
from chipcost.extract import registry, source_providers
from chipcost.sample import ARCHIVE as SAMPLE
from chipcost.sample.build import builder, run_time
from chipcost.transform.validate import validate_records

SOURCES = ("vultr", "digitalocean", "hotaisle", "cloudrift", "jarvislabs", "seeweb",
           "daytona", "lium")  # fmt: skip


@pytest.fixture(scope="module")
def days(tmp_path_factory) -> dict[int, Path]:
    out = tmp_path_factory.mktemp("sample")
    runs = {}
    for day in range(1, 9):
        for module in SOURCES:
            runs[day] = builder(module).write_run(out, day, run_time(day)).parent
    return runs


@pytest.mark.parametrize("source", SOURCES)
def test_every_day_loads_without_rejects_or_unknown_chips(days, source):
    for run in days.values():
        result = registry()[source].parse(read_payloads(run, source))
        validated = validate_records(result.records, source_providers())
        assert result.records and not result.rejects and not validated.rejects, run.name
        assert "unknown" not in {r.chip for r in result.records}, run.name
        assert read_manifest(run / source)["sample"] is True


@pytest.mark.parametrize("source", SOURCES)
def test_the_bundled_sample_archive_is_what_the_writer_writes(days, source):
    for run in days.values():
        written = [p.data for p in read_payloads(run, source)]
        assert [p.data for p in read_payloads(SAMPLE / run.name, source)] == written, (
            f"sample/archive/{run.name}/{source} is stale: run python -m chipcost.sample.build"
        )


def test_amd_instinct_is_sold_under_its_own_chips(days):
    chips = {
        r.chip
        for source in SOURCES
        for r in registry()[source].parse(read_payloads(days[8], source)).records
    }
    assert {"MI300X", "MI325X", "MI355X"} <= chips


def test_seeweb_prices_stay_euros_and_reads_convert_them_at_the_rate_of_their_day(days, tmp_path):
    """The dollar weakens on day 5 (sample/build/seeweb.py RATES): the euro price stays, no
    price change is recorded for it, and a read gives the dollars of its last day's rate."""
    import duckdb

    from tests import warehouses

    def l40s(day: int) -> tuple[float, str]:
        records = registry()["seeweb"].parse(read_payloads(days[day], "seeweb")).records
        found = next(r for r in records if r.instance_type == "ECS1GPU7")
        return found.price_per_hour, found.currency

    assert l40s(4) == l40s(5) == (0.85, "EUR")
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
    assert read == [(pytest.approx(0.85 * 1.0934), "USD")] and moved == [(0,)]
