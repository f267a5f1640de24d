"""Crusoe: registered so that every run says why its prices are not collected (no price source)."""

from __future__ import annotations

from collections.abc import Sequence

from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "crusoe"
PROVIDER = "crusoe"
# Crusoe's API (HMAC-signed, api.crusoecloud.com/v1alpha5) lists instance types and capacity
# per location but no prices; the only price list is this page, rendered in the browser with
# no documented data behind it. gpuhunt hard-codes numbers copied from it; chipcost does not
# invent a price source (docs/sources.md, "crusoe").
PRICING_PAGE = "https://crusoe.ai/cloud/pricing"
NOT_COLLECTED = (
    "no price source: Crusoe's API lists instance types and capacity but no prices, and its "
    f"price list ({PRICING_PAGE}) is a page rendered in the browser; Crusoe prices are not "
    "collected (docs/sources.md, crusoe)"
)


def fetch(ctx: FetchContext) -> list[Payload]:
    """Nothing to fetch: skipped with the reason, without a request."""
    raise SourceSkipped(NOT_COLLECTED)


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """Nothing is ever archived for Crusoe; an archive that claims otherwise is skipped too."""
    raise SourceSkipped(NOT_COLLECTED)


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Crusoe: not collected, always skipped: its API has no prices and its price list is a "
        "browser-rendered page (docs/sources.md)"
    ),
    fetch=fetch,
    parse=parse,
    collected=False,
)
