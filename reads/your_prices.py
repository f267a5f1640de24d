"""Your prices, not list prices: your discounts ($CHIPCOST_DISCOUNTS) and your currency
(--currency, $CHIPCOST_CURRENCY) applied to what a read shows, never to what is stored.

The currency is converted in the read's query (chipcost.warehouse.fx: each price at the ECB
reference rate of its own day); the discounts here, on the rows it returns. Every adjusted row
keeps its list price in USD beside it and says which discount and which rate it got; a price
that cannot be converted is an error, never shown unconverted under another currency's name.
"""

from __future__ import annotations

import stat
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from datetime import date, datetime
from pathlib import Path, PurePath
from typing import TYPE_CHECKING

from chipcost.core.commands import RATES
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.names import cut, did_you_mean, resolve_chip_name, shown
from chipcost.core.questions import COMMAND_LINE, Voice
from chipcost.core.settings import CURRENCY_ENV, DISCOUNTS_ENV, process_variable
from chipcost.core.vocabulary import PRICING_MODELS
from chipcost.warehouse.fx import LIST_PRICE, MAX_RATE_AGE_DAYS, MONEY, RATE_COLUMNS

if TYPE_CHECKING:  # the discounts file's reader is imported when one is set
    import duckdb
    import polars as pl

    from chipcost.transform.discounts import Discount, Discounts

BASE = "USD"
# Columns added to an adjusted row: what it was before, and what was done to it.
LIST_COLUMN = LIST_PRICE[1]
DISCOUNT_COLUMN = "discount"
ADDED = (LIST_COLUMN, DISCOUNT_COLUMN, *RATE_COLUMNS)  # in this order, after a row's own
RULE_KEYS = ("provider", "pricing_model", "chip", "region")  # what a discount rule matches on


@dataclass(frozen=True)
class Rates:
    """The ECB rates a read converts at (units of one currency per US dollar by day): what the
    notes say about them, and the error for a day without one."""

    currency: str
    days: tuple[date, ...]
    rates: tuple[float, ...]
    corrected: frozenset[date] = frozenset()  # days a later ECB file changed the rate of
    voice: Voice = COMMAND_LINE  # names --currency as the asker did

    def missing(self, day: object) -> ChipcostError:
        """The error for a price of `day`, which no rate was in force on."""
        near = f"; the ECB rates held run {self.days[0]} to {self.days[-1]}" if self.days else ""
        return ChipcostError(
            f"no ECB reference rate for {self.currency} on {_day(day)} or the "
            f"{MAX_RATE_AGE_DAYS} days before it{near}: load the ECB's whole history once "
            "(CHIPCOST_ECB_RATES_URL=https://www.ecb.europa.eu/stats/eurofxref/"
            f"eurofxref-hist.xml {RATES}) or show US dollars "
            f"({self.voice.said('currency', BASE)})"
        )


def _factor(rule: Discount | None) -> float:
    return rule.factor if rule else 1.0


