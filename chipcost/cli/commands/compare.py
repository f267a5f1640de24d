"""`chipcost compare A B`: is chip A cheaper per token than chip B, on each pricing model."""

from __future__ import annotations

from chipcost.cli.declared import command
from chipcost.core.questions import COMPARE

compare = command(COMPARE)
