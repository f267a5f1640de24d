"""Outputs are whole or not at all: `export --focus`, `site` and `report` write under a
temporary name beside each file and rename when every file is complete, so a full disk (a
real tmpfs, filled up; skipped where mounting is refused) names the path and leaves the
previous output as it was; a symbolic link where a file goes is refused, not written through."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.disks import small_disk
from tests.helpers import loaded_warehouse, record
from tests.pipeline.test_full_disk import _fill

# Each writer, and the files it leaves in DIR.
WRITERS = {
    "export": (["export", "--out", "DIR"], ("sku_prices.csv", "sku_prices.parquet")),
    "site": (["site", "--out", "DIR"], ("index.html", "offers.js", "offers.json", "offers.csv")),
    "report": (["report", "--out", "DIR", "--until", "2026-11-01"], ("*.html", "*.csv")),
    "report --dry-run": (["report", "--dry-run", "--out", "DIR", "--until", "2026-11-01"],
                         ("*.eml",)),
}  # fmt: skip


@pytest.fixture(scope="module")
def warehouse(tmp_path_factory) -> Path:
    path = tmp_path_factory.mktemp("outputs") / "w.duckdb"
    offers = [record(region=f"region-{i:03d}", price_per_hour=10.0 + i) for i in range(300)]
    return loaded_warehouse(path, offers)


@pytest.fixture
def disk(tmp_path: Path):
    with small_disk(tmp_path / "disk", "8m") as disk:
        yield disk


def _files(directory: Path, patterns: tuple[str, ...]) -> dict[str, bytes]:
    return {p.name: p.read_bytes() for pattern in patterns for p in directory.glob(pattern)}


@pytest.mark.parametrize("writer", list(WRITERS))
def test_a_full_disk_names_the_path_and_leaves_the_previous_output(warehouse, disk, run, writer):
    args, patterns = WRITERS[writer]
    out = disk / "out"
    args = [str(out) if a == "DIR" else a for a in args]
    first = run(*args, "--db", str(warehouse))
    assert first.returncode == 0, first.stderr[-2000:]
    before = _files(out, patterns)
    assert len(before) == len(patterns), before.keys()
    _fill(disk / "filler")
    done = run(*args, "--db", str(warehouse))
    assert done.returncode == 1 and "Traceback" not in done.stderr, done.stderr[-2000:]
    said = " ".join(done.stderr.split())
    assert f"cannot write {out}/" in said and "No space left on device" in said, said
    assert "previous" in said
    assert _files(out, patterns) == before  # whole, as it was
    assert not [p for p in out.iterdir() if p.name.startswith(".")], "a temporary file left"


@pytest.mark.parametrize("writer", ["export", "site"])
def test_a_symbolic_link_in_the_output_is_refused_not_written_through(
    warehouse, tmp_path, run, writer
):
    args, patterns = WRITERS[writer]
    out = tmp_path / "out"
    out.mkdir()
    elsewhere = tmp_path / "precious.txt"
    elsewhere.write_text("not chipcost's\n")
    link = out / patterns[-1]
    link.symlink_to(elsewhere)
    done = run(*[str(out) if a == "DIR" else a for a in args], "--db", str(warehouse))
    assert done.returncode == 1, done.stdout[-1000:]
    said = " ".join(done.stderr.split())
    assert f"{link} is a symbolic link: chipcost does not write through a link" in said, said
    assert elsewhere.read_text() == "not chipcost's\n" and link.is_symlink()
