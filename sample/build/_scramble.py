"""The scrambler: a source's recorded fixture, its prices and dates moved for one sample day.

A fixture (tests/fixtures/<source>/: the payloads the contract test parses, or the files the
table names, as AWS's sample weeks) becomes one sample run: every price inside an offer is
multiplied by the source's factor (seeded by its name), by a seeded day-to-day move where the
source's market moves daily, and by the scripted moves of sample/build/_table.py; every date
moves on by the run's day (a dated file's rows stay, each listed from the run after its day);
each moved offer carries the estimate mark and each payload the sample label. Nothing else of
the payload changes.
"""

from __future__ import annotations

import hashlib
import json
import re
import tomllib
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from datetime import date, datetime, timedelta
from decimal import Decimal
from pathlib import Path
from typing import Any

from chipcost.core.errors import ChipcostError
from chipcost.extract import registry
from chipcost.extract._estimate import ESTIMATE_ATTRIBUTE, ESTIMATE_KEY
from chipcost.sample.build._common import HTML_SAMPLE_COMMENT, SAMPLE_KEY, fresh_writer, run_time

# A number as payloads write prices: 1,234.56 or 0.00595 or 1560 (cents) or 9.0E-4.
NUMBER = r"\d[\d,]*(?:\.\d+)?(?:[eE]-?\d+)?"
# An ISO date, with a time or not: the dates a fixture holds are those of day 1's run.
DATE = re.compile(r"(?<!\d)(\d{4})-(\d{2})-(\d{2})(?!\d)")
# A JSONP answer (AWS's spot.js): JSON inside callback(...).
JSONP = re.compile(r"(\s*[\w.$]+\s*\()(.*)(\)\s*;?\s*)", re.S)
# What an XML file says of itself, in a comment after its declaration.
XML_SAMPLE_COMMENT = (
    "<!-- chipcost sample data, not fetched from the provider (sample/README.md) -->"
)
# The keys a price is under inside its offer.
Keys = tuple[str, ...]
# How far the seeded factor of a source's prices goes either way.
SPREAD = 0.06
# How far a renewed listing id moves each day.
RENUMBERED = 100_000
# What a JSON answer's sample key says: moved prices, or a fixture's prices kept as they are.
LABELS = {
    False: "synthetic sample data, not the provider's prices",
    True: "sample data: a chipcost test fixture's answer, its dates moved (sample/README.md)",
}


@dataclass(frozen=True)
class Move:
    """A scripted change of the offers whose text `match` finds (a regex), on `day` (1..8).

    kind "price": their prices times `factor` from that day on; "zero": listed at $0 that day
    only (a row the validation rejects); "gone": withdrawn from that day on; "new": listed
    from that day on."""

    day: int
    match: str
    kind: str = "price"
    factor: float = 1.0
    # Only the prices under this key of a JSON offer (an AWS item's "OnDemand" terms): "" for all.
    within: str = ""


@dataclass(frozen=True)
class Sample:
    """How one source's fixture becomes its sample runs (sample/README.md)."""

    # JSON: where the offers are, a path of keys with "*" for every item of a list or value of
    # an object (a path for each payload shape, separated by "|"), and the keys holding their
    # prices, at any depth inside an offer (a key holding an object moves every number in it).
    offers: str = ""
    prices: tuple[str, ...] = ()
    # HTML, CSV and feeds: a regex of one offer (a table row, a CSV line) and a regex whose
    # group 1 is one of its prices.
    rows: str = ""
    cells: str = ""
    # Where a row's format has no room for a new key (a CSV column), the estimate mark the
    # fixture's row carries: a regex whose group 1 is its words, rewritten for the sample.
    marks: str = ""
    moves: tuple[Move, ...] = ()
    # A spot market's prices move every day, each offer by up to this share either way.
    daily: float = 0.0
    # The fixture's files for the run, the URL each answers and its archived request (default:
    # every [[good]] file of its contract.toml).
    files: tuple[tuple[str, str, dict[str, Any]], ...] = ()
    # Or a JSON list in the fixture folder of a run's files ({"file", "url", "request"}), where
    # the requests are too long to declare here (AWS's, which name every accelerator type).
    run: str = ""
    # Where in a JSON offer the estimate mark goes ("" : the offer itself), or None where the
    # fixture's prices are kept as recorded (factor 1) and sample/REFERENCES.md traces them.
    mark: str | None = ""
    # The offers (a regex over their text) whose fixture price is a public one that
    # sample/REFERENCES.md traces: kept, unmarked, where the others move.
    traced: str = ""
    # The offers (a regex) the sample leaves out: rows a parser refuses on every run (a
    # CPU-only plan), which would only lengthen every summary of the sample.
    left_out: str = ""
    # Listing ids a marketplace renews each day (its JSON keys): each run's are its own.
    renumbered: tuple[str, ...] = ()
    # A file of dated rows (the ECB's days of rates): a regex whose group 1 is a row's ISO date.
    # Its dates stay, a run lists the rows dated before its own day (published by then), and a
    # row's daily move is seeded by the row alone, so a day reads the same in every run.
    dated: str = ""


