"""`chipcost compare A B`: is chip A cheaper per token than chip B, on each pricing model."""

from chipcost.cli.parser import read_command
from chipcost.core.questions import COMPARE

compare = read_command(COMPARE)
