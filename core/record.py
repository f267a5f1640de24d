"""The price record every source produces (its fields are the contract every source keeps,
checked where a record is made), and a parser's result."""

from __future__ import annotations

import json
from dataclasses import MISSING, dataclass, field, fields
from datetime import datetime
from operator import attrgetter
from typing import Any

from chipcost.core.vocabulary import OFFER_KEY

# The vocabulary of pricing_model, term, payment and plan is declared in core/vocabulary.py.
# The currencies a price is stored in, as the provider states it: every read sees US dollars,
# euros converted at the ECB's rate of the price's own day (price_history_usd,
# warehouse/views/05_price_history_usd.sql); a record in another currency is refused.
STORED_CURRENCIES = ("USD", "EUR")
HOURS_PER_TERM = {"1yr": 8760.0, "3yr": 26280.0}

# One C call for the whole key: a replay asks each record's key several times (validation,
# seen keys, price jumps), some 70,000 keys for the sample.
_offer_key = attrgetter(*OFFER_KEY)


@dataclass(frozen=True, kw_only=True)
class PriceRecord:
    """One price of one offer as one source saw it at one moment.

    Its fields are the record's columns, declared once, in the warehouse's order (the
    observations table after its run_id): RECORD_COLUMNS, the frame schema (core/frames.py)
    and the loader's insert are read from them."""

    observed_at: datetime
    provider: str
    source: str
    region: str
    zone: str = ""
    instance_type: str
    chip: str
    chip_count: float
    pricing_model: str
    term: str = "none"
    payment: str = "none"
    plan: str = "default"
    price_per_hour: float
    upfront: float | None = None
    currency: str = "USD"
    sku: str = ""
    source_url: str = ""
    payload_ref: str = ""
    extra: dict[str, Any] = field(default_factory=dict)
    # The host's vCPUs, memory (GB) and local disk (GB) as the source publishes them; None
    # where it publishes none (docs/sources.md says which source gives which).
    vcpus: float | None = None
    ram_gb: float | None = None
    disk_gb: float | None = None

    def offer_key(self) -> tuple[str, ...]:
        return _offer_key(self)


# The kind of each column, by its field's type: what the frame schema and the warehouse hold.
_KINDS = {
    "datetime": "timestamp",
    "str": "text",
    "float": "number",
    "float | None": "number",
    "dict[str, Any]": "json",
}
# (name, kind) of the record's columns in the warehouse's order, read from PriceRecord.
RECORD_COLUMNS = tuple((f.name, _KINDS[str(f.type)]) for f in fields(PriceRecord))


@dataclass(frozen=True)
class Reject:
    """A row a parser or validator refused, with the reason and the row as it came."""

    source: str
    reason: str
    row: Any
    sku: str = ""
    payload_ref: str = ""
    # The offer the row is a price of, as far as the parser can tell: the fields of its key
    # (OFFER_KEY) it knows, a field it cannot tell left out. An open offer agreeing on each
    # was seen, so it is not withdrawn while its row is refused (nor one of the row's sku).
    # Empty where the row names no offer, or says its offer is not sold ("N/A", "Contact us").
    offer: dict[str, str] = field(default_factory=dict)
    # Of a row saying its offer is not sold, that offer's whole key (OFFER_KEY), which the
    # parser knows though the reject keeps nothing open: where the same payload prices that
    # offer too, the copies disagree, and every one is refused as priced twice, the offer kept
    # open (extract/_priced_once.py). Not stored: the warehouse's rejects keep `offer`, which
    # then names it.
    unpriced: dict[str, str] = field(default_factory=dict, repr=False)

    def row_json(self) -> str:
        if isinstance(self.row, str):
            return self.row
        return json.dumps(self.row, default=str, sort_keys=True)

    @classmethod
    def of_record(cls, record: PriceRecord, reason: str, row: Any) -> Reject:
        """A reject of a record made and then refused: its whole offer key is known."""
        offer = dict(zip(OFFER_KEY, record.offer_key(), strict=True))
        return cls(record.source, reason, row, record.sku, record.payload_ref, offer)


# What a record's key fields are when a parser gives none: an offer a reject names is
# completed with them (extract/_kit.py Origin.reject), as a record of it would be.
OFFER_DEFAULTS = {
    f.name: f.default for f in fields(PriceRecord) if f.name in OFFER_KEY and f.default != MISSING
}


@dataclass
class ParseResult:
    """What a parser made of a payload: good records, refused rows, and notes for the summary."""

    records: list[PriceRecord] = field(default_factory=list)
    rejects: list[Reject] = field(default_factory=list)
    notes: list[str] = field(default_factory=list)
    # Rows of a reference table the source read beside prices (table -> rows by column):
    # the ECB's rates (fx_rates), AWS's spot interruption buckets (spot_interruptions).
    facts: dict[str, list[dict[str, object]]] = field(default_factory=dict)

    def extend(self, other: ParseResult) -> None:
        self.records.extend(other.records)
        self.rejects.extend(other.rejects)
        self.notes.extend(other.notes)
        for table, rows in other.facts.items():
            self.facts.setdefault(table, []).extend(rows)
