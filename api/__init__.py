"""The Python API: the warehouse's prices, costs and history as polars DataFrames, read-only.

Every function opens the warehouse read-only (default: $CHIPCOST_DB, else
$CHIPCOST_DATA_DIR/chipcost.duckdb, else ./data/chipcost.duckdb), reads, and closes it; none
starts Prefect or touches the network. Each read is answered by chipcost.reads.answers, as
the command line's is, and names work as there: chip families (H100, A100, Trainium), comma
lists or lists, any case. docs/api.md has examples.
"""

from __future__ import annotations

import functools
import os
import warnings
from collections.abc import Callable, Iterable, Mapping, Sequence
from datetime import date
from inspect import signature
from itertools import islice
from pathlib import Path
from types import UnionType
from typing import Any, ParamSpec, Union, get_args, get_origin

import polars as pl

from chipcost.core import asks
from chipcost.core.errors import UsageError
from chipcost.core.frames import money_named
from chipcost.core.names import shown
from chipcost.core.questions import Question
from chipcost.reads import answers

P = ParamSpec("P")


def _answers(
    spec: Callable[P, object],
) -> Callable[[Callable[..., pl.DataFrame]], Callable[P, pl.DataFrame]]:
    """The API function of a declared read: the typed signature of `spec` (chipcost.core.
    asks: what static checkers and IDEs read), the docstring of the function it wraps, which
    receives every declared keyword by name (defaults filled in), each value checked once, in
    the words of the API, naming its keyword."""
    question, takes = Question.of(spec), signature(spec)

    def answer(run: Callable[..., pl.DataFrame]) -> Callable[P, pl.DataFrame]:
        @functools.wraps(spec)
        def call(*args: P.args, **kwargs: P.kwargs) -> pl.DataFrame:
            try:
                given = takes.bind(*args, **kwargs).arguments
            except TypeError as exc:  # as any Python call's: what the signature refuses
                raise TypeError(f"{question.command}() {exc}{_why_not(question, kwargs)}") from None
            for name, value in given.items():
                given[name] = value = _taken_once(name, value)
                _check_type(question, name, value)
            _old_keywords(question, given)
            return run(**question.given(given))

        call.__doc__ = run.__doc__
        call.__module__ = __name__
        return call

    return answer


def _why_not(question: Question, given: Mapping[str, Any]) -> str:
    """Why the read takes none of the keywords given that other reads take, where it is said
    (chipcost.core.asks.NOT_TAKEN, as the command line says it): '' otherwise."""
    for name in given:
        if why := asks.NOT_TAKEN.get((question.command, f"--{name.replace('_', '-')}")):
            return f": {why}"
    return ""


def _old_keywords(question: Question, given: Mapping[str, Any]) -> None:
    """An old keyword is taken with a DeprecationWarning naming the new one."""
    for name in given:
        if (new := question.field(name).same_as) is not None:
            warnings.warn(f"{name}= is the old name of {new}=", DeprecationWarning, stacklevel=3)


# What a value of each kind must be where nothing later says so: an empty list is no filter
# that keeps every row, and a flag is True or False ('no' is not taken as true). Wrong types
# of the other kinds are refused, naming the keyword, where each is read.
_KIND_CHECKS: dict[str, tuple[Callable[[Any], bool], str]] = {
    "names": (
        lambda v: not isinstance(v, list | tuple) or bool(v),
        "a name, a comma list or a non-empty list of names",
    ),
    "flag": (lambda v: isinstance(v, bool), "True or False"),
    "switch": (lambda v: isinstance(v, bool), "True, False or None"),
}


# The most values one keyword takes: a list of names longer than any catalog, or an endless
# iterator (itertools.count()), is refused rather than read for ever.
MAX_VALUES = 10_000
# Whole numbers past this are no price, count or size (and DuckDB's BIGINT ends here).
_LARGEST = 2**63
_SCALARS = (str, int, float, date, os.PathLike)
_WORDS = {str: "text", float: "a number", int: "a whole number", bool: "True or False",
          date: "a date", Sequence: "a list", os.PathLike: "a path"}  # fmt: skip


