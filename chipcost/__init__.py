"""chipcost: daily AI-accelerator prices with history, per-chip views and drift reports.

The Python API (docs/api.md) is imported on first use, so `import chipcost` stays light:
chipcost.prices(), chipcost.cost(), chipcost.compare(), chipcost.history(), chipcost.index(),
chipcost.sources(), chipcost.sql().
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

from chipcost.core.version import __version__

if TYPE_CHECKING:
    from chipcost.api import compare, cost, history, index, prices, sources, sql

__all__ = ["__version__", "compare", "cost", "history", "index", "prices", "sources", "sql"]
_API = ("compare", "cost", "history", "index", "prices", "sources", "sql")


def __getattr__(name: str) -> Any:
    if name in _API:
        from chipcost import api

        return getattr(api, name)
    raise AttributeError(f"module 'chipcost' has no attribute {name!r}")


def __dir__() -> list[str]:
    """The lazily imported API too, for tab completion in notebooks and shells."""
    return sorted({*globals(), *_API})
