"""An encoder (bert-large: models.attention 'none') decodes no token after another, so no speed
per user is its question: cost and compare answer its inference at any --speed with the figures
the cost_per_token view (and the report) prices, and say the speed does not apply; they refused
it at every speed, 'ask a lower speed', advice no speed could follow. The sample's two newest
runs, the command line through the in-process runner."""

from __future__ import annotations

import json

import pytest

from tests import warehouses

BERT = ("--model", "bert-large", "--workload", "inference")


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("encoder") / "w.duckdb", last=2))


def _json(run, *args: str):
    done = run(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize("speed", ["5", "0.01", "max"])
def test_cost_prices_an_encoder_as_the_view_does_at_any_speed(run, db, speed):
    view = _json(
        run,
        "sql",
        "select chip, pricing_model, term, min(usd_per_million_tokens) as usd "
        "from cost_per_token where model = 'bert-large' and workload = 'inference' "
        "and chip_count >= 1 and not restricted_region(region) group by all",
        "--db",
        db,
    )
    assert view
    rows = _json(run, "cost", *BERT, "--speed", speed, "--chip", "B200", "--db", db)
    cheapest = {(r["pricing_model"], r["term"]): r["usd_per_million_tokens"] for r in rows}
    for row in (r for r in view if r["chip"] == "B200"):
        assert cheapest[(row["pricing_model"], row["term"])] == pytest.approx(row["usd"])
    assert all(r["throughput_at_speed"] is not False for r in rows)
    table = run("cost", *BERT, "--speed", speed, "--limit", "3", "--db", db)
    assert table.returncode == 0, table.stderr
    said = " ".join(table.stdout.split())
    assert (
        "bert-large is an encoder: it reads each request in one pass and decodes no token after "
        "another, so it has no speed per user and --speed does not apply" in said
    )
    assert "tokens/s per user, first token within" not in said


def test_compare_answers_an_encoder(run, db):
    done = run("compare", "B200", "H100-SXM", *BERT, "--db", db)
    assert done.returncode == 0, done.stderr
    assert "bert-large is an encoder" in " ".join(done.stdout.split())
