"""`chipcost cost`: which chip and pricing model is cheapest per token for a model and workload."""

from __future__ import annotations

from chipcost.cli.declared import command
from chipcost.core.questions import COST

cost = command(COST)
