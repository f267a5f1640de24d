"""Every format a source has fetched replays, and a change of format is said, not found out.

An archive written as a live run writes it (ArchiveWriter, one run, the payloads' URLs in the
manifest) holds TensorDock's answer of its retired v0 marketplace API and RunPod's REST v2
catalog with fields changed; `chipcost collect --replay` loads both into a real warehouse
file, and the summary and `chipcost sources` name what changed in RunPod's answer.
"""

from __future__ import annotations

import json
from pathlib import Path

import duckdb
import pytest

from chipcost.archive import ArchiveWriter, parse_stamp
from chipcost.extract import runpod, tensordock
from tests.paths import FIXTURES

STAMP = "2026-11-14T060000Z"


def _changed_catalog() -> bytes:
    """RunPod's catalog as a provider might change it overnight: every GPU gains
    `pricingTier`, loses `maxCount`, and gives its `memory` as text."""
    body = json.loads((FIXTURES / "runpod" / "catalog-gpus.json").read_bytes())
    for gpu in body["gpus"]:
        gpu["pricingTier"] = "standard"
        del gpu["maxCount"]
        gpu["memory"] = f"{gpu['memory']} GB"
    return json.dumps(body).encode()


@pytest.fixture
def archive(tmp_path: Path) -> Path:
    root, at = tmp_path / "archive", parse_stamp(STAMP)
    v0 = (FIXTURES / "tensordock" / "documented-v0-hostnodes.json").read_bytes()
    ArchiveWriter(root, STAMP, "tensordock").write(v0, tensordock.HOSTNODES_URL, fetched_at=at)
    writer = ArchiveWriter(root, STAMP, "runpod")
    writer.write(_changed_catalog(), runpod.REST_URL, fetched_at=at)
    graphql = (FIXTURES / "runpod" / "gpu-types.json").read_bytes()
    writer.write(graphql, runpod.GRAPHQL_URL, fetched_at=at)
    return root


def test_an_archive_of_a_retired_format_loads_and_a_changed_format_is_named(run, archive):
    ran = run("collect", "--replay", str(archive), "--source", "tensordock", "--source", "runpod")
    assert ran.returncode == 0, ran.stdout + ran.stderr
    said = " ".join(ran.stdout.split())  # the summary, its lines joined
    assert "format drift (runpod, REST v2 catalog, gpus[]): new pricingTier" in said
    assert "missing maxCount" in said
    assert "memory changed from integer to string in 11 of 11 rows" in said
    assert "nothing to note (1): tensordock" in said and "format drift (tensordock" not in said

    db = archive.parent / "data" / "chipcost.duckdb"
    with duckdb.connect(str(db), read_only=True) as con:
        loaded = con.sql(
            "SELECT source, instance_type, price_per_hour, source_url FROM current_prices "
            "WHERE source IN ('tensordock', 'runpod') AND pricing_model = 'on_demand' "
            "AND plan IN ('secure', 'default') ORDER BY source, instance_type"
        ).fetchall()
    v0 = [row for row in loaded if row[0] == "tensordock"]
    assert v0 == [("tensordock", "1x geforcertx3080-pcie-10gb", 0.15, tensordock.HOSTNODES_URL)]
    assert ("runpod", "1x H100 SXM", 2.69, runpod.REST_URL) in loaded  # prices still load

    shown = run("sources")
    assert shown.returncode == 0, shown.stderr
    text = " ".join(shown.stdout.split())
    assert "format drift (runpod, REST v2 catalog, gpus[]): new pricingTier; missing maxCount" in (
        text
    )
    assert "format drift (tensordock" not in text


def test_a_change_that_fails_the_parse_is_named_beside_the_failure(run, tmp_path):
    """RunPod's catalog with `price` renamed `prices`: the source fails naming the field, and
    the summary names the change found before the parse."""
    root = tmp_path / "archive"
    renamed = (FIXTURES / "runpod" / "bad-catalog-renamed-field.json").read_bytes()
    writer = ArchiveWriter(root, STAMP, "runpod")
    writer.write(renamed, runpod.REST_URL, fetched_at=parse_stamp(STAMP))
    ran = run("collect", "--replay", str(root), "--source", "runpod")
    said = " ".join(ran.stdout.split())
    assert "runpod failed" in said, said
    assert "format drift (runpod, REST v2 catalog, gpus[]): new prices; missing price" in said
