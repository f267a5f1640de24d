"""What one collection run produced, per source, on its way to the warehouse."""

from __future__ import annotations

import hashlib
from dataclasses import dataclass, field
from datetime import datetime

import polars as pl

from chipcost.core.frames import records_frame
from chipcost.core.record import PriceRecord, Reject

OK, SKIPPED, FAILED, ALREADY_LOADED = "ok", "skipped", "failed", "already_loaded"


@dataclass
class SourceResult:
    source: str
    provider: str
    status: str
    message: str = ""
    records: list[PriceRecord] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    # Offer keys the parser saw this run, valid or not: an offer whose row was rejected
    # is not withdrawn. A row the parser refused keeps open the offer its reject names (its
    # sku, its offer's key fields: Reject.offer), read from `rejects` as the history loads.
    seen_keys: set[tuple[str, ...]] = field(default_factory=set)
    payloads: int = 0
    seconds: float = 0.0
    observed_at: datetime | None = None
    payload_digest: str = ""
    notes: list[str] = field(default_factory=list)
    # Reference rows the source read beside prices (ParseResult.facts), loaded by table.
    facts: dict[str, list[dict[str, object]]] = field(default_factory=dict)
    # `records` as validation's frame, when it made one (the loader reads this).
    frame: pl.DataFrame | None = None
    # Failed as a replay conflict: its archived run was loaded before from other payloads,
    # the first load standing (a collection with one fails, whatever else it loaded).
    conflict: bool = False

    def records_frame(self) -> pl.DataFrame:
        return self.frame if self.frame is not None else records_frame(self.records)


@dataclass
class RunResult:
    run_id: str
    started_at: datetime
    observed_at: datetime
    mode: str  # live | replay
    archive_run: str
    sample: bool
    sources: list[SourceResult]

    @property
    def status(self) -> str:
        """ok; partial when some source failed; failed when nothing was collected.

        A skipped source (no credentials, or another source covers it) does not make a run
        partial: it could not run here, which its own status says. A run whose every source
        was already loaded is already_loaded (it adds no `runs` row).
        """
        ran = [s for s in self.sources if s.status != ALREADY_LOADED]
        if not ran:
            return ALREADY_LOADED if self.sources else OK
        if all(s.status in (FAILED, SKIPPED) for s in ran):
            return FAILED
        return "partial" if any(s.status == FAILED for s in ran) else OK


def payload_digest(sha256s: list[str]) -> str:
    return hashlib.sha256("\n".join(sha256s).encode()).hexdigest()


@dataclass(frozen=True)
class LoadSummary:
    records: int
    rejects: int
    new: int
    changed: int
    withdrawn: int
    pruned: int = 0  # observations older than the retention window, deleted by this load

    @property
    def history_changes(self) -> int:
        return self.new + self.changed + self.withdrawn
