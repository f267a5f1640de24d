"""The commands a message suggests the user run, declared once.

A suggested command is an instruction to run the command line, so it keeps the command line's
spelling whoever asked (the Python API's user too); the options inside it are spelled by the
command line's voice, as every other message below the command line spells them.
"""

from __future__ import annotations

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.questions import COMMAND_LINE


def suggested(command: str, *words: str, **options: object) -> str:
    """'chipcost collect --replay DIR' of ('collect', replay='DIR'): the words as given, then
    each option (True: the option alone, a flag)."""
    said = [COMMAND_LINE.said(k, v) for k, v in options.items()]
    return " ".join(["chipcost", command, *words, *said])


# Re-parse the archived payloads once a parser is fixed (nothing fetched is lost).
REPLAY = suggested("collect", replay=True)
REPLAY_DIR = suggested("collect", replay="DIR")
# Load the runs a collection archived but did not load.
PENDING = suggested("collect", pending=True)
# The ECB's reference rates, which --currency converts at.
RATES = suggested("collect", source="ecb-rates")
# The offers whose GPU names no chip chipcost knows (chip `unknown`), by provider and type.
UNKNOWN_OFFERS = suggested(
    "sql", f"\"SELECT provider, instance_type FROM current_prices WHERE chip = '{UNKNOWN_CHIP}'\""
)
# A new warehouse, made at a path of the user's choosing.
NEW_WAREHOUSE = suggested("collect", db="NEW.duckdb")
# The warehouse's runs, with the ids remove-run takes.
RUNS = suggested("sources", runs=True)
# The user's own throughput measurements, with their ids.
MEASUREMENTS = suggested("throughput list", origin="user")


def rebuilt(archive: str, db: str) -> str:
    """A warehouse made anew from an archive: 'chipcost collect --replay ARCHIVE --db NEW'."""
    return suggested("collect", replay=archive, db=db)


def model_size(model: str, size: str = "N") -> str:
    """'chipcost throughput model llama-3-70b --parameters 70B': a model's parameter count."""
    return suggested("throughput model", model, parameters=size)


def figure_added(*words: str, **options: object) -> str:
    """'chipcost throughput add --chip H200 ...': a throughput figure of the user's own."""
    return suggested("throughput add", *words, **options)


# How to add the `lake` extra (DuckLake, PostgreSQL, S3 archives): chipcost is installed from
# its clone (it is not on PyPI), and always with constraints.txt.
INSTALL_LAKE = (
    "in chipcost's clone run scripts/setup.sh lake (for another environment: pip install "
    "-c constraints.txt '.[lake]' in the clone, with that environment's pip)"
)
