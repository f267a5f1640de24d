"""Rows for core/data/throughput/mlperf-inference.csv from a checkout of one of MLCommons'
MLPerf Inference results repositories (inference_results_vX.Y).

Usage: python scripts/throughput/mlperf_inference.py CHECKOUT ROUND DATE COMMIT [BENCHMARK ...]
           [--division open --chip CHIP ...]
e.g.   ... inference_results_v5.1 v5.1 2025-09-09 965182b03376 llama2-70b-99 llama3.1-8b
       ... inference_results_v5.1 v5.1 2025-09-09 965182b03376 llama2-70b-99 --division open \
           --chip MI355X

For each closed-division system of each submitter, each benchmark and scenario, it reads
results/<system>/<benchmark>/<scenario>/performance/run_1/mlperf_log_summary.txt (a VALID run
only), systems/<system>.json (accelerator, count, framework, availability) and the precision of
the checkpoint served, and writes one row per result, per system as published. The precision is
what the scenario's README.md says of the checkpoint this chip ran, where it says it (see
_readme_precision), else the weights' data type of the measurements JSON
(measurements/<system>/<benchmark>/<scenario>/*.json, or the scenario's measurements.json from
v6.0): that JSON is one per submission, and a submitter serving an FP8 checkpoint on one chip
and an FP4 one on another can state only one of them. Accelerators that map to no
canonical chip (and systems that mix two kinds) are left out and named on stderr. Give one
accuracy target per model (llama2-70b-99, not also llama2-70b-99.9: the same systems submit
both, and one result per system and scenario is what the catalogue wants). The closed division is
read unless --division open is given; the open division lets a submitter change the model's
numerics (its measurements JSON says how), so it is read only for the chips named by --chip.
"""

from __future__ import annotations

import argparse
import csv
import json
import re
import sys
from pathlib import Path

# The accelerator names of the systems' JSON -> canonical chips (core/data/chips.csv).
CHIPS = {
    "NVIDIA H100-SXM-80GB": "H100-SXM",
    "NVIDIA H200-SXM-141GB": "H200",
    "NVIDIA H200-NVL-141GB": "H200-NVL",
    "Virtualized NVIDIA H200-SXM-141GB": "H200",
    "NVIDIA B200-SXM-180GB": "B200",
    "NVIDIA B300-SXM-270GB": "B300",
    "NVIDIA GB200": "GB200",
    "NVIDIA GB300": "GB300",
    "NVIDIA L40S": "L40S",
    "NVIDIA RTX PRO 6000 Blackwell Server Edition": "RTX-PRO-6000",
    "NVIDIA GH200-GraceHopper-Superchip": "GH200",
    "NVIDIA GH200 Grace Hopper Superchip 144GB": "GH200",
    "NVIDIA H100-NVL-94GB": "H100-NVL",
    "NVIDIA L4-PCIe-24GB": "L4",
    "AMD Instinct MI355X": "MI355X",
    "AMD Instinct MI355X 288GB HBM3e": "MI355X",
    "AMD Instinct MI300X 192GB HBM3": "MI300X",
    "AMD Instinct MI300X": "MI300X",
    "AMD Instinct MI325X": "MI325X",
    "AMD Instinct MI325X 256GB HBM3e": "MI325X",
    "AMD Instinct MI350X 288GB HBM3e": "MI350X",
}
# The benchmark's name -> the model as chipcost names it.
MODELS = {
    "llama2-70b-99": "llama-2-70b",
    "llama2-70b-99.9": "llama-2-70b",
    "llama3.1-8b": "llama-3.1-8b",
    "llama3_1-8b": "llama-3.1-8b",  # one submitter's folder name for the same benchmark
    "llama3.1-405b": "llama-3.1-405b",
    "llama3_1-405b": "llama-3.1-405b",
    "mixtral-8x7b": "mixtral-8x7b",
    "deepseek-r1": "deepseek-r1",
}
# Block-scaled 4-bit formats as the catalogue's precision (the notes keep the stated word).
PRECISIONS = {"mxfp4": "fp4", "nvfp4": "fp4"}
# A checkpoint's precision as a README names it: "the FP4 model", download_model_fp4.sh,
# fp4_quantized/, MXFP4. Not after a letter or digit, so that a KV cache's KVFP8 is not read as
# the weights' type.
_README_PRECISION = re.compile(r"(?<![a-z0-9])(?:mx|nv)?fp(4|8)(?![0-9])", re.IGNORECASE)
# The chips a README sentence may give a checkpoint to ("used by MI300X and MI325X").
_README_CHIP = re.compile(
    r"(?<![a-z0-9])(MI300X|MI325X|MI350X|MI355X|H100|H200|B200|B300|GB200|GB300)(?![a-z0-9])",
    re.IGNORECASE,
)
_SENTENCE = re.compile(r"(?<=[.!?])\s+|\n+")
POINTS = {"Offline": "max-throughput", "Server": "latency-bound", "Interactive": "latency-bound"}
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,precision_stated,"
    "operating_point,scenario,tokens_per_second_per_user,ttft_ms,tpot_ms,input_tokens,output_tokens,"
    "batch_size,concurrency,software,system,submitter,division,result_id,source,source_url,"
    "source_date,stated_as,notes,matched_with"
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


