"""Builders shared by the tests: price records and runs with sensible defaults."""

from __future__ import annotations

from dataclasses import replace
from datetime import UTC, datetime, timedelta
from pathlib import Path

import duckdb

from chipcost.core.record import PriceRecord
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.core.settings import Warehouse

DAY0 = datetime(2026, 11, 1, 6, 0, tzinfo=UTC)


def day(n: int) -> datetime:
    return DAY0 + timedelta(days=n)


BASE = PriceRecord(
    observed_at=DAY0,
    provider="aws",
    source="aws-pricing-api",
    region="us-east-1",
    instance_type="p5.48xlarge",
    chip="H100-SXM",
    chip_count=8.0,
    pricing_model="on_demand",
    price_per_hour=55.04,
    sku="SKU1",
    source_url="https://example.invalid/GetProducts",
    payload_ref="2026-11-01T060000Z/aws-pricing-api/0001.json.gz",
)


def record(**changes) -> PriceRecord:
    return replace(BASE, **changes)


def run_by_provider(by_provider: dict[str, list[PriceRecord]], when: datetime) -> RunResult:
    """One successful run in which each provider's records are its own source's (aws's
    aws-pricing-api, any other provider's its name), all observed at `when`."""
    sources = [
        SourceResult(
            source="aws-pricing-api" if provider == "aws" else provider,
            provider=provider,
            status=OK,
            records=[replace(r, observed_at=when) for r in found],
            seen_keys={r.offer_key() for r in found},
            observed_at=when,
        )
        for provider, found in by_provider.items()
    ]
    return replace(run_of([], when), sources=sources)


def run_of(
    records: list[PriceRecord], when: datetime, *, status: str = OK, run_id: str = ""
) -> RunResult:
    source = SourceResult(
        source="aws-pricing-api",
        provider="aws",
        status=status,
        records=[replace(r, observed_at=when) for r in records] if status == OK else [],
        seen_keys={r.offer_key() for r in records} if status == OK else set(),
        observed_at=when,
    )
    stamp = when.strftime("%Y-%m-%dT%H%M%SZ")
    return RunResult(
        run_id=run_id or f"{stamp}-test",
        started_at=when,
        observed_at=when,
        mode="replay",
        archive_run=stamp,
        sample=False,
        sources=[source],
    )


def loaded_warehouse(target: Path | Warehouse, records: list[PriceRecord]) -> Path | Warehouse:
    """A warehouse (file or lake) created with one run of `records`, observed on day 0."""
    if isinstance(target, Path):
        from tests import warehouses

        return warehouses.of_records(target, records)
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.warehouse.load import load_run

    con = open_warehouse(target)
    try:
        load_run(con, run_of(records, day(0)))
    finally:
        con.close()
    return target


def rows(db: Path, sql: str) -> list[tuple]:
    """The rows of `sql` on the warehouse file `db`, opened read-only and closed again."""
    con = duckdb.connect(str(db), read_only=True)
    try:
        return con.execute(sql).fetchall()
    finally:
        con.close()


def words(text: str) -> str:
    """Console output with its line wrapping undone."""
    return " ".join(text.split())


# The plain progress lines `chipcost collect` writes to a stderr that is no terminal
# (chipcost.cli.collect_progress): what a failure says comes after them.
_PROGRESS = ("starting Prefect…", "collecting…", "replaying ", "loaded run ", "fetching ")


def without_progress(stderr: str) -> str:
    """A command's stderr without collect's plain progress lines."""
    kept = [line for line in stderr.splitlines() if not line.startswith(_PROGRESS)]
    return "\n".join(kept) + ("\n" if kept else "")


def pasted(text: str, after: str) -> list[list[str]]:
    """The commands a user pastes from `text`: each line holding `after`, from just past it,
    with the lines a shell's continuation (' \\') joins to it; each split as a shell splits it
    (its first word the program)."""
    import shlex

    lines, found = text.splitlines(), []
    for n, line in enumerate(lines):
        if after not in line:
            continue
        command = line.split(after, 1)[1]
        while command.endswith(" \\") and n + 1 < len(lines):
            n += 1
            command = command[:-1] + lines[n]
        found.append(shlex.split(command))
    return found
