"""Your discounts: a file of negotiated percentages off list prices, read and matched; pure.

A rule names a provider and, optionally, a pricing model, a chip (or family) and a region; it
takes `percent` off the list price of every offer it matches. Where two rules match one offer,
the narrower wins (aws on-demand H100-SXM before aws); two rules neither of which is narrower
(aws H100-SXM and aws us-east-1) would leave an offer's price to chance, so the file is refused.
Nothing here stores anything: list prices stay list prices, the discount is applied on read.

TOML (one table per rule):

    [[discount]]
    provider = "aws"
    percent = 10
    label = "EDP 2026"          # optional: the file's name
    pricing_model = "on_demand"  # optional, as are chip and region

CSV: a header naming provider and percent, and any of pricing_model, chip, region, label.
"""

from __future__ import annotations

import csv
import functools
import io
import math
import re
import tomllib
from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field, replace
from pathlib import PurePath

from chipcost.core.clean import printable
from chipcost.core.errors import ChipcostError
from chipcost.core.names import did_you_mean, name_among
from chipcost.transform.discount_overlaps import check_one_rule_per_offer

FIELDS = ("provider", "pricing_model", "chip", "region", "percent", "label")
SCOPE = ("pricing_model", "chip", "region")


@dataclass(frozen=True)
class Discount:
    """One rule: `percent` off the list prices of the offers it matches."""

    provider: str
    percent: float
    label: str
    line: int  # where the rule starts in its file
    pricing_model: str | None = None
    chips: frozenset[str] | None = None  # a family stands for its chips
    chip: str | None = None  # as written
    region: str | None = None

    @property
    def factor(self) -> float:
        return 1 - self.percent / 100

    def matches(self, offer: Mapping[str, object]) -> bool:
        return (
            str(offer.get("provider")) == self.provider
            and (
                self.pricing_model is None or str(offer.get("pricing_model")) == self.pricing_model
            )
            and (self.chips is None or str(offer.get("chip")) in self.chips)
            and (self.region is None or str(offer.get("region") or "").lower() == self.region)
        )

    @property
    def scope(self) -> str:
        """'aws on_demand H100-SXM us-east-1': what the rule covers, as written."""
        parts = [self.provider, self.pricing_model, self.chip, self.region]
        return " ".join(p for p in parts if p)

    @property
    def shown(self) -> str:
        """'10% EDP 2026': the discount as a row shows it."""
        return f"{self.percent:g}% {self.label}"

    def scope_values(self) -> tuple[frozenset | None, ...]:
        return (
            None if self.pricing_model is None else frozenset({self.pricing_model}),
            self.chips,
            None if self.region is None else frozenset({self.region}),
        )

    def overlaps(self, other: Discount) -> bool:
        """Whether some offer could match both rules."""
        return self.provider == other.provider and all(
            a is None or b is None or a & b
            for a, b in zip(self.scope_values(), other.scope_values(), strict=True)
        )

    def within(self, other: Discount) -> bool:
        """Whether every offer this rule matches, `other` matches too."""
        return self.provider == other.provider and all(
            b is None or (a is not None and a <= b)
            for a, b in zip(self.scope_values(), other.scope_values(), strict=True)
        )


@dataclass(frozen=True)
class Discounts:
    """The rules of one file, checked: at most one narrowest rule matches any offer."""

    rules: tuple[Discount, ...]
    path: str

    def rule_for(self, offer: Mapping[str, object]) -> Discount | None:
        """The narrowest rule matching the offer, or None (its list price stands)."""
        found = [r for r in self.rules if r.matches(offer)]
        for rule in found:
            if all(rule.within(other) for other in found):
                return rule
        return None  # unreachable for a checked file: two matching rules nest

    @property
    def labels(self) -> list[str]:
        return list(dict.fromkeys(r.label for r in self.rules))

    def summary(self) -> str:
        """'EDP 2026: aws 10%; spot deal: runpod spot 5%' (each label with its rules)."""
        parts = []
        for label in self.labels:
            rules = [f"{r.scope} {r.percent:g}%" for r in self.rules if r.label == label]
            parts.append(f"{label}: {', '.join(rules)}")
        return "; ".join(parts)


