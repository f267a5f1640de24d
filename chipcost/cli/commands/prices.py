"""`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect."""

from __future__ import annotations

from chipcost.cli.declared import command
from chipcost.core.questions import PRICES

prices = command(PRICES)
