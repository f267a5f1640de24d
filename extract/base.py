"""The contract of a source and the kit it is built on: fetch (the only I/O), then rows ->
offers, with provenance, chip names, notes and the emptiness rule owned here, once."""

from __future__ import annotations

import dataclasses
import functools
from collections import defaultdict
from collections.abc import Callable, Iterable, Iterator, Mapping, Sequence
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass, field
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from chipcost.archive import ArchiveWriter
from chipcost.core.commands import REPLAY
from chipcost.core.cut import NAME_CHARS, bounded, cut
from chipcost.core.errors import ChipcostError, ParseError, SourceSkipped
from chipcost.core.network import Network
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord, Reject
from chipcost.core.settings import SourceSettings
from chipcost.core.stopping import Deadline, check
from chipcost.core.vocabulary import OFFER_KEY
from chipcost.extract._body import Bounds
from chipcost.extract._doubts import mark_doubts
from chipcost.extract._formats import (
    Format,
    Stated,
    StatedCurrencies,
    drift,
    stated_currencies,
)
from chipcost.extract._kit import (
    ROW_FAILURES,
    ChipNames,
    Offer,
    Origin,
    RowUnreadable,
    WatchedRow,
    load_json,
    overlong_names,
    read_row,
    says_no_price,
)
from chipcost.extract._priced_once import offers_priced_once as offers_priced_once
from chipcost.extract._priced_once import refused

if TYPE_CHECKING:  # imported by the sources that fetch over HTTP, not by every importer
    import threading

    import httpx

# A row the mapping made nothing of: a reject saying so, never a row lost without a word.
NOTHING_MADE = (
    "the parser made no record, reject or reason of this row (a chipcost bug): report it "
    "with the archived run"
)


def _no_progress(message: str) -> None:
    return None


@dataclass
class FetchContext:
    """What a fetch needs from the run.

    `archive.write(data, url, request=...)` must be called for every payload as soon as it
    arrives, before parsing, so that nothing fetched is lost even if a later page fails.
    Keys and endpoints come from `settings` (the variables the sources declare, read from the
    environment once per run); `transport` and `sleep` are for tests to fake HTTP and waits.
    """

    archive: ArchiveWriter
    progress: Callable[[str], None] = _no_progress
    settings: SourceSettings = field(default_factory=SourceSettings)
    transport: httpx.BaseTransport | None = None
    sleep: Callable[[float], None] | None = None
    # Where large downloads are staged (aws-bulk): always a local directory, even when the
    # archive is on object storage. None: <data dir>/downloads beside a local archive.
    download_dir: Path | None = None
    # Set when whoever runs the fetch gives up on it (a backfill stopped, Ctrl-C): a large
    # download stops at its next chunk and keeps what arrived for the next run to resume.
    stop: threading.Event | None = None
    # The whole fetch's budget (connect, reads, retry waits, downloads): past it, the next
    # request, wait or chunk fails the source. None: no limit (a backfill).
    deadline: Deadline | None = None
    # What the live run's requests met: once the network is judged down, every source's
    # next retry fails at once (chipcost.core.network). None: each source retries alone.
    network: Network | None = None
    # What the fetch's answers may come to, decoded: one answer, the source's in this run,
    # the run's (shared by its sources). Default: one answer's bound alone.
    bounds: Bounds = field(default_factory=Bounds)

    def on_time(self, where: str) -> None:
        """SourceError when the run is stopping or this fetch's deadline has passed: a source
        calls it before each request or page its own client makes (boto3's paginators)."""
        check(where, self.deadline, self.stop)


