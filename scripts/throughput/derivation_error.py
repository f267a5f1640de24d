"""The derivation's error against the catalogue, as docs/cost-per-token.md carries it.

.venv/bin/python scripts/throughput/derivation_error.py          # the summary table
.venv/bin/python scripts/throughput/derivation_error.py --each   # every figure checked
.venv/bin/python scripts/throughput/derivation_error.py --out-of-sample  # the fitted one's
.venv/bin/python scripts/throughput/derivation_error.py --write   # rewrite the docs' tables

--write replaces every block of docs/cost-per-token.md between
`<!-- derivation-error: NAME -->` and `<!-- end derivation-error: NAME -->` with the table of
that name (TABLES); tests/transform/test_derivation_error.py fails when the page differs from
what --write would make of it.
"""

from __future__ import annotations

import math
import re
import statistics
import sys
from collections.abc import Callable
from pathlib import Path

from chipcost.core.catalog import chip_rows
from chipcost.transform.derivation_error import checks, markdown, summaries
from chipcost.transform.derivation_fit import Held, catalogue, cells_markdown, held_out
from chipcost.transform.derivation_fit import markdown as bands_markdown

DOCS = Path(__file__).resolve().parents[2] / "docs" / "cost-per-token.md"

# chips.csv's vendor -> the family the docs name (a vendor absent here is named as written)
FAMILIES = {
    "nvidia": "NVIDIA",
    "amd": "AMD",
    "aws": "AWS (Trainium, Inferentia)",
    "google": "Google TPU",
    "intel": "Intel (Gaudi)",
    "qualcomm": "Qualcomm",
    "tenstorrent": "Tenstorrent",
}
# the vendor families whose every check is listed one by one under the summary
LISTED = ("aws", "google")


def _held() -> list[Held]:
    fitted = catalogue()
    found = checks(workload="inference")
    return held_out(found, fitted.sizes)


def _vendors() -> dict[str, str]:
    return {row["chip"]: row["vendor"] for row in chip_rows()}


def families_markdown(held: list[Held] | None = None) -> str:
    """The out-of-sample error per vendor family: every family of chips.csv, 'no checks'
    where the catalogue holds no inference figure the derivation can be held to."""
    held = _held() if held is None else held
    vendors = _vendors()
    lines = [
        "| vendor family | chips checked | checked | of which calibrated on the chip's other "
        "publications | median predicted/published | 10th-90th percentile | worst factor off | "
        "worst figure |",
        "|---|---|---:|---:|---:|---:|---:|---|",
    ]
    known = sorted({v for v in vendors.values() if v and v != "unknown"}, key=_family_order)
    for vendor in known:
        mine = [h for h in held if vendors.get(h.check.chip) == vendor]
        name = FAMILIES.get(vendor, vendor)
        if not mine:
            lines.append(f"| {name} | | 0 | | no checks | | | |")
            continue
        ratios = sorted(h.ratio for h in mine)
        deciles = statistics.quantiles(ratios, n=10, method="inclusive") if len(ratios) > 1 else []
        low, high = (deciles[0], deciles[-1]) if deciles else (ratios[0], ratios[0])
        worst = max(mine, key=lambda h: max(h.ratio, 1 / h.ratio))
        chips = ", ".join(sorted({h.check.chip for h in mine}))
        lines.append(
            f"| {name} | {chips} | {len(mine)} | {sum(h.calibrated for h in mine)} | "
            f"{statistics.median(ratios):.2f} | {low:.2f}-{high:.2f} | "
            f"{max(worst.ratio, 1 / worst.ratio):.2f} | `{worst.check.throughput_id}` |"
        )
    return "\n".join(lines)


def _family_order(vendor: str) -> tuple[int, str]:
    order = list(FAMILIES)
    return (order.index(vendor) if vendor in order else len(order), vendor)


def listed_markdown(held: list[Held] | None = None) -> str:
    """Every Neuron and TPU check one by one: published, predicted out of sample, the ratio."""
    held = _held() if held is None else held
    vendors = _vendors()
    lines = [
        "| figure | chip | published tok/s per chip | predicted out of sample | "
        "predicted/published | calibrated on the chip's other publications | at |",
        "|---|---|---:|---:|---:|---|---|",
    ]
    mine = [h for h in held if vendors.get(h.check.chip) in LISTED]
    for h in sorted(mine, key=lambda h: (h.check.chip, h.check.throughput_id)):
        lines.append(
            f"| `{h.check.throughput_id}` | {h.check.chip} | {h.check.measured:,.1f} | "
            f"{h.predicted:,.1f} | {h.ratio:.2f} | {'yes' if h.calibrated else 'no'} | "
            f"{h.check.point} |"
        )
    return "\n".join(lines)


