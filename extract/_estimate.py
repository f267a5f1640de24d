"""The sample's mark on a price no public page gives: carried from the payload to the record."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

# The key (JSON) or attribute (HTML, as data-chipcost-estimate) the sample builders add beside
# a provider's own fields where the offer's price is an estimate (sample/REFERENCES.md says
# why); providers send no such key, so a live record never carries it. Its value says what the
# estimate rests on.
ESTIMATE_KEY = "chipcostEstimate"
ESTIMATE_ATTRIBUTE = "data-chipcost-estimate"


def estimate_of(row: object) -> dict[str, str]:
    """{"estimate": what it rests on} for a row marked as an estimate, else {}: merged into a
    record's extra, where the reads find it."""
    if not isinstance(row, Mapping):
        return {}
    basis = row.get(ESTIMATE_KEY, row.get(ESTIMATE_ATTRIBUTE))
    return {"estimate": basis.strip()} if isinstance(basis, str) and basis.strip() else {}


def estimate_of_all(extras: Iterable[Mapping[str, object]]) -> dict[str, str]:
    """A summary's mark (a marketplace's median of its offers): the marks of the records it
    summarises, each once, or {} when none is marked."""
    found = sorted({str(e["estimate"]) for e in extras if e.get("estimate")})
    return {"estimate": "; ".join(found)} if found else {}