@dataclass(frozen=True)
class YourPrices:
    """What a read does to its list prices: nothing by default."""

    discounts: Discounts | None = None
    rates: Rates | None = None
    warnings: tuple[str, ...] = ()  # what is wrong with the discounts, a line each
    voice: Voice = COMMAND_LINE  # names --list-prices as the asker did

    @property
    def currency(self) -> str:
        return self.rates.currency if self.rates else BASE

    @property
    def converting(self) -> str | None:
        """The currency a read's query converts to (chipcost.warehouse.fx); None: US dollars."""
        return self.rates.currency if self.rates else None

    @property
    def active(self) -> bool:
        return self.discounts is not None or self.rates is not None

    def factor(self, offer: Mapping[str, object]) -> float:
        """What your discounts leave of an offer's list price (1: none applies)."""
        return _factor(self.discounts.rule_for(offer) if self.discounts is not None else None)

    def rows(
        self,
        rows: list[dict[str, object]],
        price: str | None = LIST_PRICE[0],
    ) -> list[dict[str, object]]:
        """Rows a query converted to this currency (or left in USD), after your discounts (in
        place): each keeping its USD list price and saying what it got, the ADDED columns
        last; unchanged when nothing applies. A row with no rate is refused (Rates.missing)."""
        if not self.active:
            return rows
        for row in rows:
            if self.rates is not None and row.get("usd_rate") is None:
                raise self.rates.missing(row.get("rate_day"))
            if price is not None and LIST_COLUMN not in row:
                row[LIST_COLUMN] = row.get(price)
            rule = self.discounts.rule_for(row) if self.discounts is not None else None
            factor = _factor(rule)
            for column in MONEY:  # rounded once, converted and discounted
                value = row.get(column)
                if isinstance(value, int | float) and not isinstance(value, bool):
                    row[column] = round(value * factor, 6)
            if self.discounts is not None:
                row[DISCOUNT_COLUMN] = rule.shown if rule else None
            for column in ADDED:  # last, in one order, whichever step added them
                if column in row:
                    row[column] = row.pop(column)
        return rows

    def frame(
        self,
        frame: pl.DataFrame,
        price: str | None = LIST_PRICE[0],
    ) -> pl.DataFrame:
        """`rows` for a frame: the same columns added, the same values."""
        import polars as pl

        if not self.active or frame.is_empty():
            return frame
        if self.rates is not None and frame["usd_rate"].null_count():
            raise self.rates.missing(frame.filter(pl.col("usd_rate").is_null())["rate_day"][0])
        added = []
        if price is not None and LIST_COLUMN not in frame.columns:
            added.append(pl.col(price).alias(LIST_COLUMN))
        rules = [None] * frame.height
        if self.discounts is not None:
            keys = [c for c in RULE_KEYS if c in frame.columns]
            rules = [self.discounts.rule_for(r) for r in frame.select(keys).iter_rows(named=True)]
            added.append(pl.Series(DISCOUNT_COLUMN, [r.shown if r else None for r in rules],
                                   dtype=pl.String))  # fmt: skip
        factors = pl.Series([_factor(r) for r in rules], dtype=pl.Float64)
        added += [  # rounded once, converted and discounted
            (pl.col(c).cast(pl.Float64) * factors).round(6).alias(c)
            for c in MONEY
            if c in frame.columns
        ]
        frame = frame.with_columns(added)
        own = [c for c in frame.columns if c not in ADDED]
        return frame.select(own + [c for c in ADDED if c in frame.columns])

    def notes(self, rows: Sequence[Mapping[str, object]] = ()) -> list[str]:
        """What the prices shown are, in a line each: the discounts, the rates."""
        said = []
        if self.discounts is not None:
            hit = sum(1 for r in rows if r.get(DISCOUNT_COLUMN))
            counted = f"; a rule applied to {hit} of {len(rows)} rows" if rows else ""
            said.append(
                f"after your discounts ({self.discounts.summary()}; {DISCOUNTS_ENV}="
                f"{PurePath(self.discounts.path).name}{counted}); "
                f"{self.voice.said('list_prices', True)} shows list prices"
            )
        if self.rates is not None:
            said.append(self.rate_note(rows))
        return said + list(self.warnings)

    def rate_note(self, rows: Sequence[Mapping[str, object]] = ()) -> str:
        used = sorted({(r["rate_day"], r["usd_rate"]) for r in rows if r.get("rate_day")})
        if not used:
            return f"in {self.currency} at the ECB reference rate of each price's own day"
        days = f"{used[0][0]}" if len(used) == 1 else f"{used[0][0]} to {used[-1][0]}"
        low, high = min(u[1] for u in used), max(u[1] for u in used)
        each = f"{low:.4f}" if low == high else f"{low:.4f} to {high:.4f}"
        fixed = sorted(str(d) for d, _ in used if self.rates and d in self.rates.corrected)
        return (
            f"in {self.currency} at the ECB reference rate of each price's own day: 1 USD = "
            f"{each} {self.currency} (ECB, {days}); list prices in USD: "
            + self.voice.said("currency", BASE)
            + (
                f"; the rate of {', '.join(fixed)} as a later ECB file corrected it"
                if fixed
                else ""
            )
        )

    def heading(self) -> str:
        """'EUR, after your discounts': what the price columns are in."""
        return self.currency + (", after your discounts" if self.discounts is not None else "")


def your_prices(
    con: duckdb.DuckDBPyConnection,
    *,
    currency: str | None = None,
    list_prices: bool = False,
    providers: Sequence[str] = (),
    voice: Voice = COMMAND_LINE,
) -> YourPrices:
    """What to do to the prices of a read: the discounts file named by $CHIPCOST_DISCOUNTS
    (unless `list_prices`), and `currency` (else $CHIPCOST_CURRENCY; US dollars by default)."""
    discounts, warnings = None, ()
    path = process_variable(DISCOUNTS_ENV)
    if path and not list_prices:
        from chipcost.reads.discount_regions import unknown_regions

        discounts = load_discounts(path, providers)
        warnings = unknown_regions(con, discounts)
    if currency is not None and not isinstance(currency, str):  # 0 or False is no code
        said = voice.said("currency", shown(currency))
        raise UsageError(f"{said}: give a currency code such as EUR (None: US dollars)")
    asked = currency if currency is not None else process_variable(CURRENCY_ENV)
    given_by = voice if currency is not None else None  # else the variable set it
    rates = currency_rates(con, asked, given_by) if asked else None
    return YourPrices(discounts=discounts, rates=rates, warnings=warnings, voice=voice)