@dataclass(frozen=True)
class Skip:
    """A provider row that is not an offer on purpose (a CPU-only plan, a slice of a card):
    counted under its reason in the parse's notes, naming `what` when given."""

    reason: str
    what: str = ""
    # Of a cell saying its offer is not offered ("N/A"), that offer's key fields (as
    # Page.reject's `unpriced`), and the row as a reject would show it: where the same payload
    # prices that offer too, the cell is a reject, and both copies are refused as priced
    # twice (each_row, offers_priced_once); alone, it is counted as any skip.
    unpriced: dict[str, str] = field(default_factory=dict)
    row: Any = None
    # Of an unpriced skip that is no row left out (a null spot price: not sold on spot, the
    # row's other prices loaded; one offer of several a refused row's price names): alone, it
    # is counted nowhere.
    quiet: bool = False


Item = PriceRecord | Reject | Skip


@dataclass
class Page:
    """One payload being parsed: its origin, the parse's chip names and notes."""

    payload: Payload
    origin: Origin
    chips: ChipNames
    notes: list[str] = field(default_factory=list)
    _json: Any = None

    def json(self) -> Any:
        """The payload's JSON (read once), or a ParseError naming the provider and file."""
        if self._json is None:
            self._json = load_json(self.payload, self.origin.provider)
        return self._json

    def chip(self, spelling: str, memory_gb: float | None = None) -> str:
        return self.chips.chip(spelling, memory_gb)

    def record(self, **offer: Any) -> PriceRecord:
        return self.origin.record(**offer)

    def offer(self, **shared: Any) -> Offer:
        return self.origin.offer(**shared)

    def reject(
        self,
        reason: str,
        row: Any,
        sku: str = "",
        *,
        offer: dict[str, str | None] | None = None,
        unpriced: dict[str, str] | None = None,
    ) -> Reject:
        return self.origin.reject(reason, row, sku, offer=offer, unpriced=unpriced)

    def no_price(
        self,
        reason: str,
        row: Any,
        cell: object,
        sku: str = "",
        *,
        offer: dict[str, str | None] | None = None,
        unpriced: dict[str, str] | None = None,
    ) -> Reject:
        """The reject of a price `cell` the parser could not read. Where the cell says the offer
        is not sold (not_sold), it keeps nothing open, so the offer is withdrawn (the warehouse
        keeps every offer of a refused row's `sku` or `offer` open), and names `unpriced`: a
        copy of the row pricing that offer in the same payload is refused with it, as two
        prices of one offer are (offers_priced_once). Else it keeps `sku` and `offer` open."""
        if not_sold(cell):
            return self.reject(reason, row, unpriced=unpriced)
        return self.reject(reason, row, sku, offer=offer)

    def note(self, text: str) -> None:
        self.notes.append(text)


def not_sold(cell: object) -> bool:
    """Whether a price `cell` is the provider's word that its offer is not sold ("Contact us",
    "—", "N/A", empty or null)."""
    return cell is None or says_no_price(cell)


def unpriced_skips(
    cell: object, offers: Iterable[dict[str, str]], why: str, row: Any
) -> list[Skip]:
    """Of a price `cell` saying a row's offers are not sold, a quiet Skip of each of `offers`
    (every region, GPU count, ... the row prices): a copy of the row pricing one refuses both,
    as priced twice; alone, the row's own reject (Page.no_price) says it."""
    return [Skip(why, unpriced=o, row=row, quiet=True) for o in offers] if not_sold(cell) else []


Rows = Callable[[Page], Iterable[Any]]
Offers = Callable[[Any, Page], Iterable[Item]]
Combine = Callable[[list[PriceRecord], Page], list[PriceRecord]]
Notes = Callable[[ParseResult], list[str]]


