"""Rows for chipcost/data/throughput/independent-inferencex.csv from the InferenceX run artifacts
archived in chipcost/data/throughput/inferencex/ (its README.md says where each file came from,
its run and its date).

Usage: python scripts/throughput/inferencex.py > chipcost/data/throughput/independent-inferencex.csv

Each artifact, agg_bmk.json, holds one object per point of a run's concurrency sweeps. A point
becomes one row, per GPU as InferenceX states it: tokens_per_second is output_tput_per_gpu
(generated tokens; chipcost's tokens/s are output tokens, as MLPerf's and NIM's are), while
tput_per_gpu, which also counts the prompt's tokens, is kept in stated_as under its own name.
The per-user speed is median_intvty, TTFT and TPOT the medians (the artifact gives seconds).

Of the archived runs only the newest of each model, chip, framework, precision, speculative
decoding, layout (single node or disaggregated) and request shape is kept: every point of an
older run it supersedes is named on stderr with that reason (`excluded`).
"""

from __future__ import annotations

import csv
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "chipcost" / "data" / "throughput" / "inferencex"
# Where the artifacts were committed (README.md): gminneci/mantile, as `gh run download` left them.
MIRROR = "https://github.com/gminneci/mantile/blob/1d3c259c926ecce3322c9ceface7e2f00f2de7e6"
MIRROR_PATH = "reconcile/sources/inferencemax/raw/run_{run}/agg_bmk.json"
RUN_PAGE = "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/{run}"
# The artifact's hw names its runner ("b200-trt", "mi355x-amd_0"): the chip is the first word.
CHIPS = {
    "h100": "H100-SXM",  # InferenceX's H100 runners are 8-GPU HGX/DGX nodes: SXM
    "h200": "H200",
    "b200": "B200",
    "gb200": "GB200",
    "mi300x": "MI300X",
    "mi325x": "MI325X",
    "mi355x": "MI355X",
}
# infmax_model_prefix -> (chipcost's model, how the runs served it)
MODELS = {
    "dsr1": (
        "deepseek-r1",
        "DeepSeek-R1-0528, the May 2025 checkpoint of DeepSeek-R1 with its architecture and size",
    ),
    "gptoss": ("gpt-oss-120b", "gpt-oss-120b"),
}
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,operating_point,"
    "scenario,tokens_per_second_per_user,ttft_ms,tpot_ms,input_tokens,output_tokens,batch_size,"
    "concurrency,software,system,submitter,source,source_url,source_date,stated_as,notes"
).split(",")
HEADER = (
    "# Independent benchmark: SemiAnalysis InferenceX (formerly InferenceMAX), official CI run\n"
    "# artifacts (results_bmk/agg_bmk.json) archived in chipcost/data/throughput/inferencex/\n"
    "# (README.md there: each file's repository, path, commit, run and date). One row per point\n"
    "# of each run's concurrency sweep, newest run per chip/framework/precision/shape; per GPU,\n"
    "# output tokens. Written by scripts/throughput/inferencex.py: edit that, not this file.\n"
)


@dataclass(frozen=True)
class Run:
    """One archived artifact, as the archive's README.md table states it."""

    run: str
    file: str
    date: str
    date_from: str
    kind: str


_TABLE_ROW = re.compile(r"^\|\s*(run_\d+/agg_bmk\.json)\s*\|(.*)\|\s*$")


def archived_runs(archive: Path = ARCHIVE) -> list[Run]:
    """The runs of the archive's README.md table (file, run, run date, date from, kind)."""
    runs = []
    for line in (archive / "README.md").read_text(encoding="utf-8").splitlines():
        match = _TABLE_ROW.match(line)
        if match:
            run, date, date_from, kind = (cell.strip() for cell in match[2].split("|"))
            runs.append(Run(run, match[1], date, date_from, kind))
    return runs


def chip_of(hw: str) -> str | None:
    return CHIPS.get(re.split(r"[-_]", hw)[0])


