"""chipcost: daily AI-accelerator prices with history, per-chip views and drift reports."""

__version__ = "0.1.0"