def each_row(
    payloads: Sequence[Payload],
    source: str,
    provider: str,
    *,
    rows: Rows,
    offers: Offers,
    combine: Combine | None = None,
) -> ParseResult:
    """Every payload's rows through `offers`: each row ends as records, rejects or a counted
    reason; `combine` may then summarise a payload's records (a marketplace's median).

    A listing that yields no offer at all is refused: an empty answer is a failure of the
    source, never news that every offer was withdrawn.
    """
    result = ParseResult()
    chips = ChipNames(provider, source)
    skipped: dict[str, list[str]] = defaultdict(list)
    seen = 0
    for payload in payloads:
        page = Page(payload, Origin.of(source, provider, payload), chips)
        records: list[PriceRecord] = []
        unpriced: list[tuple[Skip, Any]] = []
        stated = _stated(page)
        for row in page_rows(rows, page):
            seen += 1
            made = [_unwatched(item, row) for item in one_row(offers, row, page)]
            if stated is not None:
                made = [_in_stated(item, stated.of_row(row), row) for item in made]
            chips.row_done(loaded=any(isinstance(item, PriceRecord) for item in made))
            _file(row, made, page, records, result.rejects, skipped, unpriced)
        _file_unpriced(unpriced, page, records, result.rejects, skipped)
        result.records.extend(combine(records, page) if combine and records else records)
        result.notes.extend(page.notes)
    refuse_empty(result, payloads, provider, rows=seen, skipped=skipped)
    result.notes.extend(_skip_notes(skipped))
    result.notes.extend(chips.notes())
    return result


@dataclass
class _Parsing:
    """The source whose parse is under way: its formats, and the payloads each_row read row by
    row (their rows' stated currencies checked there, each against the records it made)."""

    formats: Sequence[Format]
    read: set[int] = field(default_factory=set)


# The parse under way, in this thread (Source.parse); None: a parser called alone.
_PARSING: ContextVar[_Parsing | None] = ContextVar("chipcost_parsing", default=None)


@contextmanager
def _parsing(formats: Sequence[Format]) -> Iterator[_Parsing]:
    token = _PARSING.set(parsing := _Parsing(formats))
    try:
        yield parsing
    finally:
        _PARSING.reset(token)


def _stated(page: Page) -> StatedCurrencies | None:
    """The currencies the page's rows state in fields new to its format (the parse's source's),
    found in the document its rows are read from."""
    if (parsing := _PARSING.get()) is None:
        return None
    parsing.read.add(id(page.payload))
    return stated_currencies(parsing.formats, page.payload, page.json)


def _in_stated(item: Item, stated: list[Stated], row: Any) -> Item:
    """`item`, or the reject of a record whose row states another currency than it is in."""
    if isinstance(item, PriceRecord):
        for said in stated:
            if said.other_than(item.currency):
                return Reject.of_record(item, said.reason(item.currency), row)
    return item


def in_stated_currencies(
    result: ParseResult, payloads: Sequence[Payload], formats: Sequence[Format], read: set[int]
) -> ParseResult:
    """`result` with no record in another currency than rows of a payload each_row did not
    read row by row state in a field new to their format (a parse of its own, Google's or
    AWS's; a pricebook read beside the rows): which of its records such a row priced cannot
    be told (Google's join SKUs across pages), so none of them in another currency is loaded."""
    for payload in payloads:
        if id(payload) in read or (stated := stated_currencies(formats, payload)) is None:
            continue
        said = list({id(s): s for ss in stated.by_node.values() for s in ss}.values())
        kept: list[PriceRecord] = []
        for record in result.records:
            other = next((s for s in said if s.other_than(record.currency)), None)
            if other is None:
                kept.append(record)
                continue
            where = payload.ref or payload.name or payload.url
            reason = f"{other.reason(record.currency)} (in {where}, read with its price)"
            result.rejects.append(refused(record, reason))
        result.records = kept
    return result


def refuse_empty(
    result: ParseResult,
    payloads: Sequence[Payload],
    provider: str,
    *,
    rows: int = 0,
    skipped: dict | None = None,
) -> None:
    """The emptiness rule, for the kit and the sources that parse their own way (AWS): a
    parse that made no record and refused no row is a failure, never every offer withdrawn."""
    if not result.records and not result.rejects:
        raise _empty(payloads, provider, rows, 0, skipped or {})


