"""`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect."""

from chipcost.cli import reads
from chipcost.cli.parser import Command
from chipcost.core.asks import PRICES

prices = Command("prices", PRICES, reads.prices)
