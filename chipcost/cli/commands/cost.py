"""`chipcost cost`: which chip and pricing model is cheapest per token for a model and workload."""

from chipcost.cli.parser import read_command
from chipcost.core.questions import COST

cost = read_command(COST)
