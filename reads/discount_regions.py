"""Discount rules whose region the warehouse holds no price in, for the rule's provider: such
a rule applies to nothing (most often a misspelt region), so each read says so in one line
naming the rule's line and the closest regions the provider has; a zone given as the region
(us-east-1f) is said as one, with the region to give (a rule matches an offer's region, every
zone of it included: chipcost.transform.discounts). The file is named by its name, not its
path: these lines reach the explorer and the e-mail."""

from __future__ import annotations

from pathlib import PurePath

import duckdb

from chipcost.core.names import close_matches
from chipcost.transform.discounts import Discounts

# Listed when no region is close to the one written.
_LISTED = 4


def unknown_regions(con: duckdb.DuckDBPyConnection, discounts: Discounts) -> tuple[str, ...]:
    """One line per rule naming a region none of its provider's prices is in. A provider with
    no price in the warehouse at all is not judged: its regions are not known yet."""
    ruled = sorted({r.provider for r in discounts.rules if r.region is not None})
    if not ruled:
        return ()
    held: dict[str, set[str]] = {}
    zones: dict[tuple[str, str], str] = {}  # (provider, zone): its region
    rows = con.execute(
        "SELECT DISTINCT provider, lower(coalesce(region, '')), lower(coalesce(zone, '')) "
        "FROM price_history WHERE provider IN (SELECT unnest(?))",
        [ruled],
    ).fetchall()
    for provider, region, zone in rows:
        held.setdefault(provider, set()).add(region)
        if zone:
            zones[(provider, zone)] = region
    lines = []
    for rule in discounts.rules:
        if rule.region is None or rule.provider not in held or rule.region in held[rule.provider]:
            continue
        of = zones.get((rule.provider, rule.region))
        if of is not None:
            lines.append(_zone_line(discounts.path, rule.line, rule.provider, rule.region, of))
        else:
            regions = sorted(held[rule.provider])
            lines.append(_line(discounts.path, rule.line, rule.provider, rule.region, regions))
    return tuple(lines)


def _zone_line(path: str, line: int, provider: str, zone: str, region: str) -> str:
    return (
        f"discounts file {PurePath(path).name}, line {line}: {zone!r} is a zone of {provider}'s "
        f"region {region}, and a rule's region names a region, not a zone, so the rule applies "
        f"to nothing; give its region {region} (every offer of the region, its zones' "
        "included) or drop it"
    )


def _line(path: str, line: int, provider: str, region: str, regions: list[str]) -> str:
    close = close_matches(region, regions)
    if close:
        named = f"closest: {', '.join(close)}"
    else:
        more = f" and {len(regions) - _LISTED} more" if len(regions) > _LISTED else ""
        named = f"its regions include {', '.join(regions[:_LISTED])}{more}"
    return (
        f"discounts file {PurePath(path).name}, line {line}: the warehouse holds no {provider} "
        f"price in region {region!r} ({named}), so the rule applies to nothing; correct its "
        "region or drop it"
    )
