"""A replay reads within bounds: a manifest nested or grown past what the writer writes is
refused before it is parsed, a source's payloads together and a run's together are refused
past their limits as they inflate, and each such source fails alone with its reason while
the others load (the whole replay once ended in a RecursionError's traceback)."""

from __future__ import annotations

import json
import shutil
import tracemalloc
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.archive import (
    MANIFEST,
    MANIFEST_MAX_BYTES,
    MANIFEST_MAX_DEPTH,
    ArchiveWriter,
    read_payloads,
    run_budget,
)
from chipcost.core.errors import ArchiveError, ParseError
from chipcost.core.payload import Payload
from chipcost.core.settings import Settings
from chipcost.extract import registry
from chipcost.extract._kit import TooDeep, json_of, load_json
from chipcost.pipeline.collect import collect_source, replay_sources
from tests.cli_runner import chipcost
from tests.helpers import rows
from tests.paths import ROOT

STAMP = "2026-11-21T060000Z"
SAMPLE_RUN = ROOT / "sample" / "archive" / STAMP
MiB = 1 << 20
# Two small sources of the sample's run: one is damaged, the other must still load.
DAMAGED, KEPT = "runpod", "lambda"


def nested(depth: int, kind: str) -> str:
    if kind == "list":
        return "[" * depth + "]" * depth
    return '{"payloads":' * depth + "[]" + "}" * depth


def sample_run(root: Path) -> Path:
    run_dir = root / STAMP
    for source in (DAMAGED, KEPT):
        shutil.copytree(SAMPLE_RUN / source, run_dir / source)
    return run_dir


@pytest.mark.parametrize("kind", ["list", "object"])
@pytest.mark.parametrize("depth", [MANIFEST_MAX_DEPTH + 1, 1_000, 100_000])
def test_a_manifest_nested_too_deep_is_refused_before_it_is_parsed(tmp_path, depth, kind):
    run_dir = sample_run(tmp_path)
    (run_dir / DAMAGED / MANIFEST).write_text(nested(depth, kind))
    with pytest.raises(ArchiveError, match=f"nested deeper than {MANIFEST_MAX_DEPTH} levels"):
        read_payloads(run_dir, DAMAGED)
    assert read_payloads(run_dir, KEPT)  # the other source's manifest reads


@pytest.mark.parametrize("note", ["[" * 100, "{" * 100 + "]" * 3, '\\"' + "[" * 100, "[[[[\\\\"])
def test_brackets_inside_strings_are_no_nesting(tmp_path, note):
    run_dir = sample_run(tmp_path)
    manifest = json.dumps({"payloads": [], "note": note, "complete": True})
    (run_dir / DAMAGED / MANIFEST).write_text(manifest)
    assert read_payloads(run_dir, DAMAGED) == []


def test_a_manifest_larger_than_any_written_is_refused_unread(tmp_path):
    run_dir = sample_run(tmp_path)
    (run_dir / DAMAGED / MANIFEST).write_text(" " * (MANIFEST_MAX_BYTES + 10) + "{}")
    with pytest.raises(ArchiveError, match=f"larger than {MANIFEST_MAX_BYTES >> 20} MiB"):
        read_payloads(run_dir, DAMAGED)


def test_a_replay_with_a_deep_manifest_loads_the_other_sources(tmp_path, monkeypatch):
    run_dir = sample_run(tmp_path / "archive")
    (run_dir / DAMAGED / MANIFEST).write_text(nested(100_000, "object"))
    # the first source alphabetically too: the run's sample label reads every manifest
    shutil.copytree(run_dir / DAMAGED, run_dir / "aws-bulk")
    db = tmp_path / "w.duckdb"
    env = {"CHIPCOST_DATA_DIR": str(tmp_path / "data"), "PATH": "/usr/bin:/bin"}
    done = chipcost("collect", "--replay", str(run_dir), "--warehouse", str(db), env=env)
    assert "Traceback" not in done.stderr
    said = " ".join((done.stdout + done.stderr).split())
    assert f"nested deeper than {MANIFEST_MAX_DEPTH} levels" in said
    statuses = dict(rows(db, "SELECT source, status FROM source_runs"))
    assert statuses[KEPT] == "ok" and statuses[DAMAGED] == "failed"
    assert rows(db, f"SELECT count(*) FROM price_history WHERE source = '{KEPT}'")[0][0] > 0


