"""Shared by the plan-list sources: the skip when a key is missing."""

from __future__ import annotations

from chipcost.core.errors import SourceSkipped


def missing_key(variable: str, provider: str, where: str) -> SourceSkipped:
    """'JL_API_KEY is not set: ...': the run goes on and the summary says what to set."""
    return SourceSkipped(
        f"{variable} is not set: {provider}'s price API needs a key; create one in {where} and set "
        f"{variable} to collect {provider} prices (or run `chipcost collect --replay DIR`)"
    )
