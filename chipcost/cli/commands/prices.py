"""`chipcost prices`: current per-chip hourly prices from the warehouse, without Prefect."""

from chipcost.cli.parser import read_command
from chipcost.core.questions import PRICES

prices = read_command(PRICES)