# What each scenario measures, said in every row's notes.
SCENARIOS = {
    "Offline": "Offline: every query sent at once, the system's maximum throughput",
    "Server": (
        "Server: queries arrive as a Poisson stream and the result counts only if the 99th "
        "percentile time to first token and time per output token stay within the "
        "benchmark's bounds"
    ),
    "Interactive": "Interactive: the Server scenario under the benchmark's tighter bounds",
}


def result_row(
    log: dict[str, str],
    system: dict,
    where: tuple[str, str, str, str],
    cite: tuple[str, str, str],
    precision: str = "",
    division: str = "closed",
    served: tuple[str, list[str]] = ("", []),
) -> dict[str, str] | None:
    """One catalogue row from a summary log and its system's JSON; None if not VALID. `served`
    is the precision the scenario's README gives the checkpoint this chip ran, with its words."""
    submitter, name, benchmark, scenario = where
    round_, date, url = cite
    if log.get("Result is") != "VALID":
        return None
    field = next(f for f in ("Completed tokens per second", "Tokens per second") if f in log)
    tokens = log[field]
    count = int(system["accelerators_per_node"]) * int(system.get("number_of_nodes") or 1)
    notes = [
        SCENARIOS[scenario],
        f"the result is the whole system's, divided by its {count} accelerators here",
    ]
    if scenario != "Offline":
        names = ("ttft_latency (ns)", "tpot_latency (ns)")
        if all(name in log for name in names):
            bounds = " and ".join(f"{float(log[name]) / 1e6:,.0f} ms" for name in names)
            notes.append(f"the run's bounds (ttft_latency, tpot_latency): {bounds}")
        notes.append(
            "ttft_ms and tpot_ms are the run's measured 99th percentiles; "
            "tokens_per_second_per_user is 1000 / that TPOT"
        )
    notes.append(_precision_note(precision, served))
    if division == "open":
        notes.append(
            "open division: the rules let the submitter change the model's numerics or "
            "weights, so the result is not one to one with closed-division results"
        )
    readme, _ = served
    differs = readme and readme != PRECISIONS.get(precision, precision)
    stated = f"{readme} (README.md); {precision or 'none'} (measurements JSON)" if differs else ""
    row = {
        "id": "",  # given by rows(), which sees every system of the submitter
        "precision": readme or PRECISIONS.get(precision, precision),
        "precision_stated": stated or precision,
        "notes": "; ".join(notes) + ".",
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
        "division": f"{division}, {system.get('status', '')}".rstrip(", "),
        "source": f"MLPerf Inference {round_} Datacenter, {division} division, {benchmark}",
        "source_url": url,
        "source_date": date,
        "stated_as": f"{field}: {tokens} ({scenario}, Result is : VALID)",
    }
    if scenario != "Offline":
        row |= _latency(log)
    return row


