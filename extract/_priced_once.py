"""One offer, one price per payload: the rule every source's parse keeps (extract/base.py
one_price_each), whatever its layout."""

from __future__ import annotations

import dataclasses
from collections import defaultdict

from chipcost.core.record import ParseResult, PriceRecord, Reject
from chipcost.core.vocabulary import OFFER_KEY


def offers_priced_once(result: ParseResult) -> ParseResult:
    """`result` with an offer priced twice in one payload refused: every source, whatever its
    parse. Two different prices (amount, upfront or currency) of one offer key are both
    rejects, since nothing tells which the provider means; equal ones are one record. A copy
    saying the offer has no price ("—", "Contact us": a reject naming it `unpriced`) beside
    one pricing it differs too: each is a reject naming both, and the offer stays open; alone,
    it stays a reject that keeps nothing open (the offer withdrawn)."""
    groups: dict[tuple[str, ...], list[PriceRecord]] = defaultdict(list)
    for record in result.records:
        groups[(record.payload_ref, *record.offer_key())].append(record)
    unpriced: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for at, reject in enumerate(result.rejects):
        key = (reject.payload_ref, *(reject.unpriced.get(name, "") for name in OFFER_KEY))
        if reject.unpriced and key in groups:
            unpriced[key].append(at)
    if len(groups) == len(result.records) and not unpriced:
        return result
    kept: list[PriceRecord] = []
    for key, records in groups.items():
        prices = {(r.price_per_hour, r.upfront, r.currency): r for r in records}
        said = {at: result.rejects[at] for at in unpriced.get(key, [])}
        if len(prices) == 1 and not said:
            kept.append(records[0])
            continue
        shown = ", ".join(sorted(_price_of(r) for r in prices.values()))
        shown += "".join(sorted({f"; no price: {r.reason}" for r in said.values()}))
        reason = (
            f"offer {' / '.join(k for k in records[0].offer_key() if k)} is priced "
            f"{len(records) + len(said)} times in one payload ({shown}): which price "
            "the provider means cannot be told, so none is loaded"
        )
        result.rejects.extend(refused(record, reason) for record in records)
        for at, reject in said.items():  # the offer it names kept open, as the priced copy's
            result.rejects[at] = dataclasses.replace(reject, reason=reason, offer=reject.unpriced)
    result.records = kept
    return result


def _price_of(record: PriceRecord) -> str:
    upfront = f" + {record.upfront!r} upfront" if record.upfront else ""
    return f"{record.price_per_hour!r}{upfront} {record.currency}/h"


def refused(record: PriceRecord, reason: str) -> Reject:
    """The reject of a record refused after it was made: its offer, whole, kept open."""
    row = {name: getattr(record, name) for name in ("instance_type", "region", "zone")}
    row |= {"price_per_hour": record.price_per_hour, "currency": record.currency}
    row |= {"upfront": record.upfront, "extra": record.extra}
    return Reject.of_record(record, reason, row)
