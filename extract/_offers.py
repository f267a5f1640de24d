"""Helpers shared by the neocloud parsers: chip names, price cells, rejects and notes."""

from __future__ import annotations

import json
import re
from collections.abc import Iterable
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import Reject
from chipcost.extract._scrape import NOT_A_PRICE, PriceError, parse_price, require_columns

ALIASES_FILE = "chipcost/data/chip_aliases.csv"
# A JSON API sends prices as numbers or plain decimal strings ("2.19"). Anything else there
# ("$2.49/hr", "2,49") means the API changed what it sends: refused, not guessed at.
PLAIN_NUMBER = re.compile(r"^\d+(\.\d+)?$")


class ChipNames:
    """Canonical chips for one parse, remembering spellings that map to none (for the note).

    Notes carry no source prefix: the run summary and the flow log put the source in front.
    """

    def __init__(self, provider: str) -> None:
        self.provider = provider
        self.unknown: set[str] = set()

    def chip(self, spelling: str, memory_gb: float | None = None) -> str:
        chip = canonical_chip(spelling, memory_gb)
        if chip == UNKNOWN_CHIP:
            self.unknown.add(spelling)
        return chip

    def notes(self) -> list[str]:
        if not self.unknown:
            return []
        names = ", ".join(sorted(self.unknown))
        return [
            f"{len(self.unknown)} GPU name(s) map to no canonical chip and were loaded as "
            f"'unknown': {names}; add them to {ALIASES_FILE} if they name a known chip"
        ]


def price_of(text: object, what: str) -> tuple[float | None, str]:
    """(USD amount, "") or (None, why not): "Contact sales" and "—" are reasons, not errors."""
    try:
        value = parse_price(text)  # type: ignore[arg-type]
    except PriceError as exc:
        return None, f"{what}: {exc}"
    if value is None:
        shown = " ".join(str(text).split()) if text is not None else "nothing"
        return None, f"{what}: no price listed ({shown or 'empty'})"
    return value, ""


def json_price(value: object, what: str) -> tuple[float | None, str]:
    """(USD amount, "") for a JSON price field, or (None, why it cannot be used)."""
    if value is None or isinstance(value, bool):
        return None, f"{what}: no price ({value!r})"
    if isinstance(value, int | float):
        number = float(value)
    elif isinstance(value, str) and PLAIN_NUMBER.match(value.strip()):
        number = float(value.strip())
    elif isinstance(value, str) and " ".join(value.split()).lower() in NOT_A_PRICE:
        return None, f"{what}: no price listed ({value.strip() or 'empty'})"
    else:
        return None, f"{what}: price {value!r} is not a plain number as this API sends prices"
    if not number > 0 or number == float("inf"):
        return None, f"{what}: price {value!r} is not a positive amount"
    return number, ""


def reject(source: str, reason: str, row: Any, payload: Payload, sku: str = "") -> Reject:
    return Reject(source=source, reason=reason, row=row, sku=sku, payload_ref=payload.ref)


def slug(text: str) -> str:
    """'NORTH AMERICA' -> 'north-america': a stable region code from a page label."""
    return re.sub(r"[^a-z0-9]+", "-", text.strip().lower()).strip("-")


def load_json(payload: Payload, provider: str) -> Any:
    """A payload's JSON, or a ParseError naming the provider, URL and archived file."""
    try:
        return json.loads(payload.data)
    except (json.JSONDecodeError, UnicodeDecodeError) as exc:
        raise ParseError(
            f"{provider}: the response from {payload.url} ({payload.ref or payload.name}) is "
            f"not JSON ({exc}): the API changed or returned an error page; report it, then "
            "re-parse the archived payload with `chipcost collect --replay` once fixed"
        ) from exc


def shape_error(provider: str, payload: Payload, expected: str, found: object) -> ParseError:
    """A ParseError for a JSON document whose top level is not what the parser reads."""
    if isinstance(found, dict):
        what = "keys " + ", ".join(sorted(found)) if found else "an empty object"
    else:
        what = type(found).__name__
    return ParseError(
        f"{provider}: the response from {payload.url} ({payload.ref or payload.name}) has no "
        f"{expected} (found {what}): the API format changed; report it, then re-parse the "
        "archived payload with `chipcost collect --replay` once fixed"
    )


def field_names(rows: Iterable[Any]) -> set[str]:
    """The union of the keys of the dict rows (for a "renamed field" check)."""
    return {key for row in rows if isinstance(row, dict) for key in row}


def listed_rows(
    payload: Payload, provider: str, key: str, fields: Iterable[str], body: object = None
) -> list[Any]:
    """The list under `key` of a JSON payload (`body`, when already read), its rows checked
    for every field the parser reads: a renamed field fails the parse, naming it."""
    body = load_json(payload, provider) if body is None else body
    rows = body.get(key) if isinstance(body, dict) else None
    if not isinstance(rows, list):
        raise shape_error(provider, payload, f"{key} list", body)
    if rows:
        require_columns(field_names(rows), fields, payload, provider)
    return rows