def unit(*parts: object) -> float:
    """A number in [0, 1) fixed by its parts: the seed of every move."""
    digest = hashlib.sha256(":".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:8], "big") / 2**64


def base_factor(source: str, spec: Sample) -> float:
    """The factor on every price of the source: 1 where its recorded prices are kept."""
    if spec.mark is None:
        return 1.0
    return round(1 + SPREAD * (2 * unit(source) - 1), 3)


class Day:
    """The moves of one source on one run day, applied to the offers of its payloads."""

    def __init__(self, source: str, spec: Sample, day: int) -> None:
        self.source, self.spec, self.day = source, spec, day
        self.date = run_time(day).date().isoformat()
        self.base = base_factor(source, spec)
        self.mark_text = (
            f"synthetic: the price of chipcost's test fixture tests/fixtures/{source}/ "
            f"times {self.base} (sample/README.md)"
        )

    def listed(self, text: str) -> bool:
        """Whether an offer whose text is `text` is listed today."""
        if self.spec.left_out and re.search(self.spec.left_out, text):
            return False
        dated = re.search(self.spec.dated, text) if self.spec.dated else None
        if dated and dated.group(1) >= self.date:  # not yet published on the run's day
            return False
        for move in self.spec.moves:
            if re.search(move.match, text):
                if move.kind == "gone" and self.day >= move.day:
                    return False
                if move.kind == "new" and self.day < move.day:
                    return False
        return True

    def traced(self, text: str) -> bool:
        """Whether the offer's price is a public one, kept as the fixture has it."""
        return self.spec.mark is None or bool(
            self.spec.traced and re.search(self.spec.traced, text)
        )

    def factor(self, text: str) -> float:
        """Today's factor on the prices of an offer whose text is `text`."""
        return self.factors(text)(())

    def factors(self, text: str) -> Callable[[Keys], float]:
        """Today's factor on each price of an offer whose text is `text`, by the keys the price
        is under inside the offer (a move `within` one of them applies to it alone)."""
        value = 1.0 if self.traced(text) else self.base
        if self.spec.daily:
            seed = unit(self.source, text) if self.spec.dated else unit(self.source, self.day, text)
            value *= 1 + self.spec.daily * (2 * seed - 1)
        found = [move for move in self.spec.moves if re.search(move.match, text)]

        def at(keys: Keys) -> float:
            moved = value
            for move in found:
                if move.within and move.within not in keys:
                    continue
                if move.kind == "price" and self.day >= move.day:
                    moved *= move.factor
                elif move.kind == "zero" and self.day == move.day:
                    return 0.0
            return moved

        return at


def moved_number(text: str, factor: float) -> str:
    """A price written as the payload writes it (same decimals, at least two), times factor."""
    plain = text.replace(",", "")
    if factor == 1.0:
        return text
    if re.fullmatch(r"\d+", plain):  # whole cents or units: stays whole
        return str(round(int(plain) * factor))
    value = float(plain) * factor
    if "e" in plain.lower():
        return f"{value:.2E}"
    decimals = max(len(plain.split(".")[1]), 2)
    grouped = "," in text
    return f"{value:,.{decimals}f}" if grouped else f"{value:.{decimals}f}"


