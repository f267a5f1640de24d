"""A price refused keeps the offer it belongs to open, in every source that lists prices: its
recorded good payloads (tests/fixtures/<source>/contract.toml) loaded on one day, then again
with one price of one offer spoiled (`1.99` made `"1.99x"`, `$35.84` made `$35.84x`: each
contract's `[[spoiled]]`). The offer is not among the second day's records, its row is a
reject, and its price_history row stays open; no offer is withdrawn (docs/operations.md, "a
provider row the parser refuses"). Azure's second case is a price the validator refuses (out of
its plausible range), which keeps its offer open the same way.

On main at 2203e6f a refused row kept an offer open only by its sku, or where the AWS spot
feed, Nebius and Verda named it: the rows of aws-spot, gmicloud, latitude, lium, mithril, modal,
shadeform, simplepod, vastai, verda and voltagepark carry no sku, or another id than their
records' (a host, a node, a plan's name beside its id), and Google's vCPU and memory SKUs
another than their machines' GPU SKU, so each of these offers was withdrawn.
"""

from __future__ import annotations

import re
from datetime import UTC, datetime
from functools import partial
from pathlib import Path

import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.settings import load_settings
from chipcost.core.vocabulary import HISTORY_KEY
from chipcost.extract import registry
from chipcost.pipeline.collect import WarehouseSession, collect_source, load
from chipcost.warehouse.db import connect
from tests import warehouses
from tests.paths import FIXTURES
from tests.sources import Spoiled, contract

SOURCES = registry()
CASES = [
    (name, spoiled)
    for name in sorted(SOURCES)
    if (found := contract(name)) is not None
    for spoiled in found.spoiled
]


def test_every_source_that_lists_prices_spoils_one():
    """A new source declares its case: one whose good fixtures price nothing (the ECB's rates,
    Spot Advisor's buckets) or that collects nothing (ibm, scp) has none."""
    priced = {
        name
        for name, source in SOURCES.items()
        if (found := contract(name)) is not None
        and found.good
        and source.parse(found.good_payloads()).records
    }
    assert {name for name, _ in CASES} == priced


@pytest.mark.parametrize(("source", "case"), CASES, ids=[f"{n}-{c.to}" for n, c in CASES])
def test_a_price_refused_keeps_its_offer_open(tmp_path, source, case):
    settings = load_settings(db=warehouses.new(tmp_path / "w.duckdb"), data_dir=tmp_path)
    first = replay(settings, source, archived(tmp_path, source, 20))
    before = history(settings.db_path)
    second = replay(settings, source, archived(tmp_path, source, 21, case))
    assert first.status == OK and second.status == OK, second.message
    gone = keys(first) - keys(second)
    assert case.offer in {label(key) for key in gone}, sorted(map(label, gone))
    assert len(second.rejects) > len(first.rejects)
    after = history(settings.db_path)
    assert all(before[key] is None for key in gone)
    assert {key: after[key] for key in gone} == dict.fromkeys(gone)  # open, not withdrawn
    assert "withdrawn" not in after.values()


def archived(root: Path, source: str, day: int, case: Spoiled | None = None) -> Path:
    """One archived run of `source` on `day` (November 2026): its good fixtures, the price of
    `case` spoiled."""
    moment = datetime(2026, 11, day, 6, 0, tzinfo=UTC)
    stamp = moment.strftime("%Y-%m-%dT%H%M%SZ")
    writer = ArchiveWriter(root / "a", stamp, source)
    for good in contract(source).good:
        data = (FIXTURES / source / good.file).read_bytes()
        if case is not None and good.file == case.file:
            spoil = partial(_spoiled, to=case.to)
            text, found = re.subn(case.price, spoil, data.decode(), flags=re.DOTALL)
            assert found, f"{case.price!r} is not in {source}/{case.file}"
            data = text.encode()
        ext = Path(good.file).suffix.lstrip(".")
        writer.write(data, good.url, ext=ext, fetched_at=moment, request=good.request or None)
    writer.finish()
    return root / "a" / stamp


def _spoiled(found: re.Match[str], to: str) -> str:
    """The match with its first group, the price, made `to`."""
    start, end = (at - found.start() for at in found.span(1))
    return found[0][:start] + to.format(found[1]) + found[0][end:]


def replay(settings, source: str, run_dir: Path) -> SourceResult:
    """`source` replayed from `run_dir` and loaded."""
    result = collect_source(
        SOURCES[source], settings=settings, stamp=run_dir.name, replay_dir=run_dir
    )
    when = result.observed_at or datetime(2026, 11, 1, tzinfo=UTC)
    with WarehouseSession(settings) as session:
        load(session, RunResult(f"{run_dir.name}-t", when, when, "replay", run_dir.name, False,
                                [result]))  # fmt: skip
    return result


def keys(result: SourceResult) -> set[tuple[str, ...]]:
    return {(r.source, *r.offer_key()) for r in result.records}


def label(key: tuple[str, ...]) -> str:
    found = dict(zip(HISTORY_KEY, key, strict=True))
    return f"{found['instance_type']} {found['region']} {found['pricing_model']}"


def history(db: Path) -> dict[tuple[str, ...], str | None]:
    """Each offer's latest row: None while open, else why it ended."""
    key = ", ".join(HISTORY_KEY)
    con = connect(db, read_only=True)
    try:
        rows = con.execute(
            f"SELECT {key}, end_reason FROM price_history "
            f"QUALIFY row_number() OVER (PARTITION BY {key} ORDER BY valid_from DESC) = 1"
        ).fetchall()
    finally:
        con.close()
    return {tuple(row[:-1]): row[-1] for row in rows}
