"""The one helper every source test uses: recorded payloads, fetch contexts that fake HTTP at the
transport, and each source's contract cases (tests/fixtures/<source>/contract.toml)."""

from __future__ import annotations

import json
import tomllib
from collections.abc import Callable
from dataclasses import dataclass, field
from dataclasses import field as dataclass_field
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

import httpx

from chipcost.archive import ArchiveWriter
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.core.settings import SourceSettings
from chipcost.core.stopping import Deadline
from chipcost.extract.base import FetchContext
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES

FETCHED_AT = datetime(2026, 11, 14, 6, 0, 2, tzinfo=UTC)
STAMP = "2026-11-14T060000Z"
# Every key a source may be given, set to one value the contract test looks for everywhere.
SECRET = "sekrit-KEY-0123456789"
CONTRACT = "contract.toml"


def nested_json(value: Any) -> Any:
    """A JSON document nested as text (AWS's PriceList entries), decoded; else None."""
    if isinstance(value, str) and value[:1] in "{[":
        try:
            return json.loads(value)
        except ValueError:
            return None
    return None


def payload(
    source: str,
    name: str,
    url: str,
    fetched_at: datetime = FETCHED_AT,
    data: bytes | None = None,
    request: dict[str, Any] | None = None,
    stamp: str = STAMP,
    *,
    file: str | None = None,
) -> Payload:
    """A fixture file (or `data` given under that name) as the Payload its fetch archived,
    with the request the archive's manifest keeps beside it (an AWS call's operation); its
    ref is `<stamp>/<source>/<name>`. `file`: the fixture read when it is not `name` (a feed
    recorded as spot.js that fetch archives as 0001.js.gz)."""
    body = (FIXTURES / source / (file or name)).read_bytes() if data is None else data
    return Payload(body, url, fetched_at, name, f"{stamp}/{source}/{name}", request or {})


def context(
    tmp_path: Path,
    source: str,
    handler: Callable[[httpx.Request], httpx.Response] | None = None,
    waits: list[float] | None = None,
    settings: SourceSettings | None = None,
    messages: list[str] | None = None,
    *,
    stamp: str = STAMP,
    deadline: float | None = None,
    real_waits: bool = False,
    **configured: Any,
) -> FetchContext:
    """A FetchContext archiving under `tmp_path`/`stamp`, whose HTTP goes to `handler`
    (httpx.MockTransport; none: a real connection, or a source on boto3) and never sleeps;
    its progress messages go to `messages` when given.

    `configured`: the SourceSettings to give, by name (aws_price_list_url=...), when not
    `settings` itself.
    `deadline`: the fetch's whole budget, in seconds from now (none: no limit).
    `real_waits`: retry waits really wait (the run's own pause, which a stop ends), for tests
    of time and stopping; `waits` then records nothing."""
    if settings is not None and configured:
        raise TypeError(f"settings or {sorted(configured)}, not both")
    sleeps = waits if waits is not None else []
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, stamp, source),
        settings=settings if settings is not None else SourceSettings(**configured),
        transport=httpx.MockTransport(handler) if handler is not None else None,
        sleep=None if real_waits else sleeps.append,
        deadline=Deadline.after(deadline) if deadline is not None else None,
    )
    if messages is not None:
        ctx.progress = messages.append
    return ctx


def assert_loadable(result: ParseResult) -> None:
    """The shared invariants: every record passes validation (price, chips, key, USD)."""
    from chipcost.extract import source_providers

    validated = validate_records(result.records, source_providers())
    assert not validated.rejects, [r.reason for r in validated.rejects]
    for record in result.records:
        assert record.payload_ref and record.source_url and record.observed_at == FETCHED_AT


def keyed_settings() -> SourceSettings:
    """Settings with every key set to SECRET (and a team handle), as a keyed run has them."""
    from chipcost.extract import source_env

    keys = {name: SECRET for name in source_env() if name.endswith("_api_key")}
    return SourceSettings(**keys, hotaisle_team="team-handle")


@dataclass(frozen=True)
class Case:
    file: str
    url: str
    field: str = ""
    request: dict[str, Any] = dataclass_field(default_factory=dict)

    def payload(self, source: str) -> Payload:
        return payload(source, self.file, self.url, request=self.request)