def moved_value(value: Any, factor: float) -> Any:
    """Every number in a JSON value (a price, a price object) times factor."""
    if isinstance(value, bool) or value is None:
        return value
    if isinstance(value, int):
        return round(value * factor)
    if isinstance(value, float):
        return float(moved_number(repr(value), factor)) if factor else 0.0
    if isinstance(value, str):
        return re.sub(NUMBER, lambda m: moved_number(m.group(0), factor), value, count=1)
    if isinstance(value, dict) and {"units", "nanos"} <= value.keys():
        return moved_money(value, factor)
    if isinstance(value, dict):
        return {k: moved_value(v, factor) for k, v in value.items()}
    if isinstance(value, list):
        return [moved_value(v, factor) for v in value]
    return value


def moved_money(money: dict[str, Any], factor: float) -> dict[str, Any]:
    """Google's Money (whole `units`, a string, and `nanos`, billionths) times factor: the two
    move as one amount."""
    amount = round((int(money["units"]) + money["nanos"] / 1e9) * factor * 1e9)
    units, nanos = divmod(amount, 10**9)
    return {**money, "units": str(units), "nanos": nanos}


def moved_offer(offer: Any, keys: Keys, factor: Callable[[Keys], float], at: Keys = ()) -> Any:
    """An offer with the values of its price keys (at any depth) times the factor of where each
    is (`at`: the keys above it)."""
    if at and at[-1] in keys:
        return moved_value(offer, factor(at))
    if isinstance(offer, dict):
        moved = {k: moved_offer(v, keys, factor, (*at, k)) for k, v in offer.items()}
        return said_as_moved(offer, moved, keys)
    if isinstance(offer, list):
        return [moved_offer(v, keys, factor, at) for v in offer]
    if isinstance(offer, str) and offer.startswith("{"):  # an offer inside a JSON string (AWS)
        moved = moved_offer(json.loads(offer), keys, factor, at)
        return json.dumps(moved, separators=(",", ":"))
    return offer


def said_as_moved(offer: dict[str, Any], moved: dict[str, Any], keys: Keys) -> dict[str, Any]:
    """`moved` with the price its `description` states ('$66.048 per On Demand Linux p5...',
    an AWS price dimension's) the moved one, as the provider writes it (no trailing zeros): a
    sample whose text and price disagree cannot be traced by either."""
    said = moved.get("description")
    price = next((k for k in keys if k in offer and moved[k] != offer[k]), None)
    if not isinstance(said, str) or price is None or not re.search(r"\$\d", said):
        return moved
    number = re.search(NUMBER, _scalars(moved[price]))
    if number is None:
        return moved
    stated = f"{Decimal(number.group(0).replace(',', '')).normalize():f}"
    return {**moved, "description": re.sub(r"\$[\d,.]+", f"${stated}", said, count=1)}


def renumbered(offer: Any, keys: tuple[str, ...], day: int) -> Any:
    """The offer with its listing ids (integers under `keys`) those of the run's day."""
    if isinstance(offer, dict):
        return {
            k: v + RENUMBERED * (day - 1) if k in keys and isinstance(v, int) else v
            for k, v in offer.items()
        }
    return offer


def marked(offer: Any, path: list[str], mark: str) -> Any:
    """The offer with the estimate key beside the provider's fields at `path` inside it."""
    if isinstance(offer, str) and offer.startswith("{"):
        return json.dumps(marked(json.loads(offer), path, mark), separators=(",", ":"))
    if not path:
        return {**offer, ESTIMATE_KEY: mark} if isinstance(offer, dict) else offer
    head, rest = path[0], path[1:]
    if isinstance(offer, dict):
        return {k: marked(v, rest, mark) if head in ("*", k) else v for k, v in offer.items()}
    return offer


def _scalars(node: Any) -> str:
    """What an offer's enclosing object says of it (its name, region...): its plain fields."""
    if not isinstance(node, dict):
        return ""
    return json.dumps({k: v for k, v in node.items() if not isinstance(v, dict | list)})