# The chips and models docs/cost-per-token.md's training calibration table shows.
TRAINING_CHIPS = (
    "H100-SXM", "H200", "B200", "B300", "GB200", "GB300", "MI300X", "MI325X", "MI355X",
    "TPU-v6e", "TPU-v5p", "TPU-v5e", "Trainium1", "Trainium2", "Trainium3",
)  # fmt: skip
TRAINING_MODELS = (("8B-class models", "llama-3-8b"), ("70B-class models", "llama-3-70b"))


def training_markdown() -> str:
    """The MFU each chip's derived training figure is calibrated at, per model size, and what
    it rests on (transform/training.py's calibration over the whole catalogue)."""
    from chipcost.transform.references import model_rows, throughput_references
    from chipcost.transform.training import calibration_for, calibrations

    chips = {row["chip"]: row for row in chip_rows()}
    models = {str(m["model"]): m for m in model_rows()}
    table = calibrations(throughput_references(), chips, models)
    lines = [
        "| chip | " + " | ".join(name for name, _ in TRAINING_MODELS) + " |",
        "| --- |" + " --- |" * len(TRAINING_MODELS),
    ]
    for chip in (c for c in TRAINING_CHIPS if c in chips):
        cells = []
        for _, model in TRAINING_MODELS:
            found = calibration_for(chips[chip], models[model], table)
            cells.append(
                f"{100 * found.mfu:.1f}% {found.precision.upper()} ({found.scope}, "
                f"{len(found.figures)} figure(s), models {found.size})"
                if found
                else "none published: the flat assumption of derivation.csv"
            )
        lines.append(f"| {chip} | " + " | ".join(cells) + " |")
    return "\n".join(lines)


def _in_sample() -> str:
    return markdown(summaries(checks()))


def _groups() -> str:
    return bands_markdown(list(catalogue().bands.values()))


def _cells() -> str:
    return cells_markdown(list(catalogue().bands.values()))


TABLES: dict[str, Callable[[], str]] = {
    "in-sample": _in_sample,
    "groups": _groups,
    "cells": _cells,
    "families": families_markdown,
    "neuron-and-tpu": listed_markdown,
    "training-calibration": training_markdown,
}
_BLOCK = re.compile(
    r"(<!-- derivation-error: (?P<name>[a-z-]+) -->\n)(?:.*?\n)?(<!-- end derivation-error: "
    r"(?P=name) -->)",
    re.DOTALL,
)


def rewritten(text: str) -> str:
    """The page with every marked block replaced by its current table; a block of an unknown
    name, or a table with no block, is an error naming it."""
    names = [m["name"] for m in _BLOCK.finditer(text)]
    unknown = sorted(set(names) - set(TABLES))
    missing = sorted(set(TABLES) - set(names))
    if unknown or missing:
        raise SystemExit(
            f"docs/cost-per-token.md: unknown table block(s) {unknown}, missing {missing}"
        )
    return _BLOCK.sub(lambda m: m.group(1) + TABLES[m["name"]]() + "\n" + m.group(3), text)


def main(argv: list[str]) -> None:
    if "--write" in argv:
        text = DOCS.read_text(encoding="utf-8")
        new = rewritten(text)
        DOCS.write_text(new, encoding="utf-8")
        print("docs/cost-per-token.md: " + ("rewritten" if new != text else "already current"))
        return
    if "--out-of-sample" in argv:
        fitted = catalogue()
        print(_groups(), _cells(), families_markdown(), sep="\n\n")
        for size, line in sorted(fitted.fit.groups.items()):
            at_max, at_25 = math.exp(line.at(None)), math.exp(line.at(25))
            print(f"{size}: x{at_max:.2f} at maximum throughput, x{at_25:.2f} at 25 tokens/s "
                  f"per user ({line.count} figures)")  # fmt: skip
        for chip, residuals in sorted(fitted.fit.chips.items()):
            mean = statistics.fmean(r for _, r in residuals)
            print(f"{chip}: x{math.exp(mean):.2f} of its size's line ({len(residuals)} figures)")
        return
    found = checks()
    print(markdown(summaries(found)))
    if "--each" in argv:
        for check in sorted(found, key=lambda c: c.ratio):
            print(
                f"{check.ratio:6.2f}  {check.throughput_id}  published {check.measured:,.0f}"
                f"  derived {check.derived:,.0f}  at {check.point}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
