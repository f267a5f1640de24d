"""What a parse may make before it is the feed's fault, not a price list: the offers of one
source's run (offers_bounded, counted as each record is made) and the places one listed row
is sold in (too_many_places)."""

from __future__ import annotations

from collections.abc import Iterator, Sized
from contextlib import contextmanager
from contextvars import ContextVar
from dataclasses import dataclass

from chipcost.core.errors import SourceError


class TooManyOffers(SourceError):
    """A parse past its source's bound on offers (Source.most_offers), or on rows refused
    (as many): refused as they are made, never all held first."""


@dataclass
class _Left:
    source: str
    most: int
    taken: int = 0
    refused: int = 0

    def message(self) -> str:
        return (
            f"{self.source}: more than {self.most:,} offers in one run, more than its provider "
            f'lists (at most {self.most:,}; docs/sources.md, "How many offers a source lists"): '
            "none loaded, the prices already held are kept; the payloads are archived: if the "
            "provider really lists that many, report it"
        )

    def refused_message(self) -> str:
        return (
            f"{self.source}: more than {self.most:,} rows refused in one run, more than the "
            f"offers its provider lists (at most {self.most:,}): not a price list chipcost "
            "reads; none loaded, the prices already held are kept; the payloads are archived: "
            "look at them, and report it if the provider's listing changed"
        )


# The bound of the parse under way, in this thread (offers_bounded); None: none.
_OFFERS_LEFT: ContextVar[_Left | None] = ContextVar("chipcost_offers_left", default=None)


def count_offer() -> None:
    """One more offer made by the parse under way: TooManyOffers at the first past its bound
    (offers_bounded); nothing outside one."""
    if (left := _OFFERS_LEFT.get()) is not None:
        left.taken += 1
        if left.taken > left.most:
            raise TooManyOffers(left.message())


def count_refused() -> None:
    """One more row refused by the parse under way: TooManyOffers at the first past the
    bound on offers (offers_bounded); nothing outside one. A listing of 1.1 million rows
    refused held 1.8 GB and wrote each to `rejects` (which are never pruned)."""
    if (left := _OFFERS_LEFT.get()) is not None:
        left.refused += 1
        if left.refused > left.most:
            raise TooManyOffers(left.refused_message())


@contextmanager
def offers_bounded(source: str, most: int) -> Iterator[None]:
    """Within it, a parse making more than `most` offers (Origin.record) or refusing more
    than `most` rows (count_refused) raises TooManyOffers at the first past it: a feed of
    800,000 offers held 840 MB before it was counted."""
    token = _OFFERS_LEFT.set(_Left(source, most))
    try:
        yield
    finally:
        _OFFERS_LEFT.reset(token)


# The most places (regions, zones, datacenters, locations) one listed row may be sold in: more
# than any provider has. The largest today are AWS (38 regions, about 120 zones) and Google
# Cloud (42 regions, about 130 zones); a web source's plan lists its provider's locations (Vultr
# 32, Fluidstack, CloudRift, Seeweb, Latitude and DigitalOcean fewer). A row past it is refused
# whole: each place would become an offer, and 10,000 of them from one plan are a feed's fault,
# not a price list (the sources' bounds: docs/sources.md, "How many places a row lists").
MAX_PLACES_PER_ROW = 200


def too_many_places(places: Sized, what: str) -> str | None:
    """Why a row listing `places` is refused (more than MAX_PLACES_PER_ROW), else None."""
    if len(places) <= MAX_PLACES_PER_ROW:
        return None
    return (
        f"{what}: lists {len(places):,} places to rent it in, more than any provider has "
        f"(at most {MAX_PLACES_PER_ROW} a row): not read as offers"
    )