def scrambled_json(node: Any, path: list[str], today: Day, context: str = "") -> Any:
    """The JSON value with the offers at `path` moved, filtered and marked for today."""
    if not path:
        text = context + (node if isinstance(node, str) else json.dumps(node))
        offer = moved_offer(node, today.spec.prices, today.factors(text))
        offer = renumbered(offer, today.spec.renumbered, today.day)
        if today.spec.mark is not None and not today.traced(text):
            offer = marked(offer, [p for p in today.spec.mark.split(".") if p], today.mark_text)
        return offer
    head, rest = path[0], path[1:]
    context += _scalars(node)
    if isinstance(node, list) and head == "*":
        return [scrambled_json(v, rest, today, context) for v in _listed(node, rest, today)]
    if isinstance(node, dict) and head == "*":
        return {
            k: scrambled_json(v, rest, today, context + k)
            for k, v in node.items()
            if rest or today.listed(k + json.dumps(v))
        }
    if isinstance(node, dict) and head in node:
        return {**node, head: scrambled_json(node[head], rest, today, context)}
    return node


def _listed(items: list[Any], rest: list[str], today: Day) -> Iterator[Any]:
    for item in items:
        text = item if isinstance(item, str) else json.dumps(item)
        if rest or today.listed(text):
            yield item


def _json_paths(offers: str) -> list[list[str]]:
    return [[p for p in path.split(".") if p] for path in offers.split("|")]


def _applies(body: Any, path: list[str]) -> bool:
    head = path[0] if path else ""
    return (head == "*" and isinstance(body, list | dict)) or (
        isinstance(body, dict) and head in body
    )


def scramble_json(data: bytes, today: Day, indent: int | None = 1) -> bytes:
    """A JSON answer: the offers of the first of the source's paths that fits it moved (written
    indented, or compact as a JSONP feed is)."""
    body = json.loads(data)
    paths = [p for p in _json_paths(today.spec.offers) if _applies(body, p)]
    if paths:
        body = scrambled_json(body, paths[0], today)
    if isinstance(body, dict):
        body = {SAMPLE_KEY: LABELS[today.spec.mark is None], **body}
    compact = (",", ":") if indent is None else None
    return json.dumps(body, indent=indent, separators=compact).encode("utf-8")


def scramble_jsonp(data: bytes, today: Day) -> bytes | None:
    """A JSONP answer: its JSON scrambled inside the same callback (None: not JSONP)."""
    found = JSONP.fullmatch(data.decode("utf-8"))
    if not found or not today.spec.offers:
        return None
    inner = scramble_json(found.group(2).encode("utf-8"), today, indent=None)
    return found.group(1).encode("utf-8") + inner + found.group(3).encode("utf-8")


def scramble_text(data: bytes, today: Day, ext: str) -> bytes:
    """An HTML page, CSV or feed: each offer's prices moved, or the offer left out."""
    price = re.compile(today.spec.cells)

    def offer(found: re.Match[str]) -> str:
        text = found.group(0)
        if not price.search(text):  # a heading row
            return text
        if not today.listed(text):
            return ""
        factor = today.factor(text)
        text = price.sub(lambda m: _moved_group(m, factor), text)
        if ext == "csv" and (moved := price.search(text)) is not None:
            # an AWS price line's description states its price ('$63.296 per On Demand ...')
            stated = f"{Decimal(moved.group(1)).normalize():f}"
            text = re.sub(r'(?<=")\$[\d,.]+(?= per )', f"${stated}", text, count=1)
        if not today.traced(text) and today.spec.marks:
            text = re.sub(today.spec.marks, lambda m: _replaced_group(m, today.mark_text), text)
        elif not today.traced(text) and text.startswith("<"):
            text = re.sub(r"^<\w+", lambda m: f'{m.group(0)} {ESTIMATE_ATTRIBUTE}="'
                          f'{today.mark_text}"', text)  # fmt: skip
        return text

    text = data.decode("utf-8")
    if today.spec.rows:
        text = re.sub(today.spec.rows, offer, text, flags=re.S)
    return _labelled_text(text, ext).encode("utf-8")


def _moved_group(found: re.Match[str], factor: float) -> str:
    return _replaced_group(found, moved_number(found.group(1), factor))


