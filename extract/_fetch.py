"""The fetches web sources share, each payload archived as it arrives (extract/_http.py's
get): a keyed API's GETs, a page read whole, a payload a source can do without, and a JSON
listing paged by links or tokens in its body."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from dataclasses import dataclass
from typing import Any

from chipcost.core.budget import OverLimit
from chipcost.core.errors import SourceError
from chipcost.core.payload import Payload
from chipcost.extract._http import HttpClient, get, http_client
from chipcost.extract._kit import load_json, missing_key
from chipcost.extract.base import FetchContext


@dataclass(frozen=True)
class ApiKey:
    """A source's API key, declared once: the setting a run hands it as (`ctx.settings`) and
    the environment variable behind it, which make the source's `Source(settings=...)`; the
    provider and the place in its console a user makes one, for the message when it is
    missing; and the header that sends it."""

    setting: str
    env: str
    named: str = ""
    where: str = ""
    header: str = "Authorization"
    scheme: str = "Bearer"  # "" sends the key bare
    accept_json: bool = False

    @property
    def settings(self) -> dict[str, str]:
        """What the source declares in Source(settings=...): {setting: variable}."""
        return {self.setting: self.env}

    def of(self, ctx: FetchContext) -> str:
        """The key this run was given, "" when the variable is not set."""
        return str(getattr(ctx.settings, self.setting) or "")

    def required(self, ctx: FetchContext) -> str:
        """The key, or the source skipped with a message naming the variable and where to
        make a key."""
        key = self.of(ctx)
        if not key:
            raise missing_key(self.env, self.named, self.where)
        return key

    def headers(self, key: str) -> dict[str, str]:
        """The headers that send `key` ({} without one): never archived or printed."""
        if not key:
            return {}
        headers = {self.header: f"{self.scheme} {key}" if self.scheme else key}
        if self.accept_json:
            headers["Accept"] = "application/json"
        return headers


def keyed_get(
    ctx: FetchContext, provider: str, urls: Mapping[str, str], api: ApiKey
) -> list[Payload]:
    """GET each of `urls` (progress label -> URL) in order with the key in its header, each
    archived as it arrives (the key never); no key: the source is skipped, saying where to
    make one."""
    headers = api.headers(api.required(ctx))
    payloads = []
    with http_client(provider, ctx, key_hint=api.env) as client:
        for label, url in urls.items():
            payloads.append(get(ctx, client, url, headers=headers, ext="json"))
            ctx.progress(label)
    return payloads


def one_page(
    ctx: FetchContext, provider: str, url: str, *, label: str, ext: str = ""
) -> list[Payload]:
    """A listing one GET returns whole (a pricing page), archived as it arrives."""
    with http_client(provider, ctx) as client:
        page = get(ctx, client, url, ext=ext)
    ctx.progress(f"{label}, {len(page.data)} bytes")
    return [page]


def optional(
    ctx: FetchContext,
    client: HttpClient,
    url: str,
    *,
    ext: str,
    what: str,
    lost: str,
    log: logging.Logger,
) -> list[Payload]:
    """A payload the source can do without: [it], or [] with a warning saying what is `lost`
    this run (the rest of the source still loads). Its answer refused is not archived: the
    fetch goes on and finishes, and its parse reads every payload the fetch archived."""
    try:
        return [get(ctx, client, url, ext=ext, keep_refused=False)]
    except OverLimit:
        raise  # a bound passed: the next answer would pass it too, so the source fails
    except SourceError as exc:
        log.warning("%s (%s)", exc, lost)
        ctx.progress(f"{what} unavailable: {exc}")
        return []


def linked_pages(
    ctx: FetchContext,
    client: HttpClient,
    url: str,
    params: Mapping[str, Any],
    *,
    token: str,
    token_param: str = "",
    max_pages: int,
    label: str,
    where: str,
    too_many: str,
) -> list[Payload]:
    """Every page of a JSON listing whose body names the next page: `token` is the field that
    holds the next page's URL or, with `token_param`, a token sent back under that name.

    A chain that repeats itself or runs past `max_pages` fails the source (`too_many` says
    what to raise), so a looping API cannot keep a run fetching for ever.
    """
    pages = [get(ctx, client, url, params=params)]
    seen: set[str] = set()
    while True:
        body = load_json(pages[-1], client.provider)
        link = body.get(token) if isinstance(body, dict) else None
        ctx.progress(f"{label} page {len(pages)}")
        if not link:
            return pages
        if link in seen or len(pages) >= max_pages:
            raise SourceError(
                f"{client.provider}: {where} still had a {token} after {len(pages)} pages or "
                f"repeated one: the API is looping; run again later, or {too_many}"
            )
        seen.add(link)
        if token_param:
            params = {**params, token_param: link}
            pages.append(get(ctx, client, url, params=params))
        else:
            pages.append(get(ctx, client, link))
