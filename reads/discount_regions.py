"""Discount rules whose region the warehouse holds no price in, for the rule's provider: such
a rule applies to nothing (most often a misspelt region), so each read says so in one line
naming the rule's line and the closest regions the provider has. The file is named by its
name, not its path: these lines reach the explorer and the e-mail."""

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
    rows = con.execute(
        "SELECT DISTINCT provider, lower(coalesce(region, '')) FROM price_history "
        "WHERE provider IN (SELECT unnest(?))",
        [ruled],
    ).fetchall()
    for provider, region in rows:
        held.setdefault(provider, set()).add(region)
    return tuple(
        _line(discounts.path, rule.line, rule.provider, rule.region, sorted(held[rule.provider]))
        for rule in discounts.rules
        if rule.region is not None
        and rule.provider in held
        and rule.region not in held[rule.provider]
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