def gpus(point: dict) -> int:
    """The GPUs one deployment uses: the tensor-parallel group on one node (expert and
    data-parallel attention ranks share those GPUs), or every prefill and decode GPU of a
    disaggregated one."""
    if point.get("disagg"):
        return int(point["num_prefill_gpu"]) + int(point["num_decode_gpu"])
    return int(point["tp"])


def series(point: dict) -> tuple:
    """What a newer run supersedes: the same model, chip, framework, precision, speculative
    decoding, layout and request shape."""
    return (
        point["infmax_model_prefix"],
        chip_of(point["hw"]),
        point["framework"],
        point["precision"],
        point.get("spec_decoding", "none"),
        bool(point.get("disagg")),
        point["isl"],
        point["osl"],
    )


def decoding_all(point: dict) -> bool:
    """Whether the batch is the concurrency: one node, and the median request spends under a
    tenth of its time waiting for its first token, so nearly every request is being decoded
    (a disaggregated deployment's batch is its decode workers', which it does not state)."""
    return not point.get("disagg") and point["median_ttft"] <= 0.1 * point["median_e2el"]


def _layout(point: dict) -> str:
    """The parallel layout, for the id and the system column."""

    def one(prefix: str) -> str:  # 'tp8', 'tp4-ep4-dpa': expert parallelism where above 1
        ep = point[f"{prefix}ep"]
        dpa = "-dpa" if str(point.get(f"{prefix}dp_attention")).lower() == "true" else ""
        return f"tp{point[f'{prefix}tp']}{f'-ep{ep}' if int(ep) > 1 else ''}{dpa}"

    if point.get("disagg"):  # short enough for an id column (the system column says it all)
        prefill, decode = f"tp{point['prefill_tp']}", f"tp{point['decode_tp']}"
        return (
            f"p{point['prefill_num_workers']}x{prefill}"
            f"-d{point['decode_num_workers']}x{decode}-{gpus(point)}g"
        )
    return one("")


def _tokens(count: int) -> str:
    """InferenceX's own name for a length: 1024 is '1k', 8192 '8k'."""
    return f"{count // 1024}k" if count % 1024 == 0 else str(count)


def _system(point: dict, chip: str) -> str:
    if point.get("disagg"):
        return (
            f"{gpus(point)} x {chip}, disaggregated: {point['prefill_num_workers']} prefill "
            f"worker(s) of tp {point['prefill_tp']}, ep {point['prefill_ep']} "
            f"({point['num_prefill_gpu']} GPUs) and {point['decode_num_workers']} decode "
            f"worker(s) of tp {point['decode_tp']}, ep {point['decode_ep']} "
            f"({point['num_decode_gpu']} GPUs)"
        )
    return (
        f"{gpus(point)} x {chip}, tp {point['tp']}, ep {point['ep']}, "
        f"dp-attention {point['dp_attention']}"
    )


def _g(value: float) -> str:
    return f"{value:.6g}"


