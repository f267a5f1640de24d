"""Rows of core/data/throughput/vendor-nvidia.csv from TensorRT-LLM's performance overview.

Usage: python scripts/throughput/trtllm_perf_overview.py perf-overview.md COMMIT > vendor-nvidia.csv
where perf-overview.md is docs/source/performance/perf-overview.md of NVIDIA/TensorRT-LLM at
COMMIT. Each cell of the tables below becomes one row (the page's "Total Output Throughput
(tokens/sec)" of the GPUs of its column, under maximum load).
"""

from __future__ import annotations

import csv
import re
import sys
from pathlib import Path

# The page's section titles -> the model as chipcost names it (models with a config in
# core/data/models.csv or a rule in model_equivalents.csv).
SECTIONS = {"Llama 3.3 70B": "llama-3.3-70b", "Llama 3.1 8B": "llama-3.1-8b"}
# The page's GPU names -> canonical chips (core/data/chips.csv).
GPUS = {"B200": "B200", "GB200": "GB200", "H200": "H200", "H100": "H100-SXM"}
HEADER = re.compile(r"^(?P<gpu>[A-Z0-9]+)<br/>TP(?P<tp>\d+) \((?P<precision>FP\d)\)$")
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,operating_point,"
    "scenario,tokens_per_second_per_user,ttft_ms,tpot_ms,input_tokens,output_tokens,"
    "batch_size,concurrency,software,system,submitter,division,result_id,source,source_url,"
    "source_date,stated_as,notes"
).split(",")
SOURCE = "TensorRT-LLM performance overview (NVIDIA), Throughput Measurements"
NOTES = (
    "Total Output Throughput of the GPUs of the column under maximum load (trtllm-bench "
    "throughput, requests fed at an infinite rate, synthetic prompts of exactly ISL tokens "
    "answered with exactly OSL tokens); per-user speed and latency not published for these "
    "runs. The page dates no run; the GPU variant: {variant}."
)
VARIANTS = {
    "H100": "H100 SXM 80GB (DGX H100)",
    "H200": "H200 SXM 141GB (DGX H200)",
    "B200": "B200 180GB (DGX B200)",
    "GB200": "GB200 192GB (GB200 NVL72)",
}


def tables(text: str) -> dict[str, list[list[str]]]:
    """The first table under each wanted '#### <model>' heading, as rows of cells."""
    found: dict[str, list[list[str]]] = {}
    section = ""
    for line in text.splitlines():
        if line.startswith("#### "):
            section = line[5:].strip()
            continue
        if section in SECTIONS and line.startswith("|"):
            cells = [c.strip() for c in line.strip().strip("|").split("|")]
            found.setdefault(section, []).append(cells)
        elif section in found and not line.strip():
            section = ""  # the table ended: the RTX table after it is not read
    return found


def rows(text: str, commit: str) -> list[dict[str, str]]:
    url = (
        f"https://github.com/NVIDIA/TensorRT-LLM/blob/{commit}/docs/source/performance/"
        "perf-overview.md"
    )
    out = []
    for section, table in tables(text).items():
        header, body = table[0], table[2:]
        for cells in body:
            isl, osl = cells[0].split("/")
            for column, value in zip(header[1:], cells[1:], strict=True):
                found = HEADER.match(column)
                if not found or not value:
                    continue
                out.append(_row(section, found, isl, osl, value, url))
    return out


def _row(section: str, found: re.Match, isl: str, osl: str, value: str, url: str) -> dict:
    gpu, tp, precision = found["gpu"], found["tp"], found["precision"]
    model = SECTIONS[section]
    return {
        "id": f"trtllm-{model.removeprefix('llama-')}-{gpu.lower()}x{tp}-{isl}-{osl}",
        "chip": GPUS[gpu],
        "model": model,
        "workload": "inference",
        "kind": "vendor-claim",
        "tokens_per_second": value.replace(",", ""),
        "per": "system",
        "chips": tp,
        "precision": precision.lower(),
        "operating_point": "max-throughput",
        "scenario": f"ISL/OSL {isl}/{osl}, maximum load",
        "input_tokens": isl,
        "output_tokens": osl,
        "software": "TensorRT-LLM (PyTorch backend), trtllm-bench",
        "system": f"{tp}x {VARIANTS[gpu]}, TP{tp}",
        "submitter": "NVIDIA",
        "source": f"{SOURCE}, {section}",
        "source_url": url,
        "source_date": "undated",
        "stated_as": f"{value} ({section}, {gpu} TP{tp} ({precision}), ISL/OSL {isl}/{osl})",
        "notes": NOTES.format(variant=VARIANTS[gpu]),
    }


def main(path: str, commit: str) -> None:
    found = rows(Path(path).read_text(encoding="utf-8"), commit)
    out = sys.stdout
    out.write(
        "# Vendor claims: TensorRT-LLM's performance overview (NVIDIA/TensorRT-LLM, "
        f"docs/source/performance/perf-overview.md at commit {commit}).\n"
        "# Built by scripts/throughput/trtllm_perf_overview.py; per system of the TP GPUs "
        "(chipcost divides by chips).\n"
    )
    writer = csv.DictWriter(out, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows({c: r.get(c, "") for c in COLUMNS} for r in found)


if __name__ == "__main__":
    main(*sys.argv[1:3])