def page_rows(rows: Rows, page: Page) -> list[Any]:
    found = rows(page)
    return found if isinstance(found, list) else list(found)


def one_row(offers: Offers, row: Any, page: Page) -> list[Item]:
    """What `offers` made of one row, or, when reading the row fails, one reject naming the
    field read last and why: a value of a type the parser did not expect (a null, a number
    where a list was, a number too long to read) refuses its row, never the source. A GPU
    model or a record's name past LONGEST_NAME (extract/_kit.py) refuses it too, saying so."""
    try:
        made = read_row(lambda watched: [*offers(watched, page)], row)
    except RowUnreadable as exc:
        return [page.reject(str(exc), row)]
    return [_named(item, row) for item in made]


def _named(item: Item, row: Any) -> Item:
    """`item`, or the reject of a record naming its offer past LONGEST_NAME: refused here, as
    the validator would, before the name is validated, stored or said in full."""
    if isinstance(item, PriceRecord) and (why := overlong_names(item)):
        return Reject.of_record(item, why, row)
    return item


def _file(
    row: Any,
    made: Iterable[Item],
    page: Page,
    records: list[PriceRecord],
    rejects: list[Reject],
    skipped: dict[str, list[str]],
    unpriced: list[tuple[Skip, Any]],
) -> None:
    """Files what one row made; a row that made nothing becomes a reject saying so. A skip of
    a cell saying its offer is not offered waits in `unpriced` for the page's end."""
    empty = True
    for item in made:
        empty = False
        if isinstance(item, PriceRecord):
            records.append(item)
        elif isinstance(item, Reject):
            rejects.append(item)
        elif item.unpriced:
            unpriced.append((item, row))
        else:
            skipped[item.reason].append(item.what)
    if empty:
        rejects.append(page.reject(NOTHING_MADE, row))


def _file_unpriced(
    unpriced: list[tuple[Skip, Any]],
    page: Page,
    records: list[PriceRecord],
    rejects: list[Reject],
    skipped: dict[str, list[str]],
) -> None:
    """Files the page's skips of cells saying their offer is not offered ("N/A"): counted as
    any skip, but one whose offer another copy on the page prices is a reject naming it,
    which offers_priced_once refuses with that price (not the priced copy loaded, the offer
    seen, while the other copy says it is not offered)."""
    priced = {record.offer_key() for record in records}
    for skip, row in unpriced:
        key = page.origin.key(skip.unpriced)
        if tuple(key.get(name, "") for name in OFFER_KEY) not in priced:
            if not skip.quiet:
                skipped[skip.reason].append(skip.what)
            continue
        why = f"{skip.what}: {skip.reason}" if skip.what else skip.reason
        shown = row if skip.row is None else skip.row
        rejects.append(page.reject(why, shown, unpriced=skip.unpriced))


def _unwatched(item: Item, row: Any) -> Item:
    """A reject of the row as it came (read_row lent the parser a copy that watches it)."""
    if isinstance(item, Reject) and isinstance(item.row, WatchedRow):
        return dataclasses.replace(item, row=row)
    return item


def _skip_notes(skipped: dict[str, list[str]]) -> list[str]:
    notes = []
    for reason, names in sorted(skipped.items()):
        named = sorted({cut(name, NAME_CHARS) for name in names if name})
        which = f" ({', '.join(named)})" if named else ""
        notes.append(f"{len(names)} row(s) not loaded: {reason}{which}")
    return notes


def _empty(
    payloads: Sequence[Payload], provider: str, rows: int, rejects: int, skipped: dict
) -> ParseError:
    where = ", ".join(sorted({p.url for p in payloads})) or "no payload"
    refs = ", ".join(p.ref or p.name for p in payloads[:3]) or "none"
    found = f"{rows} row(s): {rejects} refused, {sum(map(len, skipped.values()))} not offers"
    return ParseError(
        f"{provider}: the listing at {where} ({refs}) gave no offer ({found}): an empty or "
        "unreadable listing is refused, not taken as every offer withdrawn; if the provider "
        "really lists nothing now, the source stays failed until it does, and its prices are "
        "kept. If the layout changed, report it and re-parse the archived payload with "
        f"`{REPLAY}` once fixed"
    )


