"""Shared by the plan-list sources: the skip when a key is missing."""

from __future__ import annotations

from chipcost.core.errors import SourceSkipped


def missing_key(variable: str, provider: str, where: str) -> SourceSkipped:
    """'no JL_API_KEY key: ...': the run goes on and the summary says what to set."""
    return SourceSkipped(
        f"no {variable} key: {provider}'s price API needs one; create it in {where} and set "
        f"{variable} to collect {provider} prices (or run `chipcost collect --replay DIR`)"
    )
