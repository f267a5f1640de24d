"""Throughput references, model sizes and derivation assumptions: data files in chipcost/data."""

from __future__ import annotations

import csv
from functools import cache
from importlib import resources

from chipcost.core.catalog import canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.core.figures import WORKLOADS, Assumption, Figure
from chipcost.transform.throughput_figures import figures_from_rows, normalise_model
from chipcost.transform.tokens import parse_quantity

THROUGHPUT_FILE = "chipcost/data/throughput.csv"
MODELS_FILE = "chipcost/data/models.csv"
DERIVATION_FILE = "chipcost/data/derivation.csv"


def _numbered_rows(name: str) -> tuple[list[int], list[dict[str, str]]]:
    """(line numbers, rows) of a data file; '#' lines are skipped but still counted."""
    with resources.files("chipcost").joinpath("data", name).open(encoding="utf-8") as handle:
        kept = [(n, line) for n, line in enumerate(handle, start=1) if not line.startswith("#")]
    reader = csv.DictReader(line for _, line in kept)
    rows, lines = [], []
    for row in reader:
        rows.append(row)
        lines.append(kept[reader.line_num - 1][0])  # line_num counts the kept lines
    return lines, rows


def _rows(name: str) -> list[dict[str, str]]:
    return _numbered_rows(name)[1]


@cache
def throughput_references() -> tuple[Figure, ...]:
    """Every row of throughput.csv, checked (a bad row stops the load, naming its line)."""
    lines, rows = _numbered_rows("throughput.csv")
    figures = figures_from_rows(
        rows, chips=canonical_chips(), origin="reference", where=THROUGHPUT_FILE, lines=lines
    )
    return tuple(figures)


@cache
def model_rows() -> tuple[dict[str, object], ...]:
    """Models with their parameter count and where it comes from (models.csv)."""
    models = []
    for line, row in enumerate(_rows("models.csv"), start=2):
        name = normalise_model(row["model"])
        if name != row["model"]:
            raise ChipcostError(f"{MODELS_FILE} line {line}: write the model as {name!r}")
        if not (row.get("source") or "").strip():
            raise ChipcostError(f"{MODELS_FILE} line {line}: the source is empty")
        params = parse_quantity(row["parameters"], f"{MODELS_FILE} line {line} parameters")
        models.append({**row, "parameters": params})
    return tuple(models)


@cache
def derivation_assumptions() -> tuple[Assumption, ...]:
    """The MFU and precision chipcost assumes per workload when it derives a figure."""
    rules = []
    for line, row in enumerate(_rows("derivation.csv"), start=2):
        workload, precision = row["workload"], row["precision"]
        mfu = float(row["mfu"])
        if workload not in WORKLOADS or precision not in ("fp8", "bf16") or not 0 < mfu <= 1:
            raise ChipcostError(f"{DERIVATION_FILE} line {line}: bad assumption {row}")
        families = frozenset(f.strip() for f in (row.get("not_on") or "").split(";") if f.strip())
        rules.append(Assumption(workload, mfu, precision, row["why"], families))
    return tuple(rules)