Parse = Callable[[Sequence[Payload]], ParseResult]


def one_price_each(parse: Parse, formats: Sequence[Format] = ()) -> Parse:
    """`parse` with the kit's rules on what it returns: no record in another currency than
    its row states in a field new to the source's `formats` (each_row, in_stated_currencies),
    one offer, one price per payload, doubtful rows marked (extract/_doubts.py), and the texts
    of its rejects and notes bounded (bounded_texts)."""
    if getattr(parse, "one_price_each", False):
        return parse  # a source copied with dataclasses.replace: already kept

    @functools.wraps(parse)  # __wrapped__: the source's own parse
    def kept(payloads: Sequence[Payload]) -> ParseResult:
        with _parsing(formats) as parsing:
            result = parse(payloads)
        result = in_stated_currencies(result, payloads, formats, parsing.read)
        return bounded_texts(mark_doubts(offers_priced_once(result)))

    kept.one_price_each = True  # type: ignore[attr-defined]
    return kept


def bounded_texts(result: ParseResult) -> ParseResult:
    """`result` with each reject's texts and each note cut to their bounds (chipcost.core.cut:
    a name 1 KB, a row's JSON, a reason or a note 8 KB, each cut saying how many bytes): one
    field of 60 MB is not 60 MB in every table and summary it reaches. The payload stays whole
    in the archive, which each reject's payload_ref names."""
    result.rejects = [bounded(reject) for reject in result.rejects]
    result.notes = [cut(note) for note in result.notes]
    return result


@dataclass(frozen=True)
class Checked:
    """What a source asks for and what its parser's reading of a live answer rests on: its row
    of docs/sources.md's table, generated (`python -m chipcost.extract.docs`)."""

    # What the fetch asks the provider for.
    asks: str
    # The answers the parser was checked against: **recorded**, **documented example**, **mock**
    # or docs only, with their origin (the fixture folder's ORIGIN.md has the details).
    against: str = "—"
    # How old those answers are.
    when: str = "—"
    # What the fixtures reconstruct beyond them.
    rest: str = "—"


# The most offers a run of one source may yield, unless it says otherwise: a neocloud's listing
# is its GPU types times its places and terms (the sample's largest, Verda, 99 offers), so
# 25,000 is past any of them; a plan listing 250 GPU types in 200 places each (50,000 offers)
# is a feed's fault, not a price list.
MOST_OFFERS = 25_000
# The clouds' whole catalogues: every GPU instance type in every region and zone, in every
# pricing model, term and payment (the sample's AWS Price List API run: 1,040 offers of a few
# regions).
CLOUD_OFFERS = 250_000