def _precision_note(precision: str, served: tuple[str, list[str]]) -> str:
    """Where the row's precision comes from, in the submission's own words."""
    measured = (
        f"weights' data type {precision} (the submission's measurements JSON)"
        if precision
        else "the weights' precision is not stated in the submission's measurements JSON"
    )
    readme, words = served
    if not readme:
        return measured
    quoted = " ... ".join(f"'{w}'" for w in dict.fromkeys(words))
    if PRECISIONS.get(precision, precision) == readme:
        return f"{measured}; the scenario's README.md agrees: {quoted}"
    return (
        f"the checkpoint served on this chip is {readme}, as the scenario's README.md says: "
        f"{quoted}; the {measured} is not the checkpoint this chip ran, and is not used"
    )


def _readme_precision(text: str, chip: str) -> tuple[str, list[str]]:
    """The precision class of the checkpoint a README gives `chip`, and the sentences that say
    so; ('', []) where it names none, or more than one. A sentence that names a precision and
    chips gives that checkpoint to those chips ("The FP8 model will be used by MI300X and
    MI325X."); one that names no chip gives it to every chip the README does not send elsewhere."""
    mine: dict[str, list[str]] = {}
    unnamed: dict[str, list[str]] = {}
    elsewhere: dict[str, list[str]] = {}
    base = chip.split("-")[0].upper()
    for sentence in _SENTENCE.split(text):
        named = {c.upper() for c in _README_CHIP.findall(sentence)}
        to = mine if base in named else elsewhere if named else unnamed
        for precision in {f"fp{m}" for m in _README_PRECISION.findall(sentence)}:
            to.setdefault(precision, []).append(sentence.strip())
    left = mine or {p: w for p, w in unnamed.items() if p not in elsewhere}
    if len(left) != 1:
        return "", []
    [(precision, words)] = left.items()
    others = [w for p, ws in elsewhere.items() if p != precision and p in unnamed for w in ws]
    return precision, [*others, *words]


def _served(scenario_dir: Path, measurements: Path, chip: str) -> tuple[str, list[str]]:
    """What the scenario's README.md (results/, or measurements/ to v5.1) says was served."""
    for readme in (scenario_dir / "README.md", measurements / scenario_dir.name / "README.md"):
        if readme.is_file():
            return _readme_precision(readme.read_text(encoding="utf-8", errors="replace"), chip)
    return "", []


def _latency(log: dict[str, str]) -> dict[str, str]:
    """The run's 99th percentile TTFT and TPOT in ms, and 1000 / that TPOT per user."""
    ttft = float(log["99.00 percentile first token latency (ns)"]) / 1e6
    tpot = float(log["99.00 percentile time to output token (ns)"]) / 1e6
    return {
        "ttft_ms": f"{ttft:.1f}",
        "tpot_ms": f"{tpot:.1f}",
        "tokens_per_second_per_user": f"{1000 / tpot:.1f}",
    }


def _precision(measurements: Path, where: tuple[str, str, str, str], results: Path) -> str:
    """The weights' data type the submission states (weight_data_types), or ''; from
    measurements/<system>/<benchmark>/<scenario>/*.json (to v5.1) or the scenario's
    results/.../measurements.json (from v6.0)."""
    _, _, benchmark, scenario = where
    found = sorted((measurements / benchmark / scenario).glob("*.json"))
    for path in [*found, results / "measurements.json"]:
        if not path.is_file():
            continue
        stated = json.loads(path.read_text(encoding="utf-8")).get("weight_data_types", "")
        if stated:
            return str(stated).strip().lower()
    return ""


def _slug(text: str) -> str:
    return re.sub(r"[^a-z0-9]+", "-", text.lower()).strip("-")


def _ids(found: list[dict[str, str]], round_: str) -> None:
    """mlperf-v5.1-dell-h200x8-llama2-70b-server: round, submitter (its first word), chip and
    count; systems of one submitter with the same chip and count are numbered (-2, -3) in
    the order of their names."""
    systems: dict[str, list[str]] = {}
    for row in found:
        base = f"{row['submitter'].split('_')[0]}-{row['chip']}x{row['chips']}"
        names = systems.setdefault(_slug(base), [])
        if row["system_dir"] not in names:
            names.append(row["system_dir"])
    for row in found:
        base = _slug(f"{row['submitter'].split('_')[0]}-{row['chip']}x{row['chips']}")
        names = sorted(systems[base])
        number = f"-{names.index(row['system_dir']) + 1}" if len(names) > 1 else ""
        model = row["benchmark"].removesuffix("-99").replace("_", ".")
        row["id"] = f"mlperf-{round_}-{base}{number}-{model}-{row['scenario'].lower()}"


