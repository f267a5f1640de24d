"""A count as chipcost says one, in every command, report and message: '1 offer', '2,531 more
rows', '0 runs' (thousands separated, the noun plural but for one)."""

from __future__ import annotations


def counted(count: int, noun: str) -> str:
    """'1 offer', '0 offers', '2,707 offers', '2,531 more rows'."""
    return f"{count:,} {noun}{'' if count == 1 else 's'}"