def _taken_once(name: str, value: Any) -> Any:
    """An iterable other than text, a list or a tuple (an iterator, a generator, a set, a
    range) as a list, read once, here, as polars takes one: every later step sees the same
    values (an iterator read twice is empty the second time: no filter, every row)."""
    if value is None or isinstance(value, str | bytes | bytearray | Mapping | os.PathLike):
        return value
    if not isinstance(value, Iterable):
        return value
    items = value if isinstance(value, list | tuple) else list(islice(value, MAX_VALUES + 1))
    if len(items) > MAX_VALUES:
        raise UsageError(f"{name}: more than {MAX_VALUES:,} values: give fewer")
    return items


def _types(annotation: Any) -> tuple[type, ...]:
    """The classes a declared type takes (`float` takes int too; `Sequence[str]` a
    Sequence), None left out."""
    members = get_args(annotation) if get_origin(annotation) in (Union, UnionType) else ()
    found: list[type] = []
    for member in members or (annotation,):
        kind = get_origin(member) or member
        if kind is type(None):
            continue
        found += [int, float] if kind is float else [os.PathLike] if kind is Path else [kind]
    return tuple(dict.fromkeys(found))


def _check_text(name: str, value: Any) -> None:
    """Text Unicode cannot hold (a lone surrogate: bytes a file or a terminal gave that are
    not UTF-8) is refused naming the keyword: DuckDB and the terminal cannot take it."""
    for item in value if isinstance(value, list | tuple) else [value]:
        if isinstance(item, str):
            try:
                item.encode("utf-8")
            except UnicodeEncodeError:
                said = shown(item.encode("utf-8", "backslashreplace").decode("ascii"))
                raise UsageError(f"{name}: {said} is not UTF-8 text: give it as text") from None


def _check_type(question: Question, name: str, value: Any) -> None:
    _check_text(name, value)
    field = question.field(name)
    check = _KIND_CHECKS.get(field.kind)
    if value is None:
        return  # a required one is refused where it is read, in its own words
    if field.required and field.kind in ("argument", "text"):
        if not isinstance(value, str):  # sql(5): what no read can take
            raise UsageError(f"{name}={shown(value)}: give text")
        return
    if check is not None and field.query != "chip_counts":
        if not check[0](value):
            raise UsageError(f"{name}={value!r}: give {check[1]}")
        return
    if field.kind == "names" or field.annotation is None:
        return  # names: each is checked where it is read, naming it (chipcost.core.names)
    # A value of the wrong kind of scalar ('15%' for a fraction, 5 for a chip) is refused
    # where it is read, in that field's words; a container or an object of any other class
    # is refused here, before anything reads it.
    takes = _types(field.annotation)
    if os.PathLike in takes and not isinstance(value, str | os.PathLike):  # db=5: no path
        raise UsageError(f"{name}={shown(value)}: give text or a path")
    if not isinstance(value, (*_SCALARS, *takes)):
        words = [_WORDS[t] for t in takes if t in _WORDS and not (t is int and float in takes)]
        raise UsageError(f"{name}={shown(value)}: give {' or '.join(words)}")
    if isinstance(value, int) and not isinstance(value, bool) and abs(value) >= _LARGEST:
        raise UsageError(f"{name}={shown(value)}: too large; give a finite number")