def archived(root: Path, source: str, sizes_mib: list[int]) -> Path:
    writer = ArchiveWriter(root, STAMP, source)
    for n, size in enumerate(sizes_mib):
        writer.write(bytes([n]) * (size * MiB), f"https://example.test/{n}", ext="js")
    return root / STAMP


@pytest.mark.parametrize(("sizes", "limit"), [([1, 1, 1], 2), ([3], 2), ([8] * 5, 12)])
def test_a_sources_payloads_together_past_their_limit_are_refused_as_they_inflate(
    tmp_path, sizes, limit
):
    run_dir = archived(tmp_path, "aws-spot-feed", sizes)
    with pytest.raises(ArchiveError, match=r"limit per source \(CHIPCOST_SOURCE_PAYLOADS"):
        read_payloads(run_dir, "aws-spot-feed", max_source_bytes=limit * MiB)
    assert read_payloads(run_dir, "aws-spot-feed", max_source_bytes=sum(sizes) * MiB)


def test_reading_stops_at_the_source_limit_not_after_every_payload(tmp_path):
    run_dir = archived(tmp_path, "aws-spot-feed", [8] * 6)  # 48 MiB together
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError, match="more than 8 MiB together"):
            read_payloads(run_dir, "aws-spot-feed", max_source_bytes=8 * MiB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    # what passed the limit and the read blocks (4 MiB each) of the payload being read
    assert peak < 24 * MiB, f"{peak / MiB:.0f} MiB held for an 8 MiB limit"


@pytest.mark.parametrize(("first", "second", "limit"), [(2, 2, 3), (1, 4, 4), (3, 1, 3)])
def test_a_runs_payloads_together_past_their_limit_fail_the_source_that_passes_it(
    tmp_path, first, second, limit
):
    archived(tmp_path, "aws-spot-feed", [first])
    run_dir = archived(tmp_path, "ecb-rates", [second])
    settings = Settings(
        data_dir=tmp_path, db_path=tmp_path / "w.duckdb", run_payloads_max_bytes=limit * MiB
    )
    sources = [registry()["aws-spot-feed"], registry()["ecb-rates"]]
    results = replay_sources(sources, settings=settings, replay_dir=run_dir, already_loaded={})
    spot, ecb = results
    # each read within its own limits; the run's limit fails the one that passes it, alone,
    # and its parse of synthetic bytes fails the other with its own reason (not the limit)
    assert "CHIPCOST_RUN_PAYLOADS_MAX_MB" not in spot.message
    assert ecb.status == "failed" and "limit per run (CHIPCOST_RUN_PAYLOADS_MAX_MB)" in ecb.message
    assert "bug" not in ecb.message


def test_the_run_budget_is_shared_and_counts_what_was_read():
    budget = run_budget(3 * MiB)
    budget.take(2 * MiB, Path("a"))
    with pytest.raises(ArchiveError, match="more than 3 MiB together"):
        budget.take(2 * MiB, Path("b"))


def test_the_limits_come_from_the_settings(tmp_path):
    run_dir = archived(tmp_path, "aws-spot-feed", [1, 1])
    settings = Settings(
        data_dir=tmp_path, db_path=tmp_path / "w.duckdb", source_payloads_max_bytes=MiB
    )
    result = collect_source(
        registry()["aws-spot-feed"], settings=settings, stamp=STAMP, replay_dir=run_dir
    )
    assert result.status == "failed" and "more than 1 MiB together" in result.message


@pytest.mark.parametrize("depth", [5_000, 100_000])
@pytest.mark.parametrize("kind", ["list", "object"])
def test_a_payload_nested_past_the_json_reader_is_refused_naming_the_file(depth, kind):
    text = nested(depth, kind)
    with pytest.raises(TooDeep):
        json_of(text)
    when = datetime(2026, 11, 21, 6, tzinfo=UTC)
    found = Payload(text.encode(), "https://example.test/x", when, "x.json", "r/x")
    with pytest.raises(ParseError, match=r"https://example.test/x \(r/x\) is nested deeper"):
        load_json(found, "runpod")
