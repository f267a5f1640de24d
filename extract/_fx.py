"""The one reader of the ECB's euro reference rates (its daily, 90-day and history files, one
layout): each day's rates as the file gives them, and the bounds a rate must keep. The
ecb-rates source loads them all (extract/ecb_rates.py), as do the euro sources the daily file
an earlier version archived beside their listing (extract/_rates.py); every read
converts the euro prices stored with them (warehouse/views/05_price_history_usd.sql)."""

from __future__ import annotations

import re
import statistics
from dataclasses import dataclass

from chipcost.extract._formats import Format

# Published every working day around 16:00 CET; public, no key.
ECB_DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
# The daily file as a format of the euro sources that fetched it beside their listing, kept to
# read their old archives: XML, so no JSON rows to compare; its layout is checked where it is
# read (a file with rates but no day fails naming it).
ECB_DAILY = Format(
    "ECB daily reference rates (XML)",
    "/stats/eurofxref/eurofxref-daily.xml",
    (),
    retired="fetched beside seeweb's, ovhcloud's and scaleway's listing until they stored euro "
    "prices as stated (2026, ecb-rates fetching the rates); archived files replay",
)
# <Cube time="2026-11-20"> opens a day; <Cube currency="USD" rate="1.0561"/> is one rate. Read
# by pattern, not by an XML parser, so a hostile document can expand no entities; the daily
# file quotes with ', the history files with ".
_DAY = re.compile(r"""<Cube\s+time=['"]([^'"]*)['"]\s*>""")
_RATE = re.compile(r"""<Cube\s+currency=['"]([^'"]*)['"]\s+rate=['"]([^'"]*)['"]\s*/>""")


@dataclass(frozen=True)
class Day:
    """One <Cube time=...> of an ECB file: its day as written, its rates as written."""

    day: str
    rates: list[tuple[str, str]]  # (currency, units per euro), in the file's order
    text: str  # the block, for a reject to quote


def days(text: str) -> list[Day]:
    """Every day of an ECB file, in the file's order."""
    found = list(_DAY.finditer(text))
    out = []
    for n, day in enumerate(found):
        end = found[n + 1].start() if n + 1 < len(found) else len(text)
        block = text[day.end() : end]
        out.append(Day(day.group(1), _RATE.findall(block), block))
    return out


def undated(text: str) -> bool:
    """The file has rates but no day to date them: the ECB's layout changed."""
    return not _DAY.search(text) and bool(_RATE.search(text))


# What a rate must be to enter fx_rates (units of the currency per euro), one rule for every
# source that reads the ECB's rates. The bounds: the ECB's own lowest and highest reference
# rate of each currency it publishes, 1999-01-04 to 2025-05-09, from its history file
# https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.zip (eurofxref-hist.csv, as kept
# at github.com/h0tbird/eurofxref, commit d21ffee of 2025-05-11), widened PLAUSIBLE_FACTOR
# times either way: the Turkish lira moved 28-fold in those 26 years, no currency 100-fold.
ECB_RANGE_1999_2025: dict[str, tuple[float, float]] = {
    "USD": (0.8252, 1.599),
    "JPY": (89.3, 175.39),
    "BGN": (1.9441, 1.962),
    "CZK": (22.968, 38.583),
    "DKK": (7.4234, 7.4732),
    "GBP": (0.5711, 0.97855),
    "HUF": (228.16, 430.65),
    "PLN": (3.2053, 4.9525),
    "RON": (3.113, 5.1188),
    "SEK": (8.055, 11.9872),
    "CHF": (0.9242, 1.6803),
    "ISK": (68.07, 305),
    "NOK": (7.2225, 12.3165),
    "TRY": (1.555, 43.9069),
    "AUD": (1.1639, 2.0735),
    "BRL": (2.1749, 6.9553),
    "CAD": (1.2139, 1.8123),
    "CNY": (6.5552, 11.1699),
    "HKD": (6.4361, 12.4702),
    "IDR": (10867.6, 19328.1),
    "ILS": (3.2537, 5.2192),
    "INR": (56.065, 97.8348),
    "KRW": (938.67, 1993.95),
    "MXN": (14.7939, 27.0896),
    "MYR": (3.8193, 5.1857),
    "NZD": (1.3884, 2.5535),
    "PHP": (46.852, 72.651),
    "SGD": (1.3838, 2.2323),
    "THB": (33.204, 53.536),
    "ZAR": (6.0785, 21.8788),
}
PLAUSIBLE_FACTOR = 10.0
# A currency the ECB began to publish after that file: any rate a currency has had per euro
# (the Indonesian rupiah's 19,328 the highest of those above; the Turkish lira before 2005,
# 1.9 million, no longer quoted).
UNLISTED_RANGE = (1e-3, 1e6)
# A day's rate more than this factor from the median of its neighbours (NEIGHBOURS published
# days either side in the same file) is refused for that day: in the ECB's 1999-2025 history
# the largest move from one published day to the next was the Turkish lira's 1.68-fold of
# 2001-02-22 (the Icelandic krona's 2.3-fold of 2018-02-01 ended a nine-year gap).
NEIGHBOUR_FACTOR = 2.0
NEIGHBOURS = 5


def implausible(currency: str, per_eur: float) -> str:
    """Why `per_eur` is no rate of `currency` ('' when it is plausible)."""
    low, high = ECB_RANGE_1999_2025.get(currency, (0.0, 0.0))
    if high:
        low, high = low / PLAUSIBLE_FACTOR, high * PLAUSIBLE_FACTOR
    else:
        low, high = UNLISTED_RANGE
    if low <= per_eur <= high:
        return ""
    return (
        f"{currency} at {per_eur:g} per euro is outside {low:g} to {high:g} (the ECB's own "
        f"1999-2025 range widened {PLAUSIBLE_FACTOR:g}x, chipcost.extract._fx)"
    )


def jumps(rates: list[float]) -> list[str]:
    """For each rate of one currency in day order, why it is refused against its neighbours
    ('' when it is not): NEIGHBOUR_FACTOR from the median of NEIGHBOURS days either side."""
    said = []
    for n, rate in enumerate(rates):
        around = rates[max(0, n - NEIGHBOURS) : n] + rates[n + 1 : n + 1 + NEIGHBOURS]
        middle = statistics.median(around) if around else rate
        factor = max(rate / middle, middle / rate)
        said.append(
            f"{factor:.3g}x from the median {middle:g} of the {len(around)} published days "
            f"around it (more than {NEIGHBOUR_FACTOR:g}x is no day-on-day move)"
            if factor > NEIGHBOUR_FACTOR
            else ""
        )
    return said