@_answers(asks.prices)
def prices(**asked: Any) -> pl.DataFrame:
    """Current per-chip hourly prices, cheapest first per chip, pricing model and term.

    One row per offer: chip, provider, region, zone, instance_type, chip_count, memory_gb (per
    chip), pricing_model, term, payment, plan, price_per_chip_hour, price_per_hour, upfront
    (per instance, USD), source, valid_from, last_seen_at, sku, payload_ref (the archived
    payload the price was read from), vcpus, ram_gb and disk_gb (the host, local disk; None
    where the source publishes none), gpu_alone (True where the price leaves the host's vCPUs,
    memory and disk out, billed beside it), source_as_of (the source's last
    successful run) and sample (bundled sample data). min_memory is GB per chip, chip_count the
    chips per instance, min_vcpus/min_ram the host's vCPUs and memory (GB; an offer without
    them is left out), min_price/max_price per chip-hour in the currency asked (USD
    unless currency=), on the prices returned (after your discounts), to the four decimals
    tables show (max_price=4.1624 keeps an offer at 4.16240011), spot True/False to keep only/no
    spot prices; sort "price", "chip", "provider" or "region" (default: price when
    the chip names stand for several chips, such as "H100", else chip). instance names
    instance types (p5.48xlarge, a3-highgpu-8g); a current offer's instance type given as
    chip is read as instance. An unknown name, or a value a keyword does not take (spot="no"),
    raises chipcost.core.errors.UsageError, a ChipcostError.

    Your prices (docs/your-prices.md): with $CHIPCOST_DISCOUNTS set, the money columns are after
    your discounts and `discount` says which ("10% EDP 2026"), `list_prices=True` sets the
    file aside; `currency` ('EUR'; default $CHIPCOST_CURRENCY, else USD) converts them at
    the ECB reference rate of each price's day (`currency`, `usd_rate`, `rate_day`). Either
    way `list_price_per_chip_hour_usd` keeps the list price.

    Each offer once: a spot price priced per zone is its zone's row, `cheapest_in_region`
    True on the region's cheapest zone (False on its others, null where an offer has no zone),
    so sums and counts over the frame count it once.

    by="chip" gives one row per chip instead, its cheapest offer anywhere the other keywords
    leave (price_per_chip_hour, where, how it is paid, on what instance, `estimate`, `sample`,
    its count of `offers`, `currency`), slices of a GPU and GPUs of no known chip left out,
    government regions too unless region= names one; by="provider" or "region" the cheapest on
    demand, spot and commitment price per chip side by side: the rows `chipcost prices --by ...
    --format json` writes. by="offer" (or
    none) is every offer, as above.
    """
    from chipcost.reads.price_glance import every_offer, glanced

    if every_offer(asked["by"]):
        return answers.prices(asked, api=True).found.frame  # type: ignore[union-attr]
    found = answers.prices(asked, api=True, rows=True).found
    glance = glanced(
        found.rows,  # type: ignore[union-attr]
        asked["by"],
        "hour",
        said=f"by={asked['by']}",
        regions_asked=bool(asked["region"]),
        currency=found.mine.currency,
        mine=found.mine,  # your discounts and rates: each price's list price beside it
    )
    return pl.DataFrame([g.row for g in glance], infer_schema_length=None)


@_answers(asks.cost)
def cost(**asked: Any) -> pl.DataFrame:
    """Cost per million tokens of `model` ('llama-3-70b') for `workload` ('training' or
    'inference') per chip and pricing model, cheapest first, those that can hold the model
    before those that cannot (`fits`, `memory_needed_gb`, `instance_memory_gb`).

    tokens ('300e9', '300B' or a number) adds cost_for_tokens; baseline (a chip) the
    saving against it; migration_cost (USD) the break-even against it in tokens, and with
    daily_tokens in days; overhead the extra share of chip-hours (0.15 training, 0
    inference by default); speed (inference) the tokens/s per user each chip's figure must
    reach: a number, 'server' (5, the default), 'interactive' (25) or 'max' (maximum
    throughput); throughput_at_speed says whether it does. Columns: those of the
    cost_per_token view plus the ranking's,
    each with the same type whatever the rows (an empty column too), so that rankings
    concatenate. currency and list_prices as in prices(): the ranking is made on your prices
    (a discount may reorder it), migration_cost is then in that currency. max_interruption
    ('10%' or 10) keeps spot offers only where AWS's frequency of interruption bucket tops
    out at that percent or less (`interruption` says the bucket).
    """
    ranking = answers.cost(asked, api=True)
    return money_named(ranking.frame(), str(ranking.header["currency"]))


