"""Rows for core/data/throughput/vendor-nvidia-nemo.csv from NVIDIA NeMo Megatron-Bridge's
performance summary (docs/performance-summary.md and docs/performance-summary-archive.md).

Usage: python scripts/throughput/megatron_bridge_perf.py PAGE COMMIT VERSION=DATE [...]
e.g.   ... performance-summary-archive.md 067f987d 25.11=2025-12-04 26.04.01=2026-05-16

PAGE is a copy of one of the repository's two pages, under its own name (each row's source_url
is that page at COMMIT, at the anchor of its version's section: #2511-nemo-container).

The page has one section per NeMo container ("## 25.11 NeMo Container"), each with its
"### Pre-Training Performance" tables, laid out either per system ("#### System: DGX-H100",
a Model column) or per model ("#### Model: LLAMA3_70B", a System column). For each version
asked, every pre-training row of a Llama model on a canonical chip becomes one row: the
table's tokens/s per GPU times its GPUs, per system of that many chips (the run's scale), with
the precision class of the table's Precision column (FP8-CS, FP8 and MXFP8 are FP8; NVFP4 is
FP4; BF16) and its words kept in precision_stated. "a (b)" cells keep the first value, the
table's own precision; the value in parentheses is another quantization granularity (the
page's footnote). DATE is when the version's section was first published (git log -S).
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

CHIPS = {
    "DGX-H100": "H100-SXM",
    "DGX-B200": "B200",
    "DGX-B300": "B300",
    "DGX-GB200": "GB200",
    "DGX-GB300": "GB300",
}
MODELS = {"LLAMA3_8B": "llama-3-8b", "LLAMA3_70B": "llama-3-70b", "LLAMA3.1_405B": "llama-3.1-405b"}
PRECISIONS = {"FP8-CS": "fp8", "FP8": "fp8", "MXFP8": "fp8", "NVFP4": "fp4", "BF16": "bf16"}
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,precision_stated,"
    "operating_point,scenario,batch_size,sequence_length,software,system,submitter,source,"
    "source_url,source_date,stated_as,notes"
).split(",")
# The repository's pages of figures (docs/): a row's source_url names the one it was read from.
PAGES = ("performance-summary.md", "performance-summary-archive.md")
_VERSION = re.compile(r"^## (?P<version>[\d.]+) NeMo Container\s*$")
_TABLE = re.compile(r"^#### (?P<kind>System|Model): (?P<name>.+?)\s*$")


def _cells(line: str) -> list[str]:
    return [c.strip() for c in line.strip().strip("|").split("|")]


def anchor(version: str) -> str:
    """GitHub's id of a version's heading: '26.04.01 NeMo Container' is 260401-nemo-container."""
    return re.sub(r"[^a-z0-9 -]", "", f"{version} NeMo Container".lower()).replace(" ", "-")


def _first(cell: str) -> str:
    """'31508 (29789)' -> '31508'; 'FP8-CS (FP8-MX)' -> 'FP8-CS'."""
    return cell.split("(")[0].strip()


def tables(text: str) -> list[tuple[str, str, str, list[dict[str, str]]]]:
    """(version, section, 'System: X' or 'Model: X', rows) for every table of the page."""
    found, version, section, title, header = [], "", "", "", None
    for line in text.splitlines():
        if match := _VERSION.match(line):
            version, section, title, header = match["version"], "", "", None
        elif line.startswith("### "):
            section, title, header = line[4:].strip(), "", None
        elif match := _TABLE.match(line):
            title, header = f"{match['kind']}: {match['name']}", None
            found.append((version, section, title, []))
        elif line.startswith("|") and title:
            cells = _cells(line)
            if header is None:
                header = cells
            elif not set("".join(cells)) <= set("-: "):
                found[-1][3].append(dict(zip(header, cells, strict=False)))
        elif line.strip() and not line.startswith("|"):
            header = None if not line.startswith("- ") else header
    return found


def rows(text: str, commit: str, page: str, dates: dict[str, str]) -> list[dict[str, str]]:
    """The Llama pre-training rows of the versions in `dates`, on canonical chips."""
    out = []
    url = f"https://github.com/NVIDIA-NeMo/Megatron-Bridge/blob/{commit}/docs/{page}"
    for version, section, title, table in tables(text):
        if version not in dates or section != "Pre-Training Performance":
            continue
        kind, name = title.split(": ", 1)
        for cells in table:
            system = name if kind == "System" else cells.get("System", "")
            model = name if kind == "Model" else cells.get("Model", "")
            if system not in CHIPS or model not in MODELS:
                continue
            where = f"{url}#{anchor(version)}"
            out.append(_row(version, system, model, cells, where, dates[version]))
    return out


def _row(
    version: str, system: str, model: str, cells: dict[str, str], url: str, date: str
) -> dict[str, str]:
    gpus = int(cells["#-GPUs"])
    per_gpu = float(_first(cells["Tokens / sec / GPU"]))
    stated = cells.get("Precision", "")
    precision = PRECISIONS.get(_first(stated), "") if stated else ""
    parallel = ", ".join(
        f"{k} {cells[k]}" for k in ("FSDP", "TP", "PP", "CP", "VP", "EP", "GA") if k in cells
    )
    chip = CHIPS[system]
    notes = [
        f"NeMo {version} container's pre-training benchmark (Megatron-Bridge's performance "
        f"recipes): {per_gpu:,.0f} tokens/s per GPU on {gpus} GPUs, stored as the run's total "
        f"({gpus} x {per_gpu:,.0f}) and divided by its {gpus} x {chip} again here",
        f"global batch {cells['GBS']}, micro batch {cells['MBS']}, {parallel}",
    ]
    if "(" in cells["Tokens / sec / GPU"]:
        notes.append(
            "the table's second value, in parentheses, is another quantization granularity "
            "(the page's footnote); the first is stored"
        )
    if not stated:
        notes.append("the table of this version states no precision")
    return {
        "id": f"nemo-{version}-{system.lower()}-{MODELS[model]}-{_first(stated).lower() or 'na'}"
        f"-{gpus}",
        "chip": chip,
        "model": MODELS[model],
        "workload": "training",
        "kind": "vendor-claim",
        "tokens_per_second": f"{per_gpu * gpus:.0f}",
        "per": "system",
        "chips": str(gpus),
        "precision": precision,
        "precision_stated": stated,
        "operating_point": "training",
        "scenario": f"pre-training, {gpus} GPUs, global batch {cells['GBS']}, sequence length "
        f"{cells['Sequence Length']}",
        "batch_size": cells["GBS"],
        "sequence_length": cells["Sequence Length"],
        "software": f"NVIDIA NeMo Framework {version} container, Megatron-Bridge",
        "system": f"{system} ({gpus} x {chip})",
        "submitter": "NVIDIA",
        "source": f"NVIDIA NeMo Megatron-Bridge, Performance Summary, {version} NeMo Container, "
        f"Pre-Training Performance, {model}",
        "source_url": url,
        "source_date": date,
        "stated_as": f"| {system} | {model} | {gpus} GPUs | {stated or 'precision not stated'} "
        f"| GBS {cells['GBS']} | Tokens / sec / GPU {cells['Tokens / sec / GPU']} |",
        "notes": "; ".join(notes) + ".",
    }


def main(argv: list[str]) -> None:
    page, commit, *versions = argv
    if Path(page).name not in PAGES:
        sys.exit(f"{page}: name the copy as the repository's page ({' or '.join(PAGES)})")
    dates = dict(v.split("=", 1) for v in versions)
    found = rows(Path(page).read_text(encoding="utf-8"), commit, Path(page).name, dates)
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(found)


if __name__ == "__main__":
    main(sys.argv[1:])
