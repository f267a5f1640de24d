"""`prices` by instance type (--instance, or an instance name given as a chip), one row per
provider (--by) and prices per month or year (--per), read from the sample's newest run."""

from __future__ import annotations

import csv
import io
import json

import pytest

import chipcost
from tests import warehouses
from tests.cli.test_read_commands import chipcost as run_chipcost


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("glance") / "w.duckdb", last=1))


def _json(run, *args: str) -> list[dict]:
    result = run("prices", *args, "--format", "json")
    assert result.returncode == 0, result.stderr
    return json.loads(result.stdout)


def test_an_instance_type_is_looked_up(run, db):
    rows = _json(run, "--instance", "p5.48xlarge", "--db", db)
    assert rows and {r["instance_type"] for r in rows} == {"p5.48xlarge"}
    assert {r["chip"] for r in rows} == {"H100-SXM"}
    assert {"on_demand", "spot", "reserved"} <= {r["pricing_model"] for r in rows}
    both = _json(run, "--instance", "P5.48XLARGE,a3-highgpu-8g", "--db", db)
    assert {r["instance_type"] for r in both} == {"p5.48xlarge", "a3-highgpu-8g"}


@pytest.mark.parametrize(
    ("name", "spelled", "said"),
    [
        ("p5.48xlarge", "p5.48xlarge", "its chip is H100-SXM"),  # the refusal's hint kept
        ("a3-highgpu-8g", "a3-highgpu-8g", "'a3-highgpu-8g' is an instance type, not a chip"),
        ("ND96isr_H100_v5", "Standard_ND96isr_H100_v5", "is an instance type, not a chip"),
    ],
)
def test_an_instance_name_given_as_a_chip_is_answered(run, db, name, spelled, said):
    result = run("prices", "--chip", name, "--format", "csv", "--db", db)
    assert result.returncode == 0, result.stderr
    rows = list(csv.DictReader(io.StringIO(result.stdout)))
    assert rows and {r["instance_type"] for r in rows} == {spelled}
    told = " ".join(result.stderr.split())  # as read, whatever the width wraps it to
    assert said in told and f"answered as --instance {name}" in told
    table = run("prices", "--chip", name, "--limit", "3", "--db", db)
    assert table.returncode == 0 and spelled in table.stdout, table.stderr


def test_an_unknown_instance_type_names_the_close_ones(run, db):
    result = run("prices", "--instance", "p5.48xlargx", "--db", db)
    assert result.returncode == 2
    assert "--instance: unknown instance type 'p5.48xlargx' (did you mean p5.48xlarge" in (
        result.stderr
    )
    chip = run("prices", "--chip", "p5.48xlargx", "--db", db)  # neither chip nor instance
    assert chip.returncode == 2 and "is an AWS instance type, not a chip" in chip.stderr


def test_the_python_api_takes_the_instance(db):
    frame = chipcost.prices(instance="a3-highgpu-8g", db=db)
    assert frame.height > 0 and set(frame["instance_type"]) == {"a3-highgpu-8g"}
    named = chipcost.prices("ND96isr_H100_v5", db=db)  # as a chip: read as the instance
    assert set(named["instance_type"]) == {"Standard_ND96isr_H100_v5"}


def test_by_provider_is_each_providers_cheapest_per_pricing_kind(run, db):
    offers = _json(run, "--chip", "H100", "--db", db)
    glance = _json(run, "--chip", "H100", "--by", "provider", "--db", db)
    assert len(glance) == len({(o["chip"], o["provider"]) for o in offers})
    for row in glance:
        mine = [o for o in offers if (o["chip"], o["provider"]) == (row["chip"], row["provider"])]
        for kind, models in [
            ("on_demand", {"on_demand"}),
            ("spot", {"spot"}),
            ("commitment", {"reserved", "savings_plan", "commitment"}),
        ]:
            prices = [o["price_per_chip_hour"] for o in mine if o["pricing_model"] in models]
            assert row[f"{kind}_per_chip_hour"] == (min(prices) if prices else None), row
        assert row["offers"] == sum(o["plan"] != "region_cheapest" for o in mine)
    aws = next(r for r in glance if (r["chip"], r["provider"]) == ("H100-SXM", "aws"))
    assert None not in (aws["on_demand_per_chip_hour"], aws["spot_per_chip_hour"])
    assert aws["commitment_terms"].startswith(("reserved 3yr", "savings_plan 3yr"))


