"""A host's vCPUs, memory and local disk as a source writes them: numbers, and sizes such as
"2 900 GiB" or "22,5 TiB SSD" read in the formats a page writes, never guessed."""

from __future__ import annotations

import re

from chipcost.extract._kit import decimal


def host_spec(value: object, *, per: float = 1.0) -> float | None:
    """A host's vCPUs, memory or local disk as the source publishes it (a number, or text
    such as "2048 GiB" or "8 x 3840 NVMe SSD" read by the caller), divided by `per` (1024
    for MiB to GiB); None when missing or not a finite amount of 0 or more: a spec the
    source does not give is left empty, never guessed, and never refuses the price."""
    if value is None or isinstance(value, bool):
        return None
    number = decimal(value) if isinstance(value, int | float) else _written(str(value).strip())
    if number is None or number < 0:
        return None
    return number / per


# The marks a page sets between groups of three digits ("2,048", "2 900", "2&nbsp;900": a
# space, a no-break, thin or narrow no-break space), and a number written with them: one mark
# throughout, its decimals after the other mark ("1,234.5", "1 234,5").
_THOUSANDS = ", \u00a0\u2009\u202f"
_GROUPED = re.compile(
    rf"([0-9]{{1,3}})(([{_THOUSANDS}])[0-9]{{3}}(?:\3[0-9]{{3}})*)(?:([.,])([0-9]+))?"
)
# A decimal comma: "22,5", "1234,56" (a comma before exactly three digits groups thousands).
_DECIMAL_COMMA = re.compile(r"([0-9]+),([0-9]+)")


def _written(text: str) -> float | None:
    """A number as a page writes it: plain ("2900", "1.4"), its thousands grouped ("2,048",
    "2 900") or with a decimal comma ("22,5"); None for any other text, a mark that could
    be either ("1.234,5", "2 90") included: a size misread is worse than none."""
    grouped = _GROUPED.fullmatch(text)
    if grouped is not None:
        whole, groups, mark, point, decimals = grouped.groups()
        if point == mark:
            return None  # "1,234,5": a decimal after a thousands comma, or a group cut short
        digits = whole + groups.replace(mark, "")
        return decimal(f"{digits}.{decimals}" if decimals else digits)
    comma = _DECIMAL_COMMA.fullmatch(text)
    if comma is not None:
        return decimal(f"{comma[1]}.{comma[2]}")
    return decimal(text)


# A size as a page writes it: "2900 GiB", "22 TiB SSD", "1.4 TB", "500 GB NVMe", "2 900 GiB",
# "22,5 TiB SSD": its number taken up to the unit (a space only before a digit), read whole.
_SIZE = re.compile(
    rf"^\s*([0-9](?:[0-9.,]|[{_THOUSANDS}](?=[0-9]))*)\s*(TiB|TB|GiB|GB|MiB|MB)?\b",
    re.IGNORECASE,
)
# To the unit the record keeps, each within its own kind: GiB for binary units, GB for
# decimal ones (a source's "GB" and "GiB" are kept as it writes them, not converted).
_TO_GB = {"tib": 1024.0, "tb": 1000.0, "gib": 1.0, "gb": 1.0, "mib": 1 / 1024, "mb": 1 / 1000}


def size_gb(text: object) -> float | None:
    """A size written as text in GB (or GiB) as the source writes it, TiB and TB times
    1,024 and 1,000; a bare number is GB. None for text that does not start with a size,
    and for one whose number could be read two ways ("2 90 GiB", "1.234,5 TB")."""
    match = _SIZE.match(str(text or ""))
    if match is None:
        return None
    number = host_spec(match[1])
    unit = (match[2] or "gb").lower()
    return None if number is None else number * _TO_GB[unit]