def row(run: Run, point: dict) -> dict[str, str]:
    """One catalogue row from one point of a run's artifact."""
    chip = chip_of(point["hw"])
    model, served = MODELS[point["infmax_model_prefix"]]
    spec = point.get("spec_decoding", "none")
    isl, osl, conc = point["isl"], point["osl"], point["conc"]
    ident = (
        # no run id (source and notes give it): one run per series is kept, so it is unique
        f"inferencex-{point['infmax_model_prefix']}-{re.split(r'[-_]', point['hw'])[0]}"
        f"-{point['framework']}-{point['precision']}-{_tokens(isl)}{_tokens(osl)}-{_layout(point)}"
        f"{'' if spec == 'none' else '-' + spec}-c{conc}"
    )
    software = f"{point['framework']}, image {point['image']}"
    if spec != "none":
        software += f", {spec.upper()} speculative decoding"
    notes = (
        f"One point of InferenceX's concurrency sweep: {conc} concurrent requests of random "
        f"prompts, input and output lengths drawn within 80-100% of {isl}/{osl} tokens, every "
        "answer run to its length (ignore_eos). tokens_per_second is output_tput_per_gpu "
        f"(generated tokens per second per GPU, over the deployment's {gpus(point)} GPUs); "
        "tput_per_gpu in stated_as also counts the prompts' tokens. tokens_per_second_per_user "
        "is median_intvty (1 / the median time per output token); ttft_ms and tpot_ms are "
        "median_ttft and median_tpot, which the artifact gives in seconds. Model served: "
        f"{served} ({point['model']}). Official run "
        f"artifact of run {run.run} ({RUN_PAGE.format(run=run.run)}), archived unmodified in "
        f"chipcost/data/throughput/inferencex/{run.file}; run date from {run.date_from}."
    )
    if decoding_all(point):
        notes += (
            " batch_size is the concurrency: the median time to first token is under a tenth of "
            "the median request's, so nearly every request is being decoded at any moment."
        )
    if spec != "none":
        notes += (
            " With speculative decoding a user may be served faster than the weights can be "
            "read once per token."
        )
    return {
        "id": ident,
        "chip": str(chip),
        "model": model,
        "workload": "inference",
        "kind": "independent",
        "tokens_per_second": _g(point["output_tput_per_gpu"]),
        "per": "chip",
        # the deployment's GPUs are in `system`: the loader takes a chip count for per-system
        # figures only, and InferenceX states its figures per GPU
        "chips": "",
        "precision": point["precision"],
        "operating_point": "latency-bound",
        "scenario": f"ISL/OSL {isl}/{osl}, concurrency {conc}",
        "tokens_per_second_per_user": _g(point["median_intvty"]),
        "ttft_ms": _g(point["median_ttft"] * 1000),
        "tpot_ms": _g(point["median_tpot"] * 1000),
        "input_tokens": str(isl),
        "output_tokens": str(osl),
        "batch_size": str(conc) if decoding_all(point) else "",
        "concurrency": str(conc),
        "software": software,
        "system": _system(point, str(chip)),
        "submitter": "SemiAnalysis",
        "source": (
            f"SemiAnalysis InferenceX (formerly InferenceMAX), official CI run {run.run}, "
            "artifact results_bmk (agg_bmk.json)"
        ),
        "source_url": f"{MIRROR}/{MIRROR_PATH.format(run=run.run)}",
        "source_date": run.date,
        "stated_as": (
            f"output_tput_per_gpu {point['output_tput_per_gpu']!r} | tput_per_gpu (input and "
            f"output tokens) {point['tput_per_gpu']!r} | median_intvty {point['median_intvty']!r}"
            f" | median_ttft {point['median_ttft']!r} s | median_tpot {point['median_tpot']!r} s"
            f" (hw {point['hw']}, conc {conc})"
        ),
        "notes": notes,
    }


def points(archive: Path = ARCHIVE) -> list[tuple[Run, dict]]:
    """Every point of every archived run, oldest run first."""
    found = []
    for run in sorted(archived_runs(archive), key=lambda r: int(r.run)):
        data = json.loads((archive / run.file).read_text(encoding="utf-8"))
        found += [(run, point) for point in data]
    return found


def excluded_because(found: list[tuple[Run, dict]]) -> dict[int, str]:
    """index in `found` -> why that point is not in the catalogue."""
    newest = {series(point): int(run.run) for run, point in found}
    why = {}
    for index, (run, point) in enumerate(found):
        if chip_of(point["hw"]) is None or point["infmax_model_prefix"] not in MODELS:
            why[index] = f"hw {point['hw']!r} or model {point['infmax_model_prefix']!r} unmapped"
        elif newest[series(point)] != int(run.run):
            why[index] = f"run {newest[series(point)]} is newer for the same series"
    return why


def rows(archive: Path = ARCHIVE) -> list[dict[str, str]]:
    found = points(archive)
    why = excluded_because(found)
    return [row(run, point) for i, (run, point) in enumerate(found) if i not in why]


def main() -> None:
    found = points()
    for index, reason in sorted(excluded_because(found).items()):
        run, point = found[index]
        print(f"excluded: run {run.run} {series(point)} conc {point['conc']}: {reason}",
              file=sys.stderr)  # fmt: skip
    sys.stdout.write(HEADER)
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows())


if __name__ == "__main__":
    main()
