"""chipcost: daily AI-accelerator prices with history, per-chip views and drift reports."""

from chipcost.core.version import __version__

__all__ = ["__version__"]