@_answers(asks.compare)
def compare(**asked: Any) -> pl.DataFrame:
    """Is chip_a ('Trainium2') cheaper per token than chip_b ('H100-SXM') for `model` and
    `workload`? One row per pricing model both have an offer on, as `chipcost compare` answers
    it: verdict (cheaper, dearer or as cheap where both chips are measured at one point,
    verdict_point; else cannot say), change_pct (chip_a's cost per token / chip_b's - 1, in
    percent, negative is cheaper; None without a verdict), in_words, break_even_for and
    break_even_tokens_per_second_per_chip (what that chip must reach at the measured side's
    point to cost as little per token), its share of the figure it is set against, the
    derived estimate there (derived_estimate, _low, _high, _error), and each offer
    (a_..., b_...) with its figure's kind, operating point,
    precision and range. speed, region, pricing_model, provider, currency and list_prices as
    in cost(). A chip without a price or a figure raises chipcost.core.errors.ChipcostError.
    """
    result = answers.compare(asked, api=True)
    return money_named(result.frame(), str(result.ranking.header["currency"]))


@_answers(asks.index)
def index(**asked: Any) -> pl.DataFrame:
    """The daily rental price index per chip (docs/price-index.md): per chip, pricing_model
    ('on_demand' by default, 'spot', 'commitment': any 1-year commitment, its `term` '1yr')
    and day, `level` (the median of each provider's cheapest per-chip price), `constituents`,
    `change_1d_pct`/`_7d_pct`/`_30d_pct` (percent),
    `constituents_changed`, `prices` (each provider's price), `left_out` (jump-and-back
    glitches, failing sources past the stale limit) and `failing` (constituents whose source
    failed its latest attempt). Default days: the 30 to `until` (or the newest);
    `latest=True` gives each chip's newest day only. currency ('EUR'; default
    $CHIPCOST_CURRENCY) states each day's level at that day's ECB rate and the changes between
    converted levels. Constituents left out of some days for want of an exchange rate are
    named, with those days, in a chipcost.core.errors.MissingRateWarning."""
    from chipcost.reads.price_index import shown

    answer = answers.index(asked, api=True)
    _warn_unrated(answer.left_out)
    return shown(answer.frame)


@_answers(asks.history)
def history(**asked: Any) -> pl.DataFrame:
    """Each chip's cheapest per-chip price per pricing model per UTC day.

    Columns: day, chip, pricing_model, price_per_chip_hour, and where that price was
    (provider, region, zone, instance_type, chip_count, term, payment, plan, source) and how
    many offers were priced that day. since/until are inclusive days ('2026-11-01' or dates).
    currency ('EUR'; default $CHIPCOST_CURRENCY) converts each day's price at that day's ECB
    reference rate (list_price_per_chip_hour_usd, currency, usd_rate, rate_day added). A
    price left out of some days for want of an exchange rate is named, in its own currency
    with those days, in a chipcost.core.errors.MissingRateWarning.
    """
    found = answers.history(asked, api=True).found
    _warn_unrated(found.freshness.unconverted)
    return found.frame


def _warn_unrated(rows: Sequence[dict[str, object]]) -> None:
    """A MissingRateWarning naming the prices a daily read left out of some days for want of
    a rate (none: no warning), as the command line says them under its rows."""
    if rows:
        from chipcost.core.errors import MissingRateWarning
        from chipcost.reads.price_notes import left_out_words
        from chipcost.warehouse.fx import unrated_of

        said = left_out_words(unrated_of(rows), rows)
        warnings.warn(f"no exchange rate: {said}", MissingRateWarning, stacklevel=4)


@_answers(asks.sql)
def sql(**asked: Any) -> pl.DataFrame:
    """An ad hoc read-only query's rows as a polars frame: one SELECT (or an EXPLAIN of one),
    under `chipcost sql`'s guard and limits. Anything else (INSERT, ATTACH, COPY, SET, ...),
    a file, another database or an extension is refused with a UsageError, and the read
    runs within $CHIPCOST_SQL_TIMEOUT, _MEMORY and _TEMP (60 s, 2GB, 1GB). An INTERVAL
    column comes as DuckDB's text, whatever its values: polars has no type for its months and
    days. No rows: an empty frame."""
    return answers.sql(asked, api=True)


def sources(db: str | Path | None = None) -> pl.DataFrame:
    """Every registered source with its last successful run, age in hours and staleness;
    before the first collection (no db given, no warehouse yet), the registered sources alone."""
    if db is not None and not isinstance(db, str | os.PathLike):
        raise UsageError(f"db={shown(db)}: give text or a path")
    return answers.sources(db, api=True)
