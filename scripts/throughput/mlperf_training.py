"""Rows for core/data/throughput/mlperf-training-v5.1.csv from a checkout of one of MLCommons'
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

The precision is the submission's own: the logs do not state it, so it is read from the launch
configs the submitter publishes beside its results
(<submitter>/benchmarks/<benchmark>/implementations/*/config_*.sh, with the files they
`source`): FP4=True (FP4_RECIPE, e.g. nvfp4) or FP8=True (FP8_RECIPE). The config of a result
is the one named after its system (config_<system>*.sh); else every config whose nodes x GPUs
are the system's chips and whose learning rate, warm-up steps and global batch are the log's.
When no config, or configs that disagree, match, the precision is left empty and the notes say
so.
"""

from __future__ import annotations

import csv
import json
import re
import sys
from pathlib import Path

# The accelerator names of the systems' JSON -> canonical chips (core/data/chips.csv).
CHIPS = {
    "NVIDIA H100-SXM5-80GB": "H100-SXM",
    "NVIDIA H200-SXM5-141GB": "H200",
    "NVIDIA H200 NVL 141GB": "H200-NVL",
    "NVIDIA Blackwell GPU (B200-SXM-180GB)": "B200",
    "NVIDIA Blackwell Ultra GPU (B300-SXM-270GB)": "B300",
    "NVIDIA Blackwell GPU (GB200)": "GB200",
    "NVIDIA Blackwell Ultra GPU (GB300)": "GB300",
    "AMD Instinct MI300X 192GB HBM3": "MI300X",
    "AMD Instinct MI325X 256GB HBM3E": "MI325X",
    "AMD Instinct MI325X 256GB HBM3E DLC": "MI325X",
    "AMD Instinct MI350X": "MI350X",
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
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,precision_stated,"
    "operating_point,scenario,batch_size,sequence_length,software,system,submitter,division,"
    "source,source_url,source_date,stated_as,notes"
).split(",")
_EXPORT = re.compile(r"^\s*export\s+(?P<name>[A-Z0-9_]+)=(?P<value>\S*)")
_SOURCE = re.compile(r"^\s*source\s+.*/(?P<file>[^/\s]+\.sh)\s*$")


_POINTER = re.compile(r"\]\(\.\./(?P<folder>[^)/]+)/?\)")


def _sourced(folder: Path, name: str) -> Path:
    """A sourced file: beside the config, else in the implementation folder the config's
    README points to ("refer to the implementation directory [b200_nemo](../b200_nemo)")."""
    here = folder / name
    readme = folder / "README.md"
    if here.is_file() or not readme.is_file():
        return here
    for match in _POINTER.finditer(readme.read_text(encoding="utf-8", errors="replace")):
        there = folder.parent / match["folder"] / name
        if there.is_file():
            return there
    return here


def config_values(path: Path, seen: frozenset[Path] = frozenset()) -> dict[str, str]:
    """The variables a launch config exports, with the files it sources read in order (a
    later assignment wins, as in the shell)."""
    values: dict[str, str] = {}
    if path in seen or not path.is_file():
        return values
    for line in path.read_text(encoding="utf-8", errors="replace").splitlines():
        sourced = _SOURCE.match(line)
        if sourced:
            values |= config_values(_sourced(path.parent, sourced["file"]), seen | {path})
            continue
        exported = _EXPORT.match(line)
        if exported:
            values[exported["name"]] = exported["value"].strip("'\"")
    return values


def _stated(values: dict[str, str]) -> tuple[str, str] | None:
    """(precision, the config's words) from FP4 / FP8, or None when it sets neither."""
    if values.get("FP4", "").lower() == "true":
        recipe = values.get("FP4_RECIPE", "")
        return "fp4", f"FP4=True, FP4_RECIPE={recipe}" if recipe else "FP4=True"
    if values.get("FP8", "").lower() == "true":
        recipe = values.get("FP8_RECIPE", "")
        return "fp8", f"FP8=True, FP8_RECIPE={recipe}" if recipe else "FP8=True"
    if values.get("FP8_PARAMS", "0") not in ("", "0"):
        # AMD's launcher: run_and_time.sh passes --fp8_params, and its train.py runs FP8
        # ("hybrid") throughout
        return "fp8", f"FP8_PARAMS={values['FP8_PARAMS']}"
    return None


def _number(text: str | None) -> float | None:
    try:
        return float(text) if text not in (None, "") else None
    except ValueError:
        return None


_SHAPE = re.compile(r"_(?P<nodes>\d+)x(?P<gpus>\d+)x\d+")


