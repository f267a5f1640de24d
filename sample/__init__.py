"""The bundled sample archive: synthetic prices in each provider's real payload shape."""

from pathlib import Path

# Eight daily runs of every source (sample/README.md); replay it with
# `chipcost collect --replay` or `chipcost demo`.
ARCHIVE = Path(__file__).resolve().parent / "archive"