def rows(
    checkout: Path,
    round_: str,
    date: str,
    commit: str,
    benchmarks: list[str],
    division: str = "closed",
    only: frozenset[str] | None = None,
) -> list:
    """Every VALID result of the benchmarks in the division; `only`: the canonical chips kept."""
    found = []
    base = f"https://github.com/mlcommons/inference_results_{round_}/blob/{commit}/"
    pattern = f"{division}/*/results/*/*/*/performance/run_1/*.txt"
    for summary_path in sorted(checkout.glob(pattern)):
        if summary_path.name != "mlperf_log_summary.txt":
            continue
        scenario_dir = summary_path.parents[2]
        benchmark, name = scenario_dir.parent.name, scenario_dir.parent.parent.name
        submitter = scenario_dir.parents[3].name
        if benchmark not in benchmarks or scenario_dir.name not in POINTS:
            continue
        system = json.loads(
            (checkout / division / submitter / "systems" / f"{name}.json").read_text()
        )
        if system["accelerator_model_name"] not in CHIPS:
            sys.stderr.write(f"left out: {system['accelerator_model_name']} ({name})\n")
            continue
        if only is not None and CHIPS[system["accelerator_model_name"]] not in only:
            continue
        url = base + str(summary_path.relative_to(checkout))
        where = (submitter, name, benchmark, scenario_dir.name)
        cite = (round_, date, url)
        measurements = checkout / division / submitter / "measurements" / name
        precision = _precision(measurements, where, scenario_dir)
        chip = CHIPS[system["accelerator_model_name"]]
        served = _served(scenario_dir, measurements / benchmark, chip)
        log = summary(summary_path)
        row = result_row(log, system, where, cite, precision, division, served)
        if row:
            found.append(row | {"system_dir": name, "benchmark": benchmark})
    _ids(found, round_)
    matched(found)
    return found


def matched(found: list[dict[str, str]]) -> None:
    """Say in each row's notes, and list in its matched_with (ids separated by ';'), which rows
    of another chip share its submitter, system size, software, model, scenario and division: a
    matched pair, where the chip is the difference (one submitter's 16 x H100 and 16 x H200 on
    TensorRT 10.8, say)."""
    groups: dict[tuple, list[dict[str, str]]] = {}
    for row in found:
        key = tuple(row[c] for c in ("submitter", "chips", "software", "model", "scenario"))
        groups.setdefault(key + (row["division"].split(",")[0], row["source"]), []).append(row)
    for rows_ in groups.values():
        for row in rows_:
            others = [r for r in rows_ if r["chip"] != row["chip"]]
            if not others:
                continue
            names = ", ".join(f"{r['id']} ({r['chip']}, {r['precision'] or 'precision not stated'})"
                              for r in others)  # fmt: skip
            note = (
                f"Matched: the same submitter, system size ({row['chips']} chips), software and "
                f"scenario as {names}"
            )
            row["notes"] = f"{row['notes'].rstrip('.')}. {note}."
            row["matched_with"] = ";".join(r["id"] for r in others)


def main(argv: list[str]) -> None:
    parser = argparse.ArgumentParser(description="MLPerf Inference results as catalogue rows")
    for name in ("checkout", "round", "date", "commit"):
        parser.add_argument(name)
    parser.add_argument("benchmarks", nargs="*", default=list(MODELS))
    parser.add_argument("--division", choices=("closed", "open"), default="closed")
    parser.add_argument("--chip", action="append", default=[], help="keep only these chips")
    args = parser.parse_args(argv)
    if args.division == "open" and not args.chip:
        parser.error("--division open needs --chip: the open division changes models")
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    only = frozenset(args.chip) if args.chip else None
    cite = (args.round, args.date, args.commit)
    for row in rows(Path(args.checkout), *cite, args.benchmarks, args.division, only):
        writer.writerow({c: row.get(c, "") for c in COLUMNS})


if __name__ == "__main__":
    main(sys.argv[1:])
