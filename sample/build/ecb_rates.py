"""Sample runs of ecb-rates: the 90-day reference-rate file in its real structure, synthetic."""

from __future__ import annotations

from datetime import date, datetime, timedelta
from pathlib import Path

from chipcost.extract.ecb_rates import RATES_90D_URL, SOURCE_NAME
from chipcost.sample.build._common import FIRST_RUN, fresh_writer

# Units of each currency per euro, flat but for the dollar, which weakens on day 5 (every
# price in euros then reads a little dearer in dollars), and the pound, which weakens on day 6.
USD_RATES = {1: 1.0812, 5: 1.0934}
FLAT = {"JPY": 162.35, "CHF": 0.9391, "CAD": 1.5126, "AUD": 1.6502, "SEK": 11.182}
GBP = {1: 0.8521, 6: 0.8604}


def _rate(rates: dict[int, float], day: int) -> float:
    return max((since, rate) for since, rate in rates.items() if day >= since)[1]


def _working_days(last: date, count: int = 90) -> list[date]:
    """The working days (Monday to Friday) of the `count` calendar days up to `last`, newest
    first, as the ECB lists them."""
    days = [last - timedelta(days=n) for n in range(count)]
    return [d for d in days if d.weekday() < 5]


def _day_of_run(day: date) -> int:
    """The sample run whose rates a published day carries (before the first run: the first)."""
    return max(1, (day - FIRST_RUN.date()).days + 2)


def rates_file(moment: datetime) -> bytes:
    """The 90-day file as fetched at `moment`: up to the working day before it."""
    last = (moment - timedelta(days=1)).date()
    cubes = []
    for day in _working_days(last):
        run = _day_of_run(day)
        rates = {"USD": _rate(USD_RATES, run), **FLAT, "GBP": _rate(GBP, run)}
        lines = "".join(
            f'<Cube currency="{code}" rate="{rate:.4f}"/>' for code, rate in rates.items()
        )
        cubes.append(f'<Cube time="{day:%Y-%m-%d}">{lines}</Cube>')
    return (
        '<?xml version="1.0" encoding="UTF-8"?>'
        "<!-- chipcost sample data: synthetic rates in the ECB file's real structure, not "
        "fetched from the ECB -->"
        '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
        'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">'
        "<gesmes:subject>Reference rates</gesmes:subject><gesmes:Sender>"
        "<gesmes:name>European Central Bank</gesmes:name></gesmes:Sender>"
        f"<Cube>{''.join(cubes)}</Cube></gesmes:Envelope>"
    ).encode()


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/ecb-rates/: the 90-day file, as fetch archives it."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    writer.write(
        rates_file(moment), RATES_90D_URL, fetched_at=moment, ext="xml", request={"method": "GET"}
    )
    return writer.directory