@dataclass(frozen=True)
class Vocabulary:
    """What a rule may name: the providers and pricing models known, and how a chip name
    resolves (to its canonical chips, or a ChipcostError naming the close ones)."""

    providers: Iterable[str]
    pricing_models: Iterable[str]
    chips: Callable[[str], list[str]]
    # Each provider's title, by title ('Vast.ai': vastai), taken as --provider takes it.
    titles: Mapping[str, str] = field(default_factory=dict, compare=False)


def read_discounts(text: str, path: str, known: Vocabulary) -> Discounts:
    """The rules of a discounts file (TOML, or CSV by its name or its look), or a one-line
    ChipcostError naming the file, the line and the value."""
    # The name labels the rules: a byte of it that is not UTF-8 (kept by Python as a lone
    # surrogate) is shown as U+FFFD, as no output could hold it.
    name = re.sub("[\ud800-\udfff]", "\ufffd", PurePath(path).name)
    # Excel's "CSV UTF-8" (and some editors' TOML) starts with a byte-order mark: not a
    # character of the first column's name.
    text = text.removeprefix("\ufeff")
    if path.lower().endswith(".csv") or (not path.lower().endswith(".toml") and _looks_csv(text)):
        raw = _csv_rules(text, path)
    else:
        raw = _toml_rules(text, path)
    if not raw:
        raise ChipcostError(
            f"discounts file {path}: no rule in it; write one per provider, e.g. "
            '[[discount]] provider = "aws" percent = 10 label = "EDP"'
        )
    # A chip name is resolved once per file, not once per rule naming it.
    known = replace(known, chips=functools.cache(known.chips))
    rules = tuple(_rule(fields, line, path, name, known) for line, fields in raw)
    check_one_rule_per_offer(rules, path)
    return Discounts(rules, path)


def _looks_csv(text: str) -> bool:
    first = next((line for line in text.splitlines() if line.strip()), "")
    return "," in first and "=" not in first and not first.lstrip().startswith("[")


def _csv_rules(text: str, path: str) -> list[tuple[int, dict[str, object]]]:
    reader = csv.DictReader(io.StringIO(text))
    try:
        return _csv_read(reader, path)
    except csv.Error as exc:  # a NUL byte, a cell past the csv module's 128 KB, ...
        raise ChipcostError(
            f"discounts file {path}, line {reader.line_num}: not readable as CSV ({exc})"
        ) from None


def _csv_read(reader: csv.DictReader, path: str) -> list[tuple[int, dict[str, object]]]:
    header = [h.strip().lower() for h in reader.fieldnames or []]
    unknown = [h for h in header if h not in FIELDS]
    if unknown or "provider" not in header or "percent" not in header:
        # A column is named only when it could be a field's name: the first line of a file
        # given by mistake (a password file) is not echoed.
        shown = repr(unknown[0]) if unknown and _NAME.match(unknown[0]) else "that is no field name"
        why = f"unknown column {shown}" if unknown else "no provider or percent column"
        raise ChipcostError(
            f"discounts file {path}, line 1: {why}; the header names provider and percent, "
            f"and any of {', '.join(f for f in FIELDS if f not in ('provider', 'percent'))}"
        )
    twice = sorted({h for h in header if header.count(h) > 1})
    if twice:
        # The csv module keeps the last of two columns of one name: the other's values
        # (another provider, another percent) would be dropped without a word.
        raise ChipcostError(
            f"discounts file {path}, line 1: column {twice[0]!r} is named twice; give each "
            "column once"
        )
    rules = []
    for row in reader:
        fields = {
            k.strip().lower(): (v or "").strip() for k, v in row.items() if k and v is not None
        }
        if any(isinstance(v, list) for v in row.values()) or None in row:
            raise ChipcostError(
                f"discounts file {path}, line {reader.line_num}: more values than columns"
            )
        if any(fields.values()):
            rules.append((reader.line_num, {k: v for k, v in fields.items() if v != ""}))
    return rules


_NAME = re.compile(r"^[a-z_]{1,32}$")
_TABLE_LINE = re.compile(r"^[ \t]*\[\[[ \t]*discount[ \t]*\]\]", re.MULTILINE)


def _lines_of(text: str, offsets: Iterable[int]) -> list[int]:
    """The line (from 1) of each offset, in one pass over the text (offsets ascending)."""
    lines, line, done = [], 1, 0
    for offset in offsets:
        line += text.count("\n", done, offset)
        done = offset
        lines.append(line)
    return lines


