"""Loud price jumps: offers whose price moved more than JUMP_FACTOR since the previous run.

Such prices are still loaded (a real repricing must not be lost) but each one is named in its
source's notes, which the run summary, the flow log and the Prefect artifact all show. A whole
table that moved by one factor is held instead: that source's run is not loaded (TABLE_SHARE).
"""

from __future__ import annotations

import logging
import statistics
from collections.abc import Collection, Iterable
from dataclasses import dataclass
from datetime import datetime

import duckdb
import polars as pl

from chipcost.core.commands import suggested
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.record import PriceRecord
from chipcost.core.runs import FAILED, OK, SourceResult
from chipcost.core.vocabulary import pricing_words
from chipcost.warehouse.current import CurrentPrice, currencies_changed, moved_prices

# 3x up or down. Real list-price moves are tens of percent (a cut, a new generation) and spot
# markets rarely triple overnight; the errors a parser makes are bigger: a per-GPU price read
# as per-instance (4x or 8x), a GPU count lost (4x, 8x), a monthly or per-minute figure read
# as hourly (730x, 60x), cents as dollars (100x). 3x catches all of those and stays quiet on
# ordinary repricing and spot swings. Compared per chip, so a misread GPU count shows too.
JUMP_FACTOR = 3.0
# Beyond this many jumps in one source, list the first ones and count the rest: a whole
# table that moved is one layout or unit problem, not a hundred separate stories.
MAX_LISTED = 10
# A whole table that moved: at least this share of a source's offers compared with a price
# held (and at least TABLE_OFFERS of them) jumped by one factor, their factors within
# TABLE_SPREAD of one another. A unit or layout change moves every row it touches by one
# factor (cents as dollars 100x, a month as an hour 730x, a per-GPU column read per instance
# 8x), spread only by the provider's rounding (0.24 -> 24.00 is x100.0, 0.2524 -> 25.24 per
# chip x100.0, 3.59 -> 359.00 x100.0; 2 cents of rounding on a 0.14 price is 14%); a real
# repricing past 3x touches a few offers, and a spot market's many moves differ. Such a run of
# the source is held, not loaded: its earlier prices stand, as when every row is refused,
# until a fixed parser's replay or `--accept-moves` loads it.
TABLE_SHARE = 0.5
TABLE_OFFERS = 3
TABLE_SPREAD = 1.2

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
        return f"{self.change()}: loaded; check the page"

    def change(self) -> str:
        """'1x H100 SXM us-east-1 on demand jumped 1.99 → 8.40 (×4.2) since 2026-11-20'."""
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
            f"{before.last_seen_at:%Y-%m-%d}"
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


@dataclass(frozen=True)
class TableMove:
    """Most of a source's offers moved by one factor at once (TABLE_SHARE): `alike` are the
    jumps of that factor, of `compared` offers compared with a price held."""

    alike: list[Jump]
    compared: int

    @property
    def factor(self) -> float:
        return statistics.median(j.factor for j in self.alike)

    def said(self) -> str:
        """'39 of its 39 prices compared moved ×100 at once since 2026-11-20'."""
        since = min(j.before.last_seen_at for j in self.alike)
        return (
            f"{len(self.alike):,} of its {self.compared:,} prices compared moved "
            f"×{times(self.factor)} at once since {since:%Y-%m-%d}"
        )

    def held(self, source: str, run_dir: str, again: str) -> str:
        """Why the source's run was held, where its payload is, and what to do."""
        listed = sorted(self.alike, key=lambda j: j.record.instance_type)
        examples = "; ".join(j.change().rsplit(" since ", 1)[0] for j in listed[:2])
        refs = sorted({j.record.payload_ref for j in self.alike if j.record.payload_ref})
        files = ", ".join(f"{run_dir}/{ref.partition('/')[2]}" for ref in refs[:2])
        files += f" and {len(refs) - 2} more" if len(refs) > 2 else ""
        replay = suggested("collect", replay=run_dir, source=source) + again
        accept = COMMAND_LINE.said("accept_moves", source)
        return (
            f"{source}: {self.said()} ({examples}): a whole table moving by one factor is a "
            "unit or layout change, not repricing, so this run of the source was held: nothing "
            f"of it was loaded and its earlier prices are kept. Check the page against its "
            f"payload ({files or run_dir}); once the parser reads it right, replay the run "
            f"(`{replay}`); if the prices really moved so, load them with `{replay} {accept}`"
        )


