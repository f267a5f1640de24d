"""Rows for chipcost/data/throughput/mlperf-inference.csv from a checkout of one of MLCommons'
MLPerf Inference results repositories (inference_results_vX.Y).

Usage: python scripts/throughput/mlperf_inference.py CHECKOUT ROUND DATE COMMIT [BENCHMARK ...]
e.g.   ... inference_results_v4.1 v4.1 2024-08-28 a2f5d66d17e8 llama2-70b-99

For each closed-division system of each submitter, each benchmark and scenario, it reads
results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt (a VALID run
only) and systems/<system>.json (accelerator, count, framework, availability), and writes one
row per result, per system as published. Accelerators that map to no canonical chip are
left out and named on stderr.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

# The accelerator names of the systems' JSON -> canonical chips (chipcost/data/chips.csv).
CHIPS = {
    "NVIDIA H100-SXM-80GB": "H100-SXM",
    "NVIDIA H200-SXM-141GB": "H200",
    "NVIDIA B200-SXM-180GB": "B200",
    "NVIDIA GH200-GraceHopper-Superchip": "GH200",
    "AMD Instinct MI300X 192GB HBM3": "MI300X",
    "AMD Instinct MI300X": "MI300X",
    "AMD Instinct MI325X": "MI325X",
}
# The benchmark's name -> the model as chipcost names it.
MODELS = {"llama2-70b-99": "llama-2-70b", "llama2-70b-99.9": "llama-2-70b"}
POINTS = {"Offline": "max-throughput", "Server": "latency-bound", "Interactive": "latency-bound"}
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,operating_point,"
    "scenario,tokens_per_second_per_user,ttft_ms,tpot_ms,input_tokens,output_tokens,"
    "batch_size,concurrency,software,system,submitter,division,result_id,source,source_url,"
    "source_date,stated_as,notes"
).split(",")
_FIELD = re.compile(r"^\s*(?P<name>[^:]+?)\s*:\s*(?P<value>.+?)\s*$")


def summary(path: Path) -> dict[str, str]:
    """The `name : value` lines of an mlperf_log_summary.txt (the first of each name)."""
    found: dict[str, str] = {}
    for line in path.read_text(encoding="utf-8").splitlines():
        match = _FIELD.match(line)
        if match and match["name"] not in found:
            found[match["name"]] = match["value"]
    return found


def result_row(
    log: dict[str, str], system: dict, where: tuple[str, str, str, str], cite: tuple[str, str, str]
) -> dict[str, str] | None:
    """One catalogue row from a summary log and its system's JSON; None if not VALID."""
    submitter, name, benchmark, scenario = where
    round_, date, url = cite
    if log.get("Result is") != "VALID":
        return None
    tokens = log.get("Completed tokens per second") or log.get("Tokens per second")
    count = int(system["accelerators_per_node"]) * int(system.get("number_of_nodes") or 1)
    row = {
        "id": f"mlperf-{round_}-{_slug(name)}-{benchmark}-{scenario.lower()}",
        "chip": CHIPS[system["accelerator_model_name"]],
        "model": MODELS[benchmark],
        "workload": "inference",
        "kind": "benchmark",
        "tokens_per_second": str(tokens),
        "per": "system",
        "chips": str(count),
        "operating_point": POINTS[scenario],
        "scenario": scenario,
        "software": system.get("framework", ""),
        "system": system.get("system_name", name),
        "submitter": submitter,
        "division": f"closed, {system.get('status', '')}".rstrip(", "),
        "source": f"MLPerf Inference {round_} Datacenter, closed division, {benchmark}",
        "source_url": url,
        "source_date": date,
        "stated_as": f"Tokens per second: {tokens} ({scenario}, Result is : VALID)",
    }
    if scenario != "Offline":
        row |= _latency(log)
    return row


def _latency(log: dict[str, str]) -> dict[str, str]:
    """The run's 99th percentile TTFT and TPOT in ms, and 1000 / that TPOT per user."""
    ttft = float(log["99.00 percentile first token latency (ns)"]) / 1e6
    tpot = float(log["99.00 percentile time to output token (ns)"]) / 1e6
    return {
        "ttft_ms": f"{ttft:.1f}",
        "tpot_ms": f"{tpot:.1f}",
        "tokens_per_second_per_user": f"{1000 / tpot:.1f}",
    }


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def rows(checkout: Path, round_: str, date: str, commit: str, benchmarks: list[str]) -> list:
    found = []
    base = f"https://github.com/mlcommons/inference_results_{round_}/blob/{commit}/"
    for summary_path in sorted(checkout.glob("closed/*/results/*/*/*/performance/run_1/*.txt")):
        if summary_path.name != "mlperf_log_summary.txt":
            continue
        scenario_dir = summary_path.parents[2]
        benchmark, name = scenario_dir.parent.name, scenario_dir.parent.parent.name
        submitter = scenario_dir.parents[3].name
        if benchmark not in benchmarks or scenario_dir.name not in POINTS:
            continue
        system = json.loads(
            (checkout / "closed" / submitter / "systems" / f"{name}.json").read_text()
        )
        if system["accelerator_model_name"] not in CHIPS:
            sys.stderr.write(f"left out: {system['accelerator_model_name']} ({name})\n")
            continue
        url = base + str(summary_path.relative_to(checkout))
        where = (submitter, name, benchmark, scenario_dir.name)
        row = result_row(summary(summary_path), system, where, (round_, date, url))
        if row:
            found.append(row)
    return found


def main(argv: list[str]) -> None:
    checkout, round_, date, commit, *benchmarks = argv
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    for row in rows(Path(checkout), round_, date, commit, benchmarks or list(MODELS)):
        writer.writerow({c: row.get(c, "") for c in COLUMNS})


if __name__ == "__main__":
    main(sys.argv[1:])