@dataclass(frozen=True)
class Source:
    """One registered source: its name is the `source` column of the records it yields.

    A source on the kit declares `rows` and `offers` (and `combine` where a marketplace is
    summarised, `notes` for what it says of a whole parse) and gets its `parse` from them; one
    that parses its own way passes `parse`.
    """

    name: str
    provider: str
    description: str
    fetch: Callable[[FetchContext], list[Payload]]
    parse: Callable[[Sequence[Payload]], ParseResult] = None  # type: ignore[assignment]
    rows: Rows | None = None
    offers: Offers | None = None
    combine: Combine | None = None
    # What the source says of the whole parse, after the kit's notes (the sizes its table lacks).
    notes: Notes | None = None
    # False for a provider registered only to say why its prices are not collected: it is
    # never stale, and `chipcost sources` says "not collected" rather than "never run".
    collected: bool = True
    # True only where an empty answer is news, not a failure (no Capacity Block is on offer
    # today): every other source that yields no offer at all fails the run's collection and
    # withdraws nothing (chipcost.pipeline.collect).
    may_be_empty: bool = False
    # The most offers one run of it may yield: more than its provider lists (docs/sources.md,
    # "How many offers a source lists"); a run past it fails, none of it loaded.
    most_offers: int = MOST_OFFERS
    # True for a source of reference facts, not prices (the ECB's exchange rates): its
    # provider sells nothing, so no discount or price filter names it.
    reference: bool = False
    # What the provider has announced it will retire of what this source reads, and when
    # (RunPod's GraphQL API): `chipcost sources` says it beside the source. "" when nothing.
    retiring: str = ""
    # Every format it has read, retired ones too, declared beside its parser
    # (extract/_formats.py): which one an archived payload is, by its URL, and the fields of
    # its rows; each run compares its payloads with them (`drift`) before parsing.
    formats: tuple[Format, ...] = ()
    # The environment variables its fetch reads, by the name it reads them as from
    # ctx.settings ({"runpod_api_key": "RUNPOD_API_KEY"}): a keyed source declares its key
    # here and nowhere else (chipcost.extract.source_env() gathers them for a run).
    settings: Mapping[str, str] = field(default_factory=dict, hash=False, compare=False)
    # What the docs say of it (docs/sources.md's tables and the README's provider list are
    # generated from these): the provider's name in words, what it asks for and what its
    # parser was checked against, and, for a source that declares no JSON format (an HTML
    # page, CSV or XML), how its parser finds the layout changed.
    title: str = ""
    checked: Checked | None = None
    layout: str = ""

    def __post_init__(self) -> None:
        if self.parse is None:
            if self.rows is None or self.offers is None:
                raise TypeError(f"source {self.name}: give parse, or rows and offers")
            object.__setattr__(self, "parse", self._parse_rows)
        object.__setattr__(self, "parse", one_price_each(self.parse, self.formats))

    def drift(self, payloads: Sequence[Payload]) -> list[str]:
        """What the payloads show that the formats it declares do not (new, missing or
        retyped fields), one note per format and place; nothing when it declares none."""
        return drift(self.formats, payloads, self.name)

    def _parse_rows(self, payloads: Sequence[Payload]) -> ParseResult:
        """Price records from archived payloads; pure."""
        assert self.rows is not None and self.offers is not None
        result = each_row(
            payloads,
            self.name,
            self.provider,
            rows=self.rows,
            offers=self.offers,
            combine=self.combine,
        )
        if self.notes is not None:
            try:
                result.notes.extend(self.notes(result))
            except ROW_FAILURES as exc:
                if isinstance(exc, ChipcostError):
                    raise
                # The prices stand; only the summary of them failed, and says so.
                result.notes.append(
                    f"the parse's notes could not be written ({type(exc).__name__}: {exc}): "
                    "a bug in chipcost; the prices were loaded; report it with the archived run"
                )
        return result


def read_by(what: str, names: Sequence[str]) -> str:
    """The `Source.layout` of an HTML page its parser reads by `names` (its table headers or
    labels, the parser's own constant): how a changed layout is found, said from them."""
    listed = ", ".join(f"`{name}`" for name in names[:-1])
    listed = f"{listed} and `{names[-1]}`" if listed else f"`{names[-1]}`"
    return f"HTML page: the parser requires the {what} {listed} and fails naming a missing one"


def not_collected(name: str, provider: str, description: str, reason: str, **docs: Any) -> Source:
    """A provider registered only to say, on every run, why its prices are not collected: its
    fetch sends no request and its parse reads nothing, both skipped with `reason`; `docs`:
    what the docs say of it (Source.title, Source.checked)."""

    def skipped(*_: object) -> NoReturn:
        raise SourceSkipped(reason)

    return Source(
        name=name,
        provider=provider,
        description=description,
        fetch=skipped,
        parse=skipped,
        collected=False,
        **docs,
    )
