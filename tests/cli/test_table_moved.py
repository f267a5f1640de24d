"""A whole table moved by one factor is held, not loaded: Verda's answer with every price sent
in cents, after a day of dollars, replayed by `chipcost collect` into a real warehouse file.
The source fails naming the factor, the payload and what to do; its earlier prices stay; the
command it suggests with --accept-moves loads the new ones."""

from __future__ import annotations

import json
import shlex
from pathlib import Path

import duckdb
import pytest

from chipcost.archive import ArchiveWriter, parse_stamp
from chipcost.extract import verda
from tests.paths import FIXTURES

DOLLARS, CENTS = "2026-11-20T060000Z", "2026-11-21T060000Z"
PRICES = ("price_per_hour", "spot_price", "dynamic_price", "max_dynamic_price")


def _in_cents() -> bytes:
    """Verda's instance types with every price a hundred times itself, as text as it sends it."""
    body = json.loads((FIXTURES / "verda" / "instance-types.json").read_bytes())
    for item in body:
        for field in PRICES:
            if item.get(field) is not None:
                item[field] = f"{float(item[field]) * 100:.2f}"
    return json.dumps(body).encode()


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root = tmp_path / "archive"
    periods = (FIXTURES / "verda" / "long-term-periods.json").read_bytes()
    dollars = (FIXTURES / "verda" / "instance-types.json").read_bytes()
    for stamp, types in ((DOLLARS, dollars), (CENTS, _in_cents())):
        writer, at = ArchiveWriter(root, stamp, "verda"), parse_stamp(stamp)
        writer.write(types, verda.INSTANCE_TYPES_URL, fetched_at=at)
        writer.write(periods, verda.PERIODS_URL, fetched_at=at)
    return root


def _a100(db: Path) -> list[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return con.execute(
            "SELECT pricing_model, price_per_hour FROM current_prices WHERE provider = 'verda' "
            "AND instance_type = '1A100.40S.22V' AND pricing_model IN ('on_demand', 'spot') "
            "ORDER BY pricing_model"
        ).fetchall()


def test_prices_sent_in_cents_are_held_and_the_earlier_ones_stay(run, archive, tmp_path):
    """On 444acd6f they loaded: A100-40GB at 73.00 an hour, marked nowhere but a jump note,
    beside 8-GPU rows kept in dollars (their per-chip price in cents failed the plausibility
    check)."""
    db = tmp_path / "w.duckdb"
    ran = run("collect", "--replay", str(archive), "--db", str(db))
    assert ran.returncode == 0, ran.stdout + ran.stderr
    said = " ".join(ran.stdout.split())
    assert "verda ok 1, failed 1" in said
    assert "verda: 39 of its 39 prices compared moved ×100 at once since 2026-11-20" in said
    assert "this run of the source was held: nothing of it was loaded" in said
    assert f"{archive / CENTS / 'verda' / '0001.json.gz'}" in said  # the payload to look at
    assert _a100(db) == [("on_demand", 0.73), ("spot", 0.2524)]
    with duckdb.connect(str(db), read_only=True) as con:
        held = con.execute(
            "SELECT status, records, rejects FROM source_runs WHERE archive_run = ?", [CENTS]
        ).fetchone()
    assert held[:2] == ("failed", 0) and held[2] > 0  # the rows refused as implausible kept

    # The move confirmed on the page: the command the message gives loads it.
    accept = said.split("load them with `", 1)[1].split("`", 1)[0]
    assert accept.endswith(f"--source verda --db {db} --accept-moves verda")
    loaded = run(*shlex.split(accept)[1:])
    assert loaded.returncode == 0, loaded.stdout + loaded.stderr
    assert _a100(db) == [("on_demand", 73.0), ("spot", 25.24)]
    with duckdb.connect(str(db), read_only=True) as con:
        [(notes,)] = con.execute(
            "SELECT notes FROM source_runs WHERE archive_run = ? AND status = 'ok'", [CENTS]
        ).fetchall()
    assert any(n.endswith("×100 at once since 2026-11-20: loaded, as --accept-moves asked")
               for n in notes), notes  # fmt: skip


def test_a_source_accept_moves_does_not_know_is_refused_before_anything_runs(tmp_path):
    """On 420700ea a misspelt --accept-moves was refused after the replay's first line, and
    its message named no option."""
    from tests.cli_runner import chipcost

    db = tmp_path / "w.duckdb"
    done = chipcost("collect", "--replay", "sample/archive", "--accept-moves", "verdaa",
                    "--db", str(db))  # fmt: skip
    assert done.returncode == 2, done.stderr
    assert done.stderr.startswith("chipcost collect: error: --accept-moves: unknown source verdaa")
    assert "did you mean verda?" in done.stderr and not db.exists()
