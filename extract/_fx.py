"""The ECB's daily euro reference rates: how a source priced in euros reaches US dollars."""

from __future__ import annotations

import re
from dataclasses import dataclass

from chipcost.core.payload import Payload

# Published every working day around 16:00 CET; public, no key.
ECB_DAILY_URL = "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-daily.xml"
# <Cube time='2017-03-08'> ... <Cube currency='USD' rate='1.0556'/>: read by pattern, not by
# an XML parser, so a hostile document can expand no entities.
_DAY = re.compile(r"""<Cube\s+time=['"](\d{4}-\d{2}-\d{2})['"]""")
_USD = re.compile(r"""<Cube\s+currency=['"]USD['"]\s+rate=['"](\d+(?:\.\d+)?)['"]""")


@dataclass(frozen=True)
class EurUsd:
    """US dollars per euro on one day, and the payload it was read from."""

    rate: float
    day: str
    ref: str

    def usd(self, eur: float) -> float:
        """Not rounded to the cent: the price is divided by its chips later, and a cent
        rounded first is 0.45% of a price under a dollar (kept to a millionth of a dollar)."""
        return round(eur * self.rate, 6)


def eur_usd(payload: Payload) -> EurUsd | None:
    """The USD rate of an archived ECB daily file; None when it has none (an error page)."""
    text = payload.data.decode("utf-8", errors="replace")
    day, usd = _DAY.search(text), _USD.search(text)
    if day is None or usd is None or not 0.2 < float(usd.group(1)) < 5:
        return None
    return EurUsd(float(usd.group(1)), day.group(1), payload.ref or payload.name)