def _toml_rules(text: str, path: str) -> list[tuple[int, dict[str, object]]]:
    try:
        data = tomllib.loads(text)
    except ValueError as exc:  # TOMLDecodeError, or an integer of over 4,300 digits
        raise ChipcostError(f"discounts file {path}: not valid TOML ({exc})") from None
    except RecursionError:  # arrays nested thousands deep: no discounts file is
        raise ChipcostError(
            f"discounts file {path}: nested deeper than the TOML reader goes; a discounts "
            "file is [[discount]] tables of provider, percent and the like (docs/your-prices.md)"
        ) from None
    extra = [k for k in data if k != "discount"]
    tables = data.get("discount", [])
    if extra or not isinstance(tables, list):
        raise ChipcostError(
            f"discounts file {path}: "
            + (f"unknown table {extra[0]!r}" if extra else "discount must be [[discount]] tables")
            + '; write each rule as [[discount]] provider = "aws" percent = 10'
        )
    lines = _lines_of(text, (m.start() for m in _TABLE_LINE.finditer(text)))
    found = []
    for n, table in enumerate(tables):
        line = lines[n] if n < len(lines) else 0
        if not isinstance(table, dict):  # discount = [ {...}, 5 ]
            raise ChipcostError(
                f"discounts file {path}: rule {n + 1} of discount is a {type(table).__name__}, "
                'not a table; write each rule as [[discount]] provider = "aws" percent = 10'
            )
        found.append((line, dict(table)))
    return found


def _rule(
    fields: dict[str, object], line: int, path: str, name: str, known: Vocabulary
) -> Discount:
    where = f"discounts file {path}, line {line}"
    unknown = [k for k in fields if k not in FIELDS]
    if unknown:
        raise ChipcostError(
            f"{where}: unknown field {unknown[0]!r}{did_you_mean(unknown[0], FIELDS)}; "
            f"a rule has {', '.join(FIELDS)}"
        )
    given = _text(fields, "provider", where)
    providers = sorted(known.providers)
    # as --provider takes it: 'Massed Compute', 'Vast.ai', 'Amazon'
    provider = name_among(given, providers, known.titles) or given.lower()
    if provider not in providers:
        raise ChipcostError(
            f"{where}: unknown provider {provider!r}{did_you_mean(provider, providers)}; "
            f"providers: {', '.join(providers)}"
        )
    model = fields.get("pricing_model")
    if model is not None:
        model = _text(fields, "pricing_model", where).lower().replace("-", "_").replace(" ", "_")
        models = list(known.pricing_models)
        if model not in models:
            raise ChipcostError(
                f"{where}: unknown pricing model {fields['pricing_model']!r}"
                f"{did_you_mean(str(model), models)}; pricing models: {', '.join(models)}"
            )
    chip = fields.get("chip")
    chips = None
    if chip is not None:
        chip = _text(fields, "chip", where)
        try:
            chips = frozenset(known.chips(chip))
        except ChipcostError as exc:
            raise ChipcostError(f"{where}: {exc}") from None
    region = fields.get("region")
    if region is not None:
        region = _text(fields, "region", where).lower()
    # Shown on terminals, in the report and the explorer: no escape or bidi characters.
    label = printable(str(fields.get("label") or "")).strip() or name
    return Discount(
        provider=provider,
        percent=_percent(fields.get("percent"), where),
        label=label,
        line=line,
        pricing_model=model,
        chips=chips,
        chip=chip,
        region=region,
    )


def _text(fields: dict[str, object], key: str, where: str) -> str:
    value = fields.get(key)
    if not isinstance(value, str) or not value.strip():
        raise ChipcostError(f"{where}: {key} must be a name, e.g. {_EXAMPLES[key]}")
    return value.strip()


_EXAMPLES = {
    "provider": "aws",
    "pricing_model": "on_demand",
    "chip": "H100-SXM",
    "region": "us-east-1",
}


def _percent(value: object, where: str) -> float:
    if value is None:
        raise ChipcostError(f"{where}: no percent; give the discount off list, e.g. percent = 10")
    try:
        number = (
            float(str(value).strip().removesuffix("%")) if not isinstance(value, bool) else None
        )
    except ValueError:
        number = None
    if number is None or not math.isfinite(number) or not 0 <= number <= 100:
        raise ChipcostError(
            f"{where}: percent {value!r} is not a discount: give a number from 0 to 100"
        )
    return number