def _replaced_group(found: re.Match[str], value: str) -> str:
    start, end = found.span(1)
    whole = found.group(0)
    offset = found.start(0)
    return whole[: start - offset] + value + whole[end - offset :]


def _labelled_text(text: str, ext: str) -> str:
    """HTML says it is sample data in a comment after <body>, or first in an excerpt; XML in a
    comment after its declaration; other text is left as it is."""
    if ext == "xml":
        return re.sub(r"^(<\?xml[^>]*\?>)?", lambda m: f"{m.group(0)}\n{XML_SAMPLE_COMMENT}",
                      text, count=1)  # fmt: skip
    if ext != "html":
        return text
    if "<body" in text:
        return re.sub(r"(<body[^>]*>)", lambda m: f"{m.group(1)}\n{HTML_SAMPLE_COMMENT}", text,
                      count=1)  # fmt: skip
    return f"{HTML_SAMPLE_COMMENT}\n{text}"


def shifted_dates(data: bytes, days: int) -> bytes:
    """Every ISO date `days` later: a fixture's dates are those of day 1's run."""

    def later(found: re.Match[str]) -> str:
        try:
            moved = date(*map(int, found.groups())) + timedelta(days=days)
        except ValueError:
            return found.group(0)
        return moved.isoformat()

    return DATE.sub(later, data.decode("utf-8")).encode("utf-8") if days else data


def scrambled(data: bytes, ext: str, today: Day) -> bytes:
    """One fixture payload as today's sample payload: its dates moved on (but a dated file's),
    then its prices."""
    if not today.spec.dated:
        data = shifted_dates(data, today.day - 1)
    if ext == "json":
        return scramble_json(data, today)
    return scramble_jsonp(data, today) or scramble_text(data, today, ext)


# The recorded fixtures live beside the tests: building the sample needs a checkout.
FIXTURES = Path(__file__).resolve().parents[2] / "tests" / "fixtures"


class MissingFixture(ChipcostError):
    """A source's sample is declared from a fixture this checkout does not hold."""


def fixture_files(source: str, spec: Sample) -> list[tuple[str, str, dict[str, Any]]]:
    """(file, URL, archived request) of each payload of the source's sample run: what its fetch
    archives now, so none of a format it no longer fetches (retired: kept to read old archives,
    as the ECB daily file an earlier seeweb archived beside its plans)."""
    formats = registry()[source].formats

    def retired(url: str) -> bool:  # the format a payload is, by its URL (extract/_formats.py)
        known = next((f for f in formats if f.matches(url)), None)
        return bool(known and known.retired)

    return [found for found in _listed_files(source, spec) if not retired(found[1])]


def _listed_files(source: str, spec: Sample) -> list[tuple[str, str, dict[str, Any]]]:
    if spec.files:
        return list(spec.files)
    if spec.run:
        listing = FIXTURES / source / spec.run
        if not listing.is_file():
            raise MissingFixture(f"{listing} not found: build the sample in a checkout of chipcost")
        listed = json.loads(listing.read_text(encoding="utf-8"))
        return [(f["file"], f["url"], f["request"]) for f in listed]
    contract = FIXTURES / source / "contract.toml"
    if not contract.is_file():
        raise MissingFixture(f"{contract} not found: build the sample in a checkout of chipcost")
    good = tomllib.loads(contract.read_text(encoding="utf-8")).get("good", [])
    return [(g["file"], g["url"], g.get("request") or {"method": "GET"}) for g in good]


def write_run(source: str, spec: Sample, out: Path, day: int, moment: datetime) -> Path:
    """<out>/<run stamp>/<source>/: the source's fixture, scrambled for run day 1..8."""
    writer = fresh_writer(out, moment, source)
    today = Day(source, spec, day)
    for file, url, request in fixture_files(source, spec):
        path = FIXTURES / source / file
        if not path.is_file():
            raise MissingFixture(f"{path} not found: build the sample in a checkout of chipcost")
        ext = path.suffix.lstrip(".")
        data = scrambled(path.read_bytes(), ext, today)
        asked = json.loads(shifted_dates(json.dumps(request).encode(), day - 1))
        writer.write(data, url, fetched_at=moment, ext=ext, request=asked)
    return writer.directory
