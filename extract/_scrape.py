"""Shared parse helpers for web sources: price strings, counts, and loud layout changes."""

from __future__ import annotations

import re
from collections.abc import Iterable, Sequence

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord

# Cells that say "no price here" on purpose: a reject with a reason, never a parse error.
NOT_A_PRICE = frozenset(
    {
        "",
        "-",
        "--",
        "—",
        "–",
        "n/a",
        "na",
        "tbd",
        "tba",
        "contact sales",
        "contact us",
        "coming soon",
        "sold out",
        "unavailable",
        "not available",
        "on request",
    }
)
_NUMBER = re.compile(r"\d[\d.,]*")
_NEGATIVE = re.compile(r"(?i)^[-−]\s*(us\$|\$)?\s*\d")
# Unit words and currency marks around a price: "$2.49/hr", "US$ 2.49 per GPU-hour", "2,49 USD".
_DECORATION = re.compile(r"(?i)(us\$|\$|usd|/|per|gpu|hour|hr|h\b|from|starting at|at|-|\s)+")


class PriceError(ValueError):
    """A price cell that is neither a price nor a known "no price" marker."""


def parse_price(text: str | float | int | None) -> float | None:
    """USD amount in a price string; None for "Contact sales", "—", "N/A" or empty.

    "$2.49/hr" -> 2.49, "2,49" -> 2.49 (decimal comma), "$1,234.50" -> 1234.5. Raises
    PriceError (a ValueError) for text that is neither, such as "$2-3" or "call".
    """
    if text is None:
        return None
    if isinstance(text, int | float) and not isinstance(text, bool):
        return _positive(float(text), str(text))
    cleaned = " ".join(str(text).split())
    if cleaned.lower().rstrip(".") in NOT_A_PRICE:
        return None
    if _NEGATIVE.match(cleaned):
        raise PriceError(f"price {str(text)!r} is negative")
    numbers = _NUMBER.findall(cleaned)
    rest = _DECORATION.sub("", _NUMBER.sub("", cleaned))
    if len(numbers) != 1 or rest:
        raise PriceError(f"price {str(text)!r} is not one USD amount")
    return _positive(_decimal(numbers[0], str(text)), str(text))


def _decimal(number: str, original: str) -> float:
    """'1,234.50' and '1.234,50' -> 1234.5; '2,49' -> 2.49; '1,234' -> 1234."""
    number = number.rstrip(".,")
    if "," in number and "." in number:
        decimal_mark = "," if number.rfind(",") > number.rfind(".") else "."
    elif number.count(",") == 1:
        whole, fraction = number.split(",")
        decimal_mark = "," if len(fraction) != 3 or whole == "0" else ""
    else:
        decimal_mark = "." if number.count(".") <= 1 else ""
    thousands = {",": ".", ".": ",", "": ",."}[decimal_mark]
    digits = number.translate(str.maketrans("", "", thousands))
    try:
        return float(digits.replace(",", ".") if decimal_mark == "," else digits)
    except ValueError as exc:
        raise PriceError(f"price {original!r} is not a number") from exc


def _positive(value: float, original: str) -> float:
    if not value > 0 or value != value or value == float("inf"):
        raise PriceError(f"price {original!r} is not a positive amount")
    return value


def parse_count(text: str | float | int | None) -> int:
    """A whole, positive GPU count; ValueError for 0, fractions ("1/2", 0.5) or text."""
    if isinstance(text, bool) or text is None:
        raise ValueError(f"GPU count {text!r} is missing")
    if isinstance(text, float) and text.is_integer():
        text = int(text)
    cleaned = str(text).strip().lower().removesuffix("x").strip()
    if not cleaned.isdigit():
        raise ValueError(f"GPU count {text!r} is not a whole number of GPUs")
    if int(cleaned) < 1:
        raise ValueError(f"GPU count {text!r} is below 1")
    return int(cleaned)


def require_offers(
    found: ParseResult | Sequence[PriceRecord], payload: Payload, provider: str
) -> None:
    """Fail loudly when a non-empty payload yields no rows at all: its layout changed.

    Rows refused with a reason count as rows: a page of "Contact sales" is not a layout
    change, a page where nothing was recognised is.
    """
    if isinstance(found, ParseResult):
        rows = len(found.records) + len(found.rejects)
    else:
        rows = len(found)
    if rows or not payload.data.strip():
        return
    raise ParseError(
        f"{provider}: parsed 0 offers from a non-empty page at {payload.url} "
        f"({payload.ref or payload.name or 'unarchived'}, {len(payload.data)} bytes): the page "
        "layout probably changed; the payload is archived, so report a layout change and "
        "re-parse it with `chipcost collect --replay` once the parser is fixed"
    )


def require_columns(
    found: Iterable[str], expected: Iterable[str], payload: Payload, provider: str
) -> None:
    """Fail loudly when a price table or record lacks the columns or fields we read."""
    have = {name.strip().lower() for name in found}
    missing = [name for name in expected if name.lower() not in have]
    if not missing:
        return
    raise ParseError(
        f"{provider}: the price data at {payload.url} "
        f"({payload.ref or payload.name or 'unarchived'}) lacks {', '.join(missing)} "
        f"(found {', '.join(sorted(have)) or 'nothing'}): the layout changed; report it, then "
        "re-parse the archived payload with `chipcost collect --replay` once fixed"
    )