def times(factor: float) -> str:
    """×100, ×8, ×3.5, ×0.01: a factor as a reader compares it."""
    return f"{factor:,.0f}" if factor >= 10 else f"{factor:.2g}"


def table_move(found: list[Jump], compared: int) -> TableMove | None:
    """The largest set of `found` whose factors lie within TABLE_SPREAD of one another, when
    it is a whole table: TABLE_OFFERS at least, and TABLE_SHARE of the `compared` offers."""
    if len(found) < TABLE_OFFERS:
        return None
    ordered = sorted(found, key=lambda j: j.factor)
    first, widest = 0, (0, 0)
    for last, jump in enumerate(ordered):
        while jump.factor > ordered[first].factor * TABLE_SPREAD:
            first += 1
        if last + 1 - first > widest[1] - widest[0]:
            widest = (first, last + 1)
    alike = ordered[widest[0] : widest[1]]
    if len(alike) < TABLE_OFFERS or len(alike) < TABLE_SHARE * compared:
        return None
    return TableMove(alike, compared)


def flag_price_jumps(
    con: duckdb.DuckDBPyConnection,
    results: list[SourceResult],
    *,
    run_dir: str = "",
    again: str = "",
    accept: Collection[str] = (),
) -> list[tuple[str, str]]:
    """Compare a run's validated records with the warehouse (one query) and flag jumps: each
    jumped offer is noted in its (successful) source's notes; (source, note) pairs added.

    A source whose whole table moved (table_move) is held instead: failed with a message
    naming the factor, its payload under `run_dir` and what to do (`again`: the warehouse
    option the commands it suggests need), its records not loaded; unless it is in `accept`,
    which loads it with its jumps noted.

    Runs before the load, on the collection's connection. A first run flags nothing; a query
    that fails flags nothing either: the check must never stop prices from loading.
    """
    ok = [r for r in results if r.status == OK and r.records]
    if not ok:
        return []
    try:
        frame = pl.concat([r.records_frame() for r in ok])
        moved = moved_prices(con, frame, JUMP_FACTOR)
        currencies = currencies_changed(con, frame)
    except duckdb.Error as exc:
        log.warning("price-jump check skipped: %s", exc)
        return []
    added = []
    for result in ok:
        if result.source in currencies:
            note = currency_note(*currencies[result.source])
            result.notes.append(note)
            added.append((result.source, note))
        if not any(key[0] == result.source for key in moved.prices):
            continue
        found = jumps(result.records, moved.prices)
        table = table_move(found, moved.compared.get(result.source, 0))
        if table is not None and result.source not in accept:
            _hold(result, table.held(result.source, run_dir, again))
            added.append((result.source, result.message))
            continue
        notes = jump_notes(found)
        if table is not None:
            option = COMMAND_LINE.name("accept_moves")
            notes.insert(0, f"{table.said()}: loaded, as {option} asked")
        result.notes.extend(notes)
        added.extend((result.source, note) for note in notes)
    return added


def currency_note(count: int, held: str, stated: str, since: datetime) -> str:
    """'99 offers now priced in EUR, last seen in USD on 2026-11-20: ...'."""
    offers = f"{count:,} offer{'s' if count != 1 else ''}"
    return (
        f"{offers} now priced in {stated}, last seen in {held} on {since:%Y-%m-%d}: "
        "loaded as stated (reads convert each price at its day's ECB rate); check the page "
        "if the provider did not announce it"
    )


def _hold(result: SourceResult, message: str) -> None:
    """The source's run is not loaded: failed (so nothing of it withdrawn), none of its
    records; its refused rows are kept in `rejects`, as any failed source's."""
    result.status, result.message = FAILED, message
    result.records, result.frame, result.facts, result.seen_keys = [], None, {}, set()