def _fits(config: Path, chips: int, log: dict[str, float]) -> bool:
    """A config of `chips` GPUs whose learning rate, warm-up and global batch are the log's
    (nodes and GPUs from DGXNNODES and DGXNGPU, else from the name's NODESxGPUSxBATCH)."""
    values = config_values(config)
    shape = _SHAPE.search(config.name)
    nodes = _number(values.get("DGXNNODES")) or (float(shape["nodes"]) if shape else None)
    gpus = _number(values.get("DGXNGPU")) or (float(shape["gpus"]) if shape else None)
    if nodes is None or gpus is None or nodes * gpus != chips:
        return False
    pairs = (("LR", "lr"), ("WARMUP_STEPS", "warmup"))
    for name, key in pairs:
        mine = _number(values.get(name))
        if mine is not None and log.get(key) is not None and mine != log[key]:
            return False
    split = 1.0
    for name in ("TENSOR_MODEL_PARALLEL", "PIPELINE_MODEL_PARALLEL", "CONTEXT_PARALLEL"):
        split *= _number(values.get(name)) or 1.0
    batch = _number(values.get("MINIBS"))
    if batch is not None and log.get("batch"):
        return chips / split * batch == log["batch"]
    return True


# A canonical chip as launch configs name it (config_DGXB200_..., config_GB200_...).
CHIP_TOKENS = {
    "B200": re.compile(r"(?<!G)B200"),
    "B300": re.compile(r"(?<!G)B300"),
    "GB200": re.compile(r"GB200"),
    "H100-SXM": re.compile(r"H100"),
    "H200": re.compile(r"H200"),
    "MI355X": re.compile(r"MI355X"),
}


def _related(folder: str, system: str) -> bool:
    """An implementation folder named for the system (MI355X_EPYC_9575F_pytorch_llama3_8b for
    MI355X_EPYC_9575F_pytorch; hpg.dgxb200x8 for hpg.dgxb200x8.n16)."""
    return folder == system or any(
        longer.startswith(shorter) and longer[len(shorter)] in "._-"
        for longer, shorter in ((folder, system), (system, folder))
        if len(longer) > len(shorter)
    )


def config_precision(
    checkout: Path,
    submitter: str,
    system: str,
    benchmark: str,
    chips: int,
    log: dict,
    chip: str = "",
) -> tuple[str, str, str]:
    """(precision, the config's words, which config) for a result, or ('', '', why not)."""
    folder = checkout / submitter / "benchmarks" / benchmark / "implementations"
    configs = sorted(folder.glob("*/config_*.sh")) + sorted(folder.glob("*/*/config_*.sh"))
    named = [c for c in configs if c.name.startswith(f"config_{system}")]
    folder_of_system = [c for c in configs if _related(c.parent.name, system)]
    if named:
        candidates = named
    elif len(folder_of_system) == 1:
        candidates = folder_of_system
    elif folder_of_system:
        candidates = [c for c in folder_of_system if _fits(c, chips, log)]
    else:
        fitting = [c for c in configs if _fits(c, chips, log)]
        # a config named for another accelerator (GB300 beside GB200) is not this system's
        token = CHIP_TOKENS.get(chip)
        candidates = [c for c in fitting if token and token.search(c.name)] or fitting
    found = {c: _stated(config_values(c)) for c in candidates}
    stated = {v for v in found.values() if v}
    if len(stated) == 1 and all(found.values()):
        precision, words = stated.pop()
        where = ", ".join(str(c.relative_to(checkout)) for c in candidates)
        return precision, words, where
    if not candidates:
        return "", "", "no launch config of the submission matches the system"
    names = ", ".join(c.name for c in candidates)
    return "", "", f"the launch configs that match the system disagree or say nothing ({names})"


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
        "lr": _number(str(first.get("opt_base_learning_rate", {}).get("value", ""))),
        "warmup": _number(str(first.get("opt_learning_rate_warmup_steps", {}).get("value", ""))),
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
    precision, words, where = config_precision(
        checkout, submitter, system, benchmark, chips, best, chip
    )
    return {
        "chip": chip,
        "model": model,
        "workload": "training",
        "kind": "benchmark",
        "tokens_per_second": f"{tps:.1f}",
        "per": "system",
        "chips": str(chips),
        "precision": precision,
        "precision_stated": f"{words} ({where})" if words else "",
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
        "notes": _notes(len(runs), chips, chip, precision, words or where),
    }


def _notes(count: int, chips: int, chip: str, precision: str, why: str) -> str:
    precision = (
        f"{precision.upper()}, as the submission's launch config sets it ({why}; the log "
        "states no precision)"
        if precision
        else f"not stated: the log states none and {why}"
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
