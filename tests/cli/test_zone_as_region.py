"""A zone shown under "where" (us-east-2b) is taken by --region as that zone, by every read: its
offers alone, where the region keeps every offer of the region; an unknown one is still
refused naming the close regions. The sample's newest run."""

from __future__ import annotations

import json

import pytest

from tests import warehouses


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("zones") / "w.duckdb", last=1))


def _json(run, *args: str) -> list[dict]:
    done = run(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("spelled", ["us-east-2b", "US-EAST-2B", " us-east-2b "])
def test_prices_of_a_zone_are_its_offers_alone(run, db, spelled):
    region = _json(run, "prices", "--region", "us-east-2", "--db", db)
    zoned = _json(run, "prices", "--region", spelled, "--db", db)
    assert zoned and {r["zone"] for r in zoned} == {"us-east-2b"}
    assert zoned == [r for r in region if r["zone"] == "us-east-2b"]
    assert len(region) > len(zoned)  # the region's other zones and its regional prices


def test_a_zone_and_a_region_together_are_either(run, db):
    both = _json(run, "prices", "--region", "us-east-2b,us-west-2", "--db", db)
    assert {(r["region"], r["zone"]) for r in both if r["region"] == "us-east-2"} == {
        ("us-east-2", "us-east-2b")
    }
    assert any(r["region"] == "us-west-2" for r in both)


def test_the_zone_a_table_shows_is_taken_back(run, db):
    table = run("prices", "--chip", "H100-SXM", "--provider", "aws", "--spot", "--db", db,
                env={"COLUMNS": "250"})  # fmt: skip
    assert table.returncode == 0, table.stderr
    zone = next(w for line in table.stdout.splitlines() for w in line.split()
                if w.startswith("us-east-2") and w != "us-east-2")  # fmt: skip
    again = _json(run, "prices", "--chip", "H100-SXM", "--region", zone, "--db", db)
    assert again and {r["zone"] for r in again} == {zone}


@pytest.mark.parametrize(
    "args",
    [
        ("history", "--chip", "H100-SXM"),
        ("cost", "--model", "llama-3-70b", "--workload", "inference"),
        ("compare", "H200", "H100-SXM", "--model", "llama-3-70b", "--workload", "inference"),
    ],
    ids=["history", "cost", "compare"],
)
def test_every_read_takes_a_zone(run, db, args):
    zoned = run(*args, "--region", "us-east-2b", "--db", db)
    assert zoned.returncode == 0, zoned.stderr
    region = run(*args, "--region", "us-east-2", "--db", db)
    assert region.returncode == 0 and zoned.stdout != region.stdout


def test_history_of_a_zone_is_its_offers_alone(run, db):
    rows = _json(run, "history", "--chip", "H100-SXM", "--region", "us-east-2b", "--db", db)
    assert rows and {r["zone"] for r in rows} == {"us-east-2b"}


def test_a_where_cell_naming_a_zone_is_answered_with_the_zone(run, db):
    done = run("prices", "--region", "aws us-east-2b", "--db", db)
    assert done.returncode == 2
    assert "give --provider aws --region us-east-2b" in " ".join(done.stderr.split())


@pytest.mark.parametrize("unknown", ["us-east-2z", "us-east-9"])
def test_a_zone_or_region_no_price_is_in_is_still_refused(run, db, unknown):
    done = run("prices", "--region", unknown, "--db", db)
    assert done.returncode == 2
    assert f"no current price is in region '{unknown}'" in " ".join(done.stderr.split())


@pytest.mark.parametrize(
    ("read", "where", "give"),
    [
        (["prices"], "aws us-east-1", "give --provider aws --region us-east-1"),
        (["history", "--chip", "H100-SXM"], "aws · us-east-1",
         "give --provider aws --region us-east-1"),
        (["cost", "--model", "llama-3-70b", "--workload", "inference"], "aws us-east-2b",
         "give --provider aws --region us-east-2b"),
        (["compare", "Trainium2", "H100-SXM", "--model", "llama-3-70b", "--workload",
          "inference"], "aws us-east-1", "give --provider aws --region us-east-1"),
    ],
)  # fmt: skip
def test_a_tables_where_given_as_region_is_refused_naming_both_filters(run, db, read, where, give):
    """docs/cli.md: refused (exit 2) with the two filters it stands for, not answered with
    them, by every read that takes --region."""
    done = run(*read, "--region", where, "--db", db)
    assert done.returncode == 2 and give in " ".join(done.stderr.split()), done.stderr


def test_cost_and_compare_name_a_zones_offer_by_its_zone(run, db):
    """A zone's spot price is that zone's alone (not its region's cheapest): the answers say
    the zone, in the table's where and in csv and json, compare's zones after its other
    columns."""
    asked = ("--model", "llama-3-70b", "--workload", "inference", "--pricing-model", "spot",
             "--region", "us-east-1d", "--db", db)  # fmt: skip
    wide = {"COLUMNS": "250"}
    compared = run("compare", "H200", "H100-SXM", *asked, "--wide", env=wide)
    assert compared.returncode == 0, compared.stderr
    assert "aws us-east-1d p5en.48xlarge" in compared.stdout
    assert "aws us-east-1d p5.48xlarge" in compared.stdout
    rows = _json(run, "compare", "H200", "H100-SXM", *asked)
    assert [(r["a_region"], r["a_zone"], r["b_zone"]) for r in rows] == [
        ("us-east-1", "us-east-1d", "us-east-1d")
    ]
    done = run("compare", "H200", "H100-SXM", *asked, "--format", "csv")
    assert done.returncode == 0, done.stderr
    header = done.stdout.splitlines()[0].split(",")
    assert header[-3:] == ["currency", "a_zone", "b_zone"]
    ranked = run("cost", *asked, env=wide)
    assert ranked.returncode == 0, ranked.stderr
    first = next(line for line in ranked.stdout.splitlines() if line.startswith("1 "))
    assert "aws us-east-1d " in first, first
    assert {r["zone"] for r in _json(run, "cost", *asked)} == {"us-east-1d"}