def test_by_provider_as_a_table_and_by_region(run, db):
    table = run("prices", "--chip", "H100", "--by", "provider", "--db", db)
    assert table.returncode == 0, table.stderr
    assert "per chip-hour per provider" in table.stdout
    assert "on demand" in table.stdout and "commitment" in table.stdout
    narrow = run_chipcost("prices", "--chip", "H100", "--by", "region", "--db", db, columns=80)
    assert narrow.returncode == 0, narrow.stderr
    lines = narrow.stdout.splitlines()
    at = next(i for i, line in enumerate(lines) if line.startswith("chip "))
    # a region is whole (an id): the commitment's price folds under the row where it must
    assert lines[at].split()[:6] == ["chip", "provider", "region", "on", "demand", "spot"]
    assert "commitment" in " ".join(lines[at : at + 2]).split()
    table_lines = narrow.stdout.split("prices as of")[0].splitlines()  # the notes wrap apart
    assert max(len(line) for line in table_lines) <= 80
    wide = run("prices", "--chip", "H100", "--by", "region", "--format", "json", "--db", db)
    shown = [r["commitment_per_chip_hour"] for r in json.loads(wide.stdout)]
    assert {f"{p:.4f}" for p in shown if p} <= set(narrow.stdout.split())  # no price is cut
    regions = _json(run, "--instance", "p5.48xlarge", "--by", "region", "--db", db)
    assert {r["provider"] for r in regions} == {"aws"} and len(regions) > 1
    assert len({r["region"] for r in regions}) == len(regions)


@pytest.mark.parametrize(("per", "hours"), [("month", 730), ("year", 8760)])
def test_per_month_and_year_count_730_and_8760_hours(run, db, per, hours):
    hourly = _json(run, "--instance", "p5.48xlarge", "--db", db)
    scaled = _json(run, "--instance", "p5.48xlarge", "--per", per, "--db", db)
    # to the cent, as the tables show a month or a year: no 4723.099999999999 of the product
    assert [r[f"price_per_chip_{per}"] for r in scaled] == [
        round(r["price_per_chip_hour"] * hours, 2) for r in hourly
    ]
    assert "price_per_chip_hour" not in scaled[0]
    assert [r["upfront"] for r in scaled] == [r["upfront"] for r in hourly]  # paid once
    glance = _json(run, "--chip", "H100-SXM", "--by", "provider", "--per", per, "--db", db)
    by_hour = _json(run, "--chip", "H100-SXM", "--by", "provider", "--db", db)
    assert [g[f"on_demand_per_chip_{per}"] for g in glance] == [
        h["on_demand_per_chip_hour"] and round(h["on_demand_per_chip_hour"] * hours, 2)
        for h in by_hour
    ]
    table = run("prices", "--instance", "p5.48xlarge", "--per", per, "--db", db)
    assert f"per {per} of {hours:,} hours" in table.stdout and "$/chip-" in table.stdout


@pytest.mark.parametrize(
    ("args", "message"),
    [
        (["--by", "vendor"], "--by vendor: give one of chip, provider, region, offer"),
        (["--per", "week"], "--per week: give one of hour, month, year"),
        (["--per", "month", "--format", "focus"], "--per with --format focus: FOCUS's columns"),
        (["--by", "provider", "--format", "focus"], "--by with --format focus"),
    ],
)
def test_an_unknown_grouping_or_unit_is_refused(run, db, args, message):
    result = run("prices", *args, "--db", db)
    assert result.returncode == 2 and message in result.stderr, result.stderr


def test_history_and_cost_take_the_instance(run, db):
    azure = ("--instance", "ND96isr_H100_v5")
    history = run("history", "--chip", "H100-SXM", *azure, "--format", "json", "--db", db)
    assert history.returncode == 0, history.stderr
    days = json.loads(history.stdout)
    assert days and {d["instance_type"] for d in days} == {"Standard_ND96isr_H100_v5"}
    asked = ("--model", "llama-3-70b", "--workload", "inference", "--all-offers")
    two = ("--instance", "p5.48xlarge,a3-highgpu-8g")
    cost = run("cost", *asked, *two, "--format", "json", "--db", db)
    assert cost.returncode == 0, cost.stderr
    ranked = json.loads(cost.stdout)
    assert {r["instance_type"] for r in ranked} == {"p5.48xlarge", "a3-highgpu-8g"}
    wrong = run("history", "--chip", "H100-SXM", "--instance", "p5.48xlargx", "--db", db)
    assert wrong.returncode == 2 and "did you mean p5.48xlarge" in wrong.stderr
