"""`throughput import` holds each row to the bounds `throughput add` and `measure` are held to
(chipcost.transform.figure_bounds): a rate under the floor, a fraction of a chip, more chips
than one system, a day that does not exist. The file is refused whole, naming each bad line,
nothing recorded, exit non-zero; never a traceback (10^10 chips ended in one)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from tests.cli.test_cost_cli import _warehouse, chipcost

HEADER = "chip,model,workload,tokens_per_second,per,chips,source_date\n"


@pytest.fixture(scope="module")
def seeded(tmp_path_factory) -> Path:
    return _warehouse(tmp_path_factory.mktemp("gate") / "w.duckdb")


@pytest.fixture
def db(seeded, tmp_path) -> Path:
    copy = tmp_path / "w.duckdb"
    copy.write_bytes(seeded.read_bytes())
    return copy


def _mine(db: Path) -> list:
    listed = chipcost("throughput", "list", "--origin", "user", "--format", "json", "--db", str(db))
    return json.loads(listed.stdout) if listed.returncode == 0 else []


@pytest.mark.parametrize(
    ("row", "said"),
    [
        ("H100-SXM,llama-3-70b,inference,1e-9,chip,,2026-11-01", "below 0.01"),
        ("H100-SXM,llama-3-70b,inference,0.05,instance,8,2026-11-01", "below 0.01"),
        ("H100-SXM,llama-3-70b,inference,1500,instance,1000000000,2026-11-01", "give 1 to 576"),
        ("H100-SXM,llama-3-70b,inference,1500,instance,10000000000,2026-11-01", "give 1 to 576"),
        ("H100-SXM,llama-3-70b,training,1500,instance,10000000000,2026-11-01",
         "give 1 to 16,384"),
        ("H100-SXM,llama-3-70b,inference,1500,instance,0.5,2026-11-01", "not a whole number"),
        ("H100-SXM,llama-3-70b,inference,1500,instance,1.5,2026-11-01", "not a whole number"),
        ("H100-SXM,llama-3-70b,inference,1500,chip,,2026-02-30", "not a day that exists"),
        ("H100-SXM,llama-3-70b,inference,nan,chip,,2026-11-01", "is not a number"),
        ("H100-SXM,llama-3-70b,inference,1e999,chip,,2026-11-01", "must be a positive number"),
    ],
)  # fmt: skip
def test_an_import_is_held_to_the_gate_add_is(db, tmp_path, row, said):
    good = "H100-SXM,llama-3-70b,inference,1500,chip,,2026-11-01"
    csv = tmp_path / "mine.csv"
    csv.write_text(HEADER + good + "\n" + row + "\n")
    done = chipcost("throughput", "import", str(csv), "--db", str(db))
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert "line 3" in done.stderr and said in " ".join(done.stderr.split()), done.stderr
    assert _mine(db) == []  # the good row is not recorded either: all or nothing


def test_an_import_within_the_bounds_is_recorded(db, tmp_path):
    csv = tmp_path / "mine.csv"
    csv.write_text(HEADER + "H100-SXM,llama-3-70b,inference,1500,instance,8,2026-11-01\n")
    done = chipcost("throughput", "import", str(csv), "--db", str(db))
    assert done.returncode == 0, done.stderr
    [row] = _mine(db)
    assert row["chips"] == 8 and row["tokens_per_second_per_chip"] == pytest.approx(187.5)


@pytest.mark.parametrize(
    ("option", "said"),
    [(["--figure-per", "instance", "--chip-count", "1.5"], "--chip-count 1.5 is not a whole"),
     (["--figure-per", "instance", "--chip-count", "16384"], "--chip-count 16384: give 1 to 576"),
     (["--measured-on", "2025-02-29"], "--measured-on '2025-02-29' is not a day that exists")],
)  # fmt: skip
def test_add_names_its_option(db, option, said):
    done = chipcost(
        "throughput", "add", "--chip", "H100-SXM", "--model", "llama-3-70b", "--workload",
        "inference", "--tokens-per-second", "1500", *option, "--db", str(db),
    )  # fmt: skip
    assert done.returncode != 0 and "Traceback" not in done.stderr
    assert said in " ".join(done.stderr.split()), done.stderr
    assert _mine(db) == []
