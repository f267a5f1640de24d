"""What `--help` says is what the command does: a bound an option shows is the bound it keeps,
one for every command that takes the option (`report --help` showed `--stale-days N [x>=1]`
and refused 100000 with "from 1 to 3650" while `prices` took up to 99999), and `site --help`
names the files `site` writes (it left out offers.js, which its write-error message names)."""

from __future__ import annotations

import re

import pytest

from tests import report_warehouse
from tests.refusals import refused

STALE = ["prices", "history", "index", "sql", "cost", "compare", "report", "sources"]


def _help_line(run, command: list[str], flag: str) -> str:
    done = run(*command, "--help", env={"COLUMNS": "400"})
    assert done.returncode == 0, done.stderr
    (line,) = [s.strip() for s in done.stdout.splitlines() if s.strip().startswith(f"{flag} ")]
    return line


@pytest.fixture(scope="module")
def golden(tmp_path_factory):
    return report_warehouse.build(tmp_path_factory.mktemp("help") / "w.duckdb")


def test_every_command_shows_one_bound_of_stale_days_and_keeps_it(run, golden, tmp_path):
    shown = {c: re.findall(r"\[(.*)\]$", _help_line(run, [c], "--stale-days")) for c in STALE}
    assert set(map(tuple, shown.values())) == {("1<=x<=99999",)}, shown
    # the report takes what prices takes, and refuses past it as every command does
    done = run(
        "report", "--stale-days", "5000", "--dry-run", "--out", str(tmp_path / "r"),
        "--db", str(golden),
    )  # fmt: skip
    assert done.returncode == 0, done.stderr
    for command in (["report"], ["prices"]):
        said = refused(run(*command, "--stale-days", "100000", "--db", str(golden)), "100000")
        assert "--stale-days" in said and "1<=x<=99999" in said


def test_site_weeks_shows_the_bound_it_keeps(run, golden, tmp_path):
    assert _help_line(run, ["site"], "--weeks").endswith("[1<=x<=521]")
    said = refused(
        run("site", "--out", str(tmp_path), "--weeks", "522", "--db", str(golden)), "522"
    )
    assert "--weeks" in said and "1<=x<=521" in said


def test_site_help_names_the_files_site_writes(run, golden, tmp_path):
    named = set(re.findall(r"[\w-]+\.(?:html|js|json|csv)\b", _help_line(run, ["site"], "--out")))
    done = run("site", "--out", str(tmp_path / "site"), "--db", str(golden))
    assert done.returncode == 0, done.stderr
    assert named == {p.name for p in (tmp_path / "site").iterdir()}
