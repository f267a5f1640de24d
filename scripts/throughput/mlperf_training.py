"""Rows for chipcost/data/throughput/mlperf-training-v5.1.csv from a checkout of one of MLCommons'
MLPerf Training results repositories (training_results_vX.Y).

Usage: python scripts/throughput/mlperf_training.py CHECKOUT ROUND DATE COMMIT [BENCHMARK ...]
e.g.   ... training_results_v5.1 v5.1 2025-11-12 441d65f4 llama31_8b llama31_405b

MLPerf Training publishes a time to train, not a throughput. For each system and benchmark it
reads every results/<system>/<benchmark>/result_N.txt (MLLOG lines) and converts each run that
ended with run_stop status success into tokens per second:

    tokens/s = samples trained (run_stop's samples_count, else the last eval_accuracy's)
               x max_sequence_length  /  (run_stop time - run_start time)

The clock runs from run_start to run_stop as MLPerf's own score does: evaluation pauses are
inside it (initialisation is not), so the rate is a little below the training steps' own. The
row keeps the median run (the lower of two middles), per system as published, with the chips
from systems/<system>.json (number_of_nodes x accelerators_per_node). Accelerators that map to
no canonical chip are left out and named on stderr.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

# The accelerator names of the systems' JSON -> canonical chips (chipcost/data/chips.csv).
CHIPS = {
    "NVIDIA H100-SXM5-80GB": "H100-SXM",
    "NVIDIA H200-SXM5-141GB": "H200",
    "NVIDIA H200 NVL 141GB": "H200-NVL",
    "NVIDIA Blackwell GPU (B200-SXM-180GB)": "B200",
    "NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)": "B300",
    "NVIDIA Blackwell GPU (GB200)": "GB200",
    "AMD Instinct MI300X 192GB HBM3": "MI300X",
    "AMD Instinct MI325X 256GB HBM3E": "MI325X",
    "AMD Instinct MI325X 256GB HBM3E DLC": "MI325X",
    "AMD Instinct MI355X": "MI355X",
}
# The benchmark -> (the model as chipcost names it, what the benchmark trains).
BENCHMARKS = {
    "llama31_8b": (
        "llama-3.1-8b",
        "pre-training from scratch on C4 to a log perplexity of 3.3",
    ),
    "llama31_405b": (
        "llama-3.1-405b",
        "continued pre-training from Meta's checkpoint on C4 to a log perplexity of 5.6",
    ),
}
# AMD's submissions set FP8=True in every config of these benchmarks (AMD/benchmarks/*/
# implementations/*/config_*.sh); NVIDIA's stack ships FP8 and NVFP4 configs for the same
# systems and the result logs do not say which ran, so their precision is left empty.
FP8_SUBMITTERS = {"AMD"}
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,operating_point,"
    "scenario,batch_size,sequence_length,software,system,submitter,division,source,"
    "source_url,source_date,stated_as,notes"
).split(",")
_MLLOG = re.compile(r":::MLLOG (\{.*\})")


def events(path: Path) -> list[dict]:
    """The MLLOG events of a result log, in order."""
    found = []
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        match = _MLLOG.search(line)
        if match:
            try:
                found.append(json.loads(match[1]))
            except json.JSONDecodeError:
                continue  # a line cut by another process's output: not an event we need
    return found


def run(path: Path) -> dict[str, float] | None:
    """A successful run's seconds, samples, sequence length and global batch; None otherwise."""
    first: dict[str, dict] = {}
    samples = None
    for event in events(path):
        key = event.get("key")
        first.setdefault(key, event)
        if key == "eval_accuracy":
            samples = event.get("metadata", {}).get("samples_count", samples)
        if key == "run_stop":
            first["run_stop"] = event
            samples = event.get("metadata", {}).get("samples_count") or samples
    stop, start = first.get("run_stop"), first.get("run_start")
    if stop is None or start is None or stop.get("metadata", {}).get("status") != "success":
        return None
    seconds = (stop["time_ms"] - start["time_ms"]) / 1000
    length = first.get("max_sequence_length", {}).get("value")
    if not samples or not length or seconds <= 0:
        return None
    return {
        "seconds": seconds,
        "samples": float(samples),
        "length": float(length),
        "batch": float(first.get("global_batch_size", {}).get("value") or 0),
    }


