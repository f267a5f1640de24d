"""The pandera schema of price records, and the split of a batch into loadable rows and rejects."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Mapping
from dataclasses import dataclass, replace
from functools import cache

import pandera.polars as pa
import polars as pl

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chips, largest_rental
from chipcost.core.frames import records_frame
from chipcost.core.record import STORED_CURRENCIES, PriceRecord, Reject
from chipcost.core.vocabulary import OFFER_KEY, PAYMENTS, PLANS, PRICING_MODELS, TERM_PATTERN

# Per-chip hourly prices outside this band are almost surely a parsing or unit error
# (a monthly price read as hourly, a per-instance price divided twice). The cheapest real
# rates are ~$0.05/chip-hour (Inferentia1 3yr reserved), the dearest ~$20 (GB200 on demand).
MIN_PER_CHIP_HOUR = 0.01
MAX_PER_CHIP_HOUR = 150.0
# A provider's names (region, zone, instance type, SKU) are tens of characters (the longest
# the sample's 31 sources hold: 52); longer is a misread page, or a page made to fill every
# report, e-mail and table it reaches (a region of 120,000 characters emptied the e-mail).
MAX_NAME = 200


def _finite(data: pa.PolarsData) -> pl.LazyFrame:
    return data.lazyframe.select(pl.col(data.key).is_finite())


def _price_schema(sources: Mapping[str, str]) -> pa.DataFrameSchema:
    return _schema_of(tuple(sorted(sources.items())))


@cache
def _schema_of(sources: tuple[tuple[str, str], ...]) -> pa.DataFrameSchema:
    """The schema for these (source, provider) pairs, made once: pandera copies each column
    as it builds one (about 1 ms of a validation's 29)."""
    providers = sorted({provider for _, provider in sources})
    names = sorted(source for source, _ in sources)
    text = {"nullable": False}
    return pa.DataFrameSchema(
        {
            "observed_at": pa.Column(pl.Datetime("us", "UTC"), **text),
            # The providers the registered sources declare (chipcost.extract.registry()).
            "provider": pa.Column(pl.String, pa.Check.isin(providers), **text),
            "source": pa.Column(pl.String, pa.Check.isin(names), **text),
            "region": pa.Column(pl.String, pa.Check.str_length(1, MAX_NAME), **text),
            "zone": pa.Column(pl.String, pa.Check.str_length(0, MAX_NAME), **text),
            "instance_type": pa.Column(pl.String, pa.Check.str_length(1, MAX_NAME), **text),
            "sku": pa.Column(pl.String, pa.Check.str_length(0, MAX_NAME), nullable=True),
            "chip": pa.Column(
                pl.String, pa.Check.isin(sorted(canonical_chips() | {UNKNOWN_CHIP})), **text
            ),
            # Below 1 for a fractional GPU (AWS g6f: 1/8 of an L4), never 0 or negative, and
            # never more than the largest set of chips the catalog knows rented as one.
            "chip_count": pa.Column(
                pl.Float64, [pa.Check.gt(0), pa.Check.le(largest_rental()[0])], **text
            ),
            "pricing_model": pa.Column(pl.String, pa.Check.isin(PRICING_MODELS), **text),
            "term": pa.Column(pl.String, pa.Check.str_matches(TERM_PATTERN), **text),
            "payment": pa.Column(pl.String, pa.Check.isin(PAYMENTS), **text),
            "plan": pa.Column(pl.String, pa.Check.isin(PLANS), **text),
            "price_per_hour": pa.Column(
                pl.Float64,
                [pa.Check(_finite, name="finite"), pa.Check.gt(0)],
                **text,
            ),
            "upfront": pa.Column(pl.Float64, pa.Check.ge(0), nullable=True),
            "currency": pa.Column(pl.String, pa.Check.isin(STORED_CURRENCIES), **text),
            "price_per_chip_hour": pa.Column(
                pl.Float64,
                pa.Check.in_range(MIN_PER_CHIP_HOUR, MAX_PER_CHIP_HOUR),
                nullable=True,
            ),
        },
        strict=False,
    )


@dataclass
class Validated:
    records: list[PriceRecord]
    rejects: list[Reject]
    # The loadable records as the frame the checks ran on (warehouse column order), so the
    # loader does not build it again.
    frame: pl.DataFrame | None = None


def validate_records(records: list[PriceRecord], sources: Mapping[str, str]) -> Validated:
    """Split records into those that pass the schema and duplicate checks, and rejects.

    `sources` maps each registered source to its provider (chipcost.extract.source_providers()).
    """
    return validate_batches([records], sources)[0]


def validate_batches(
    batches: list[list[PriceRecord]], sources: Mapping[str, str]
) -> list[Validated]:
    """`validate_records` of each batch (one per source), with one pandera validation for all.

    pandera's cost is mostly per call (a dozen lazy queries per column), not per row: a run
    of two dozen sources validated at once takes about what one source alone does. A record
    is judged as in its batch alone: the checks are per row, duplicates are per batch.
    """
    records = [r for batch in batches for r in batch]
    reasons: dict[int, list[str]] = defaultdict(list)
    offset = 0
    for batch in batches:
        _duplicate_reasons(batch, reasons, offset)
        offset += len(batch)
    frame = records_frame(_storable(records, reasons))
    if records:
        _schema_reasons(frame, sources, reasons)
    found, offset = [], 0
    for batch in batches:
        found.append(_split(records, frame, reasons, offset, len(batch)))
        offset += len(batch)
    return found


def _schema_reasons(
    frame: pl.DataFrame, sources: Mapping[str, str], reasons: dict[int, list[str]]
) -> None:
    checked = frame.with_columns(
        (pl.col("price_per_hour") / pl.col("chip_count")).alias("price_per_chip_hour")
    )
    try:
        _price_schema(sources).validate(checked, lazy=True)
    except pa.errors.SchemaErrors as errors:
        for case in errors.failure_cases.iter_rows(named=True):
            if case["index"] is None:
                continue
            reasons[int(case["index"])].append(_describe(case))


def _split(
    records: list[PriceRecord],
    frame: pl.DataFrame,
    reasons: dict[int, list[str]],
    offset: int,
    length: int,
) -> Validated:
    """One batch's records, rejects and frame rows, from the positions offset..offset+length."""
    positions = range(offset, offset + length)
    good = [records[i] for i in positions if i not in reasons]
    rejects = [
        _refused(records[i], "; ".join(dict.fromkeys(reasons[i])))
        for i in positions
        if i in reasons
    ]
    part = frame.slice(offset, length)
    if rejects:
        part = part.filter(pl.Series([i not in reasons for i in positions], dtype=pl.Boolean))
    return Validated(good, rejects, part)


def _duplicate_reasons(
    records: list[PriceRecord], reasons: dict[int, list[str]], offset: int = 0
) -> None:
    """Within one run an offer key appears once per source: repeats are refused.

    An exact repeat keeps its first row; repeats that disagree on the price are all refused,
    because nothing tells which one is right.
    """
    seen: dict[tuple[str, ...], list[int]] = defaultdict(list)
    for index, record in enumerate(records):
        seen[(record.source, *record.offer_key())].append(index)
    for indexes in seen.values():
        if len(indexes) == 1:
            continue
        # A price is its amount, upfront and currency: 2.80 EUR and 2.80 USD disagree.
        prices = {
            (records[i].price_per_hour, records[i].upfront, records[i].currency) for i in indexes
        }
        if len(prices) == 1:
            for i in indexes[1:]:
                reasons[offset + i].append("duplicate offer key in this run (first row kept)")
        else:
            for i in indexes:
                reasons[offset + i].append(
                    "offer key appears with different prices in one run: "
                    + ", ".join(f"{p:g} {c}" for p, _, c in sorted(prices, key=str))
                )


def _describe(case: dict) -> str:
    column, check, value = case["column"], case["check"], case["failure_case"]
    if check == "not_nullable":
        return f"{column} is missing or NaN"
    if column == "price_per_chip_hour":
        return (
            f"per-chip hourly price {value} outside the plausible range "
            f"{MIN_PER_CHIP_HOUR}-{MAX_PER_CHIP_HOUR} USD"
        )
    if column == "currency":
        return f"currency {value} is not one prices are stored in ({', '.join(STORED_CURRENCIES)})"
    if column == "chip_count" and check.startswith("less_than"):
        most, what = largest_rental()
        return (
            f"chip_count {float(value):g} is more chips than any set rented as one "
            f"({most:g}: {what}): "
            "a misread count; add the offer's row to the catalog if it really is one rental"
        )
    if column == "chip":
        return f"chip {value!r} is not a canonical chip (core/data/chips.csv)"
    if check.startswith("str_length") and isinstance(value, str) and len(value) > MAX_NAME:
        return (
            f"{column} of {len(value):,} characters ({value[:40]!r}...): longer than any "
            f"provider's name ({MAX_NAME} at most)"
        )
    return f"{column}={value!r} fails {check}"


def _storable(records: list[PriceRecord], reasons: dict[int, list[str]]) -> list[PriceRecord]:
    """The records, each whose text UTF-8 cannot hold (a lone surrogate, which a provider's
    escaped JSON can carry) given its reason and, in the frame only, the text made storable
    (it is rejected): one such row is one reject, not the whole source failed."""
    # One encode of every text at once: a lone surrogate anywhere fails it, and only then
    # is each text looked at (a run's some 3,000 records hold 300,000 texts).
    texts = [v for record in records for v in vars(record).values() if isinstance(v, str)]
    if _encodes("\n".join(texts)):
        return list(records)
    found = []
    for n, record in enumerate(records):
        bad = [
            name
            for name, value in vars(record).items()
            if isinstance(value, str) and not _encodes(value)
        ]
        if bad:
            reasons[n].append(f"text that cannot be stored (a lone surrogate) in {', '.join(bad)}")
            fixed = {k: _storable_text(vars(record)[k]) for k in bad}
            record = replace(record, **fixed)
        found.append(record)
    return found


def _encodes(text: str) -> bool:
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        return False
    return True


def _refused(record: PriceRecord, reason: str) -> Reject:
    """A record refused: its reject names its sku and offer, which stay open (not withdrawn)
    alike in its load and when `remove-run` restates the history from the rejects kept; their
    texts made storable, as above."""
    found = Reject.of_record(record, reason, _record_row(record))
    offer = {name: _storable_text(value) for name, value in found.offer.items()}
    return replace(found, sku=_storable_text(found.sku), offer=offer)


def _storable_text(text: str) -> str:
    return text.encode("utf-8", "replace").decode()


def _record_row(record: PriceRecord) -> dict:
    row = {k: getattr(record, k) for k in (*OFFER_KEY, "chip", "chip_count", "price_per_hour")}
    row.update(upfront=record.upfront, currency=record.currency, sku=record.sku)
    return row
