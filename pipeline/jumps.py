"""Loud price jumps: offers whose price moved more than JUMP_FACTOR since the previous run.

Such prices are still loaded (a real repricing must not be lost) but each one is named in its
source's notes, which the run summary, the flow log and the Prefect artifact all show.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable
from dataclasses import dataclass

import duckdb
import polars as pl

from chipcost.core.record import PriceRecord
from chipcost.core.runs import OK, SourceResult
from chipcost.core.vocabulary import pricing_words
from chipcost.warehouse.current import CurrentPrice, moved_prices

# 3x up or down. Real list-price moves are tens of percent (a cut, a new generation) and spot
# markets rarely triple overnight; the errors a parser makes are bigger: a per-GPU price read
# as per-instance (4x or 8x), a GPU count lost (4x, 8x), a monthly or per-minute figure read
# as hourly (730x, 60x), cents as dollars (100x). 3x catches all of those and stays quiet on
# ordinary repricing and spot swings. Compared per chip, so a misread GPU count shows too.
JUMP_FACTOR = 3.0
# Beyond this many jumps in one source, list the first ones and count the rest: a whole
# table that moved is one layout or unit problem, not a hundred separate stories.
MAX_LISTED = 10

log = logging.getLogger("chipcost.jumps")


@dataclass(frozen=True)
class Jump:
    record: PriceRecord
    before: CurrentPrice

    @property
    def factor(self) -> float:
        """New per-chip price over the old one (both per chip: a count change shows too),
        as the warehouse computed it (warehouse/current.py)."""
        return self.before.factor

    def note(self) -> str:
        r, before = self.record, self.before
        place = (r.instance_type, "" if r.region in ("global", "") else r.region, r.zone)
        # how it is paid in the words every table says it ('reserved 1yr, all upfront')
        paid = pricing_words(r.pricing_model, r.term, r.payment, r.plan)
        label = " ".join(part for part in (*place, paid) if part)
        count = ""
        if r.chip_count != before.chip_count:
            count = f", {before.chip_count:g} → {r.chip_count:g} chips"
        return (
            f"{label} jumped {before.price_per_hour:,.2f} → {r.price_per_hour:,.2f} "
            f"(×{self.factor:.{1 if self.factor >= 1 else 2}f}{count}) since "
            f"{before.last_seen_at:%Y-%m-%d}: loaded; "
            "check the page"
        )


def is_jump(factor: float) -> bool:
    return factor > JUMP_FACTOR or factor < 1.0 / JUMP_FACTOR


def jumps(
    records: Iterable[PriceRecord], current: dict[tuple[str, ...], CurrentPrice]
) -> list[Jump]:
    """Records whose price moved more than JUMP_FACTOR from the same offer's current price.

    Only observations newer than the current price count: replaying an old archive compares
    nothing, as it changes no history either.
    """
    found = []
    for record in records:
        before = current.get((record.source, *record.offer_key()))
        if before is None or record.observed_at <= before.last_seen_at:
            continue
        jump = Jump(record, before)
        if is_jump(jump.factor):
            found.append(jump)
    return found


def jump_notes(found: list[Jump]) -> list[str]:
    ordered = sorted(found, key=lambda j: (-max(j.factor, 1 / j.factor), j.record.instance_type))
    notes = [j.note() for j in ordered[:MAX_LISTED]]
    if len(ordered) > MAX_LISTED:
        notes.append(
            f"and {len(ordered) - MAX_LISTED} more offers moved more than {JUMP_FACTOR:g}x: so "
            "many at once is more likely a unit or layout change than repricing; check the page"
        )
    return notes


def flag_price_jumps(
    con: duckdb.DuckDBPyConnection, results: list[SourceResult]
) -> list[tuple[str, str]]:
    """Compare a run's validated records with the warehouse (one query) and flag jumps: each
    jumped offer is noted in its (successful) source's notes; (source, note) pairs added.

    Runs before the load, on the collection's connection. A first run flags nothing; a query
    that fails flags nothing either: the check must never stop prices from loading.
    """
    ok = [r for r in results if r.status == OK and r.records]
    if not ok:
        return []
    try:
        moved = moved_prices(con, pl.concat([r.records_frame() for r in ok]), JUMP_FACTOR)
    except duckdb.Error as exc:
        log.warning("price-jump check skipped: %s", exc)
        return []
    added = []
    for result in ok:
        if not any(key[0] == result.source for key in moved):
            continue
        notes = jump_notes(jumps(result.records, moved))
        result.notes.extend(notes)
        added.extend((result.source, note) for note in notes)
    return added