def result_row(
    checkout: Path, submitter: str, system: str, benchmark: str, meta: tuple[str, str, str]
) -> dict[str, str] | None:
    """One row for a system's result of a benchmark; None when no run succeeded."""
    round_, date, commit = meta
    spec = json.loads((checkout / submitter / "systems" / f"{system}.json").read_text())
    chip = CHIPS[spec["accelerator_model_name"].strip()]
    chips = int(spec["number_of_nodes"]) * int(spec["accelerators_per_node"])
    runs = []
    for log in sorted((checkout / submitter / "results" / system / benchmark).glob("result_*.txt")):
        found = run(log)
        if found:
            runs.append((found["samples"] * found["length"] / found["seconds"], log.name, found))
    if not runs:
        return None
    runs.sort()
    tps, name, best = runs[(len(runs) - 1) // 2]
    model, what = BENCHMARKS[benchmark]
    path = f"{submitter}/results/{system}/{benchmark}/{name}"
    return {
        "chip": chip,
        "model": model,
        "workload": "training",
        "kind": "benchmark",
        "tokens_per_second": f"{tps:.1f}",
        "per": "system",
        "chips": str(chips),
        "precision": "fp8" if submitter in FP8_SUBMITTERS else "",
        "operating_point": "training",
        "scenario": f"MLPerf Training {round_} {benchmark}: {what}",
        "batch_size": str(int(best["batch"])) if best["batch"] else "",
        "sequence_length": str(int(best["length"])),
        "software": spec.get("framework", "").strip(),
        "system": f"{spec.get('system_name', system).strip()} ({chips} x {chip})",
        "submitter": submitter,
        "division": f"closed, {spec.get('status', '').strip().lower()}",
        "source": f"MLPerf Training {round_}, closed division, {benchmark} (MLCommons' results "
        f"repository training_results_{round_})",
        "source_url": f"https://github.com/mlcommons/training_results_{round_}/blob/{commit}/{path}",
        "source_date": date,
        "stated_as": (
            f"run_start to run_stop {best['seconds']:,.1f} s (status success), samples_count "
            f"{best['samples']:,.0f}, max_sequence_length {best['length']:,.0f} ({name})"
        ),
        "notes": _notes(len(runs), chips, chip, submitter),
    }


def _notes(count: int, chips: int, chip: str, submitter: str) -> str:
    precision = (
        "FP8 (every config of the submission sets FP8=True)"
        if submitter in FP8_SUBMITTERS
        else "not stated in the log (the implementation ships FP8 and NVFP4 configs)"
    )
    return (
        "Time to train converted to tokens/s: samples trained x sequence length / (run_stop - "
        "run_start); the clock includes MLPerf's evaluation pauses, so the training steps run "
        f"a little faster. The median of {count} successful runs; the whole system's rate, "
        f"divided by its {chips} x {chip} here. Precision: {precision}."
    )


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9.]+", "-", text.lower()).strip("-")


def rows(checkout: Path, meta: tuple[str, str, str], benchmarks: list[str]) -> list[dict]:
    """Every system's row for the benchmarks, submitters and systems in name order."""
    found, skipped = [], set()
    for results in sorted(checkout.glob("*/results/*")):
        submitter, system = results.parts[-3], results.name
        spec_path = checkout / submitter / "systems" / f"{system}.json"
        for benchmark in benchmarks:
            if not (results / benchmark).is_dir() or not spec_path.is_file():
                continue
            name = json.loads(spec_path.read_text())["accelerator_model_name"].strip()
            if name not in CHIPS:
                skipped.add(name)
                continue
            row = result_row(checkout, submitter, system, benchmark, meta)
            if row:
                row["id"] = f"mlperf-train-{meta[0]}-{_slug(submitter)}-{_slug(system)}-{benchmark}"
                found.append(row)
    for name in sorted(skipped):
        print(f"left out (no canonical chip): {name}", file=sys.stderr)
    return found


def main(argv: list[str]) -> None:
    checkout, round_, date, commit, *benchmarks = argv
    found = rows(Path(checkout), (round_, date, commit), benchmarks or list(BENCHMARKS))
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(found)


if __name__ == "__main__":
    main(sys.argv[1:])
