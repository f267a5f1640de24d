"""Rows refused are said where drift is: Azure's page (its reconstructed ND page, in the Retail
Prices API's shape) a day later with some items per second and some in euros, replayed by
`chipcost collect` into a real warehouse file. The summary counts the rows refused by reason
and the offers that kept their earlier price; `chipcost sources` carries the latest run's
count and reasons, `sources --runs` the query that lists a run's."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import duckdb
import pytest

from chipcost.archive import ArchiveWriter, parse_stamp
from chipcost.extract import azure
from tests.paths import FIXTURES

BEFORE, AFTER = "2026-11-20T060000Z", "2026-11-21T060000Z"


def _page(changed: bool) -> bytes:
    body = json.loads((FIXTURES / "azure" / "consumption-nd-page-1.json").read_bytes())
    body["NextPageLink"] = None  # one page of the query
    if changed:
        for n, item in enumerate(body["Items"]):
            if n % 6 == 0:
                item["unitOfMeasure"] = "1 Second"
            elif n % 6 == 1:
                item["currencyCode"] = "EUR"
    return json.dumps(body).encode()


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "archive"
    for stamp, changed in ((BEFORE, False), (AFTER, True)):
        writer = ArchiveWriter(root, stamp, "azure")
        request = {"params": azure.query_params("Consumption", "ND")}
        writer.write(
            _page(changed), azure.PRICES_URL, fetched_at=parse_stamp(stamp), request=request
        )
    return root


def test_rows_refused_are_counted_by_reason_in_the_summary_and_in_sources(run, archive, tmp_path):
    """On 444acd6f the summary said "ok, nothing to note" of a source with rows refused, and
    `chipcost sources` said nothing of them."""
    db = tmp_path / "w.duckdb"
    ran = run("collect", "--replay", str(archive), "--db", str(db))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    said = " ".join(ran.stdout.split())
    reasons = "3 for unit '1 Second' is not '1 Hour', 3 for currency 'EUR' is not USD"
    assert f"azure ok: 6 rows refused: {reasons}" in said, said
    with duckdb.connect(str(db), read_only=True) as con:
        [(kept,)] = con.execute(
            "SELECT count(*) FROM current_prices WHERE source = 'azure' "
            "AND last_seen_at < TIMESTAMPTZ '2026-11-21 06:00:00+00'"
        ).fetchall()
    assert kept > 0 and f"{kept} of its offers kept their earlier price" in said
    assert "nothing to note" not in said

    sources = run("sources", "--db", str(db))
    assert sources.returncode == 0, sources.stderr
    shown = " ".join(sources.stdout.split())
    assert f"rejects (azure, latest run): 6 rows refused: {reasons}" in shown
    listed = run("sources", "--db", str(db), "--format", "json")
    [row] = [r for r in json.loads(listed.stdout) if r["source"] == "azure"]
    assert row["rejects"] == 6 and row["refused"].startswith(f"6 rows refused: {reasons}")

    runs = run("sources", "--runs", "--db", str(db))
    query = runs.stdout.split("`chipcost sql ", 1)[1].split("`", 1)[0]
    counted = run("sql", *shlex.split(query), "--db", str(db), "--format", "json")
    assert counted.returncode == 0, counted.stderr
    assert {(r["reason"], r["n"]) for r in json.loads(counted.stdout)} == {
        ("unit '1 Second' is not '1 Hour'", 3),
        ("currency 'EUR' is not USD (the request asked for USD)", 3),
    }
