"""`chipcost cost`: which chip and pricing model is cheapest per token for a model and workload."""

from chipcost.cli import reads
from chipcost.cli.parser import Command
from chipcost.core.asks import COST

cost = Command("cost", COST, reads.cost)