def for_read(
    con: duckdb.DuckDBPyConnection,
    currency: str | None,
    list_prices: bool = False,
    *,
    voice: Voice = COMMAND_LINE,
) -> YourPrices:
    """your_prices with the providers a discount may name (read only when a file is set)."""
    providers: list[str] = []
    if process_variable(DISCOUNTS_ENV) and not list_prices:
        from chipcost.extract import price_providers

        providers = price_providers()
    return your_prices(
        con, currency=currency, list_prices=list_prices, providers=providers, voice=voice
    )


# A discounts file is a few dozen rules; one past this is no discounts file.
MAX_DISCOUNTS_BYTES = 1 << 20


def load_discounts(path: str, providers: Sequence[str]) -> Discounts:
    file = Path(path).expanduser()
    try:
        # Looked at before it is opened: a FIFO would block the read, /dev/zero never end.
        found = file.stat()
        if not stat.S_ISREG(found.st_mode) or found.st_size > MAX_DISCOUNTS_BYTES:
            what = "larger than 1 MB" if stat.S_ISREG(found.st_mode) else "not a regular file"
            raise ChipcostError(
                f"{DISCOUNTS_ENV}={path}: {what} (a device, a FIFO, a directory or the wrong "
                "file); point it at your discounts file (docs/your-prices.md) or unset it"
            )
        text = file.read_text(encoding="utf-8")
    except FileNotFoundError:
        raise ChipcostError(
            f"{DISCOUNTS_ENV}={path}: no such file; point it at your discounts file "
            "(docs/your-prices.md, 'Your discounts') or unset it"
        ) from None
    except (OSError, UnicodeDecodeError) as exc:
        raise ChipcostError(f"{DISCOUNTS_ENV}={path}: cannot read it ({exc})") from None
    from chipcost.extract import registry
    from chipcost.transform.discounts import Vocabulary, read_discounts

    # a provider named as --provider takes it: by its title too ('Vast.ai')
    titles = {source.title: source.provider for source in registry().values() if source.title}
    known = Vocabulary(providers, PRICING_MODELS, resolve_chip_name, titles)
    return read_discounts(text, path, known)


def currency_rates(
    con: duckdb.DuckDBPyConnection, asked: str, voice: Voice | None = COMMAND_LINE
) -> Rates | None:
    """The rates of the currency asked for; None for US dollars (no conversion). `voice`: the
    asker's, who gave it (None: $CHIPCOST_CURRENCY gave it)."""
    from chipcost.warehouse.fx import currencies, per_usd

    def said(value: str) -> str:
        return voice.said("currency", value) if voice else f"{CURRENCY_ENV}={value}"

    if not isinstance(asked, str):
        raise UsageError(f"{said(cut(repr(asked)))}: give a currency code, e.g. EUR")
    from chipcost.transform.tokens import SYMBOLS

    # the sign the tables print the currency with ('€/chip-hr', '€0.1647') names it too
    code = {sign: c for c, sign in SYMBOLS.items()}.get(asked.strip(), asked.strip().upper())
    if code == BASE:
        return None
    known = currencies(con)
    if not known:
        raise ChipcostError(
            f"{said(cut(asked))}: the warehouse holds no exchange rates yet; run `chipcost "
            "collect` (its ecb-rates source reads the ECB's reference rates)"
        )
    if code not in known:
        raise UsageError(
            f"{said(cut(asked))}: no ECB reference rate for it{did_you_mean(code, known)}; "
            f"currencies: {', '.join(known)}"
        )
    table = per_usd(con, code)
    corrected = frozenset(t[0] for t in table if t[3])
    days, rates = tuple(t[0] for t in table), tuple(t[1] for t in table)
    return Rates(code, days, rates, corrected, voice=voice or COMMAND_LINE)


def _day(value: object) -> date:
    if isinstance(value, datetime):
        return value.date()
    if isinstance(value, date):
        return value
    if isinstance(value, str):
        return date.fromisoformat(value[:10])
    raise ChipcostError(f"a price without a day ({value!r}) cannot be converted")
