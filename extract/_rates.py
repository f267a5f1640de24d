"""The ECB's reference rates read from its files, as fx_rates rows of a source: the ecb-rates
source's 90-day file, and the daily file an earlier version of a euro source (seeweb, ovhcloud,
scaleway) archived beside its listing to convert its prices then (with_archived_rates). One
reading and one set of checks (a rate's range, a jump from its neighbours, one rate a day) for
both; pure."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from datetime import date

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract._fx import ECB_DAILY_URL, Day, days, implausible, jumps, undated
from chipcost.extract._kit import Origin

PROVIDER = "ecb"
TABLE = "fx_rates"
_CODE = re.compile(r"^[A-Z]{3}$")


def with_archived_rates(
    payloads: Sequence[Payload], source: str, parse_listing: Callable[[list[Payload]], ParseResult]
) -> ParseResult:
    """What `parse_listing` makes of a euro source's payloads, less the ECB daily file an
    earlier version fetched beside the listing (to convert its prices to US dollars then),
    with that file's rates as fx_rates rows of `source`, each naming the file as its payload:
    loaded as this source's rates are, so that a replay of such an archive converts the run's
    euro prices at the rates it fetched (which rate converts a day's price is the one rule of
    warehouse/fx.py). A file that cannot be read is a reject of `source`, whose prices load all
    the same (a read says which of them no rate converts); pure."""
    listing = [p for p in payloads if p.url != ECB_DAILY_URL]
    result = parse_listing(listing)
    if not result.records:
        # a listing whose every row is refused fails its source (chipcost.pipeline.collect),
        # rates or none: its rates are not loaded then
        return result
    for payload in payloads:
        if payload.url != ECB_DAILY_URL:
            continue
        try:
            found = rates([payload], source)
        except ParseError as exc:
            text = payload.data.decode("utf-8", errors="replace")
            result.rejects.append(Origin.of(source, PROVIDER, payload).reject(str(exc), text[:200]))
            continue
        rows = found.facts.pop(TABLE)
        result.extend(found)
        if rows:
            result.facts.setdefault(TABLE, []).extend(rows)
    return result


def rates(payloads: Sequence[Payload], source: str) -> ParseResult:
    """The rates of `payloads` (ECB files of one layout) as fx_rates rows of `source`."""
    result = ParseResult()
    rows: list[dict[str, object]] = []
    for payload in payloads:
        origin = Origin.of(source, PROVIDER, payload)
        text = payload.data.decode("utf-8", errors="replace")
        if undated(text):
            raise ParseError(
                f"ecb: {payload.url} ({payload.ref or payload.name}) has rates but no "
                "<Cube time=...> day to date them: the ECB's file changed shape"
            )
        found_rows = []
        for day in days(text):
            found_rows.extend(_day_rows(day, origin, result))
        rows.extend(_without_jumps(_one_rate_a_day(found_rows, [payload]), origin, result))
    result.facts[TABLE] = _one_rate_a_day(rows, payloads)
    return result


def _day_rows(found: Day, origin: Origin, result: ParseResult) -> list[dict[str, object]]:
    day_text = found.day
    try:
        day = date.fromisoformat(day_text)
    except ValueError:
        result.rejects.append(origin.reject(f"not a day: time={day_text!r}", found.text[:200]))
        return []
    rows = [_row(day, "EUR", 1.0, origin)]
    for currency, rate in found.rates:
        try:
            per_eur = float(rate)
        except ValueError:
            per_eur = float("nan")
        why = "" if _CODE.match(currency) else "not a currency code"
        why = why or implausible(currency, per_eur)
        if why:
            result.rejects.append(
                origin.reject(
                    f"not a rate: currency={currency!r} rate={rate!r} on {day_text}: {why}",
                    {"day": day_text, "currency": currency, "rate": rate},
                )
            )
            continue
        rows.append(_row(day, currency, per_eur, origin))
    if len(rows) == 1:
        result.notes.append(f"{day_text}: a day without rates")
        return []
    return rows


def _one_rate_a_day(
    rows: list[dict[str, object]], payloads: Sequence[Payload]
) -> list[dict[str, object]]:
    """`rows` with a day's rate listed twice alike kept once; a day and currency listed at two
    rates refuses the whole file (the load would keep one of them silently, and a +40% rate
    passes the jump check): which one the ECB meant cannot be told."""
    kept: dict[tuple[object, object], dict[str, object]] = {}
    for row in rows:
        key = (row["day"], row["currency"])
        known = kept.setdefault(key, row)
        if known["per_eur"] != row["per_eur"]:
            where = ", ".join(sorted({p.ref or p.name or p.url for p in payloads}))
            raise ParseError(
                f"ecb: {where} lists {row['currency']} on {row['day']} twice, at "
                f"{known['per_eur']:g} and {row['per_eur']:g} per euro: one day has one rate, "
                "so no rate of the file is loaded (prices convert at the rates already loaded); "
                "report it, and re-run the collection when the ECB's file is corrected"
            )
    return list(kept.values())


def _without_jumps(
    rows: list[dict[str, object]], origin: Origin, result: ParseResult
) -> list[dict[str, object]]:
    """`rows` less each currency's day that jumps from its neighbours (chipcost.extract._fx):
    that day is refused, the others stand."""
    by_currency: dict[object, list[dict[str, object]]] = {}
    for row in sorted(rows, key=lambda r: str(r["day"])):
        by_currency.setdefault(row["currency"], []).append(row)
    refused: set[int] = set()
    for currency, series in by_currency.items():
        for row, why in zip(series, jumps([float(r["per_eur"]) for r in series]), strict=True):
            if why:
                refused.add(id(row))
                day, rate = row["day"], row["per_eur"]
                result.rejects.append(
                    origin.reject(
                        f"not a rate: {currency} at {rate:g} per euro on {day} is {why}",
                        {"day": str(day), "currency": currency, "rate": rate},
                    )
                )
    return [row for row in rows if id(row) not in refused]


def _row(day: date, currency: str, per_eur: float, origin: Origin) -> dict[str, object]:
    return {
        "day": day,
        "currency": currency,
        "per_eur": per_eur,
        "source": origin.source,
        "observed_at": origin.observed_at,
        "payload_ref": origin.payload_ref,
    }
