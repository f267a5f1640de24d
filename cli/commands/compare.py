"""`chipcost compare A B`: is chip A cheaper per token than chip B, on each pricing model."""

from chipcost.cli import reads
from chipcost.cli.parser import Command
from chipcost.core.asks import COMPARE

compare = Command("compare", COMPARE, reads.compare)