@dataclass(frozen=True)
class Spoiled:
    """One price of one offer spoiled in a good fixture `file`: each match of `price` (a regular
    expression; its first group the price) made `to` ({} the price as it was). `offer`, as
    'instance_type region pricing_model', is one the spoiled listing prices no more."""

    file: str
    price: str
    offer: str
    to: str = "{}x"


@dataclass(frozen=True)
class Contract:
    """What tests/fixtures/<source>/contract.toml declares for the contract test."""

    source: str
    good: tuple[Case, ...]
    renamed: Case | None = None
    bad_rows: tuple[Case, ...] = ()
    # the provider's own empty answer, where emptying the good files' lists cannot make one
    # (a listing keyed by name: {"data": {}})
    empty: Case | None = None
    fetch: str = "http"  # "http": through httpx; anything else names where fetch is tested
    extra: dict[str, Any] = field(default_factory=dict)
    # payloads not written here (a recording, or the provider's documented example) kept out
    # of the good files (they would price the same offers again, or are too large for the
    # field-by-field walks over the good files): each is parsed alone
    recorded: tuple[Case, ...] = ()
    # answers of a format the source no longer fetches (an API version it moved on from),
    # each replayed alone: an archive of every format it has known still parses
    retired: tuple[Case, ...] = ()
    # a price of one offer spoiled: the offer stays open (tests/pipeline/
    # test_refused_price_keeps_offer.py)
    spoiled: tuple[Spoiled, ...] = ()

    def good_payloads(self) -> list[Payload]:
        return [case.payload(self.source) for case in self.good]

    def answer(self, request: httpx.Request) -> httpx.Response:
        """The good fixture recorded from the request's host and path (any query)."""
        for case in self.good:
            url = httpx.URL(case.url)
            if (url.host, url.path) == (request.url.host, request.url.path):
                body = (FIXTURES / self.source / case.file).read_bytes()
                return httpx.Response(200, content=body)
        return httpx.Response(404, json={"error": f"no fixture for {request.url}"})


def contract(source: str) -> Contract | None:
    path = FIXTURES / source / CONTRACT
    if not path.is_file():
        return None
    spec = tomllib.loads(path.read_text(encoding="utf-8"))
    renamed = spec.get("renamed")
    return Contract(
        source=source,
        good=tuple(Case(**c) for c in spec.get("good", [])),
        renamed=Case(**renamed) if renamed else None,
        bad_rows=tuple(Case(**c) for c in spec.get("bad_rows", [])),
        empty=Case(**spec["empty"]) if "empty" in spec else None,
        fetch=spec.get("fetch", "http"),
        recorded=tuple(Case(**c) for c in spec.get("recorded", [])),
        retired=tuple(Case(**c) for c in spec.get("retired", [])),
        spoiled=tuple(Spoiled(**c) for c in spec.get("spoiled", [])),
    )


def emptied(found: Payload) -> Payload:
    """The payload with every JSON list in it emptied: the provider's shape, listing nothing."""

    def empty(value: Any) -> Any:
        if isinstance(value, list):
            return []
        if isinstance(value, dict):
            return {k: empty(v) for k, v in value.items()}
        return value

    data = json.dumps(empty(json.loads(found.data))).encode()
    return Payload(data, found.url, found.fetched_at, found.name, found.ref)


def payloads_of(
    source: str,
    default_url: str = "",
    *,
    fetched_at: datetime = FETCHED_AT,
    stamp: str = STAMP,
    request: dict[str, Any] | None = None,
    file: str | None = None,
) -> Callable[..., Payload]:
    """`payload(name, url=default_url)` bound to one source's fixture folder; "{name}" in
    `default_url` stands for the file's name (AWS's paths), and keywords beyond `data` go
    into the archived request over `request` (`region=`, `access=`). `file`: the one fixture
    read whatever the archived name, for a source fetching a single file."""

    def recorded(
        name: str,
        url: str = default_url,
        fetched_at: datetime = fetched_at,
        data: bytes | None = None,
        **asked: Any,
    ) -> Payload:
        where = url.replace("{name}", name)
        asked = {**(request or {}), **asked}
        return payload(source, name, where, fetched_at, data, asked, stamp, file=file)

    return recorded
