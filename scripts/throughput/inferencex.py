"""Rows for core/data/throughput/independent-inferencex.csv from the InferenceX files archived
in core/data/throughput/inferencex/ (its README.md says where each file came from, its
run(s), date and kind, and the sha256 of the bytes archived).

Usage: python scripts/throughput/inferencex.py > core/data/throughput/independent-inferencex.csv

Three kinds of file, each point of each read alike:
- an official run artifact of December 2025 or January 2026, `agg_bmk.json` (one object per
  point: hw, infmax_model_prefix, framework, precision, isl, osl, conc, tp, ep, dp_attention or
  the prefill and decode workers of a disaggregated deployment, spec_decoding, image, metrics);
- an official run artifact of October 2025, `agg_<model>_<shape>.json` (InferenceMAX's first
  schema: hw, tp, conc, model, framework, precision, mtp on GB200, metrics; the shape is the
  artifact's name, `results_70b_1k1k`; no ep, image or prefill/decode split: "not stated");
- the dashboard's API answers kept as test data, `dashboard/*.json.gz` (gzip of the bytes as
  published: hardware, framework, precision, spec_method, disagg, prefill/decode tp, ep, workers,
  GPUs, isl, osl, conc, image, metrics{...}, date, run_url). Copies, not artifacts.

A point becomes one row, per GPU as InferenceX states it: tokens_per_second is
output_tput_per_gpu (generated tokens; chipcost's tokens/s are output tokens, as MLPerf's and
NIM's are), while tput_per_gpu, which also counts the prompt's tokens, is kept in stated_as. The
per-user speed is median_intvty, TTFT and TPOT the medians (the files give seconds). `chips` is
the GPUs of one replica: tp on one node, every prefill and decode GPU of a disaggregated one (the
total in `tp` where an old GB200 artifact states no split); `deployment` is single-node or
disaggregated, '+mtp' where MTP speculative decoding served it.

Within one configuration (model, chip, shape, precision, framework, parallel layout, deployment)
only the newest run is kept (run ids grow with time); a run held both by an official artifact and
by the dashboard's copy is taken once, from the artifact. Every point left out is named on
stderr with its reason (`excluded`).
"""

from __future__ import annotations

import csv
import gzip
import json
import re
import sys
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
ARCHIVE = ROOT / "core" / "data" / "throughput" / "inferencex"
RUN_PAGE = "https://github.com/SemiAnalysisAI/InferenceX/actions/runs/{run}"
# The runner names the chip ("b200-trt", "mi355x-amd_0"): its first word.
CHIPS = {
    "h100": "H100-SXM",  # InferenceX's H100 runners are 8-GPU HGX/DGX nodes: SXM
    "h200": "H200",
    "b200": "B200",
    "b300": "B300",
    "gb200": "GB200",
    "gb300": "GB300",
    "mi300x": "MI300X",
    "mi325x": "MI325X",
    "mi355x": "MI355X",
}
# InferenceX's model prefix -> (chipcost's model as published, how the runs served it)
MODELS = {
    "dsr1": (
        "deepseek-r1",
        "DeepSeek-R1-0528, the May 2025 checkpoint of DeepSeek-R1 with its architecture and size",
    ),
    "gptoss": ("gpt-oss-120b", "gpt-oss-120b"),
    # core/data/model_equivalents.csv has it stand for llama-3-70b
    "70b": ("llama-3.3-70b", "Llama 3.3 70B Instruct"),
}
# One framework under two names, for what supersedes what: the dashboard's copies of run
# 20832485469 name 'mori-sglang' the points its artifact names 'sglang-disagg', with the same
# values; the October artifacts' GB200 'dynamo-trtllm' deployments of 28, 36 and 48 GPUs are
# the dashboard's 'dynamo-trt' ones of those sizes in December 2025.
SAME_FRAMEWORK = {"sglang-disagg": "mori-sglang", "dynamo-trtllm": "dynamo-trt"}
DEPLOYMENTS = ("single-node", "single-node+mtp", "disaggregated", "disaggregated+mtp")
COLUMNS = (
    "id,chip,model,workload,kind,tokens_per_second,per,chips,precision,operating_point,"
    "scenario,tokens_per_second_per_user,ttft_ms,tpot_ms,input_tokens,output_tokens,batch_size,"
    "concurrency,software,system,submitter,source,source_url,source_date,stated_as,notes,"
    "deployment"
).split(",")
HEADER = (
    "# Independent benchmark: SemiAnalysis InferenceX (formerly InferenceMAX): official CI\n"
    "# run artifacts and the dashboard's API answers, archived in\n"
    "# core/data/throughput/inferencex/ (README.md there: each file's repository, path,\n"
    "# commit, run(s), date and kind). One row per point of a run's concurrency sweep, the\n"
    "# newest run of each configuration; per GPU, output tokens; `chips` the GPUs of one\n"
    "# replica. Written by scripts/throughput/inferencex.py: edit that, not this file.\n"
)
ARTIFACT, DASHBOARD = "official artifact", "dashboard API copy"
# Of the dashboard's two answers, the one whose copy of a point is taken (it states the image)
LATEST = "dashboard/benchmarks.json.gz"


@dataclass(frozen=True)
class Archived:
    """One archived file, as the archive's README.md table states it."""

    file: str  # relative to the archive
    repository: str
    commit: str
    path: str
    runs: str
    date: str
    date_from: str
    kind: str
    sha256: str

    @property
    def url(self) -> str:
        return f"https://github.com/{self.repository}/blob/{self.commit}/{self.path}"


@dataclass(frozen=True)
class Point:
    """One point of an archived file, in one shape whatever the file's schema."""

    source: Archived
    index: int  # its place in the file's list
    run: str
    attempt: str | None  # the dashboard's run_url names one; an artifact does not
    date: str
    prefix: str  # InferenceX's model prefix
    hw: str
    framework: str
    precision: str
    spec: str  # 'none' or 'mtp'
    disagg: bool
    isl: int
    osl: int
    conc: int
    # one node: tp, ep, dp-attention; disaggregated: prefill and decode workers, tp, ep,
    # dp-attention and GPUs; None where the file does not state it
    layout: tuple
    gpus: int
    image: str | None
    served: str | None  # the checkpoint as the file names it
    metrics: dict  # output_tput_per_gpu, tput_per_gpu, median_intvty, ... as the file gives them
    raw: dict  # the point as the file gives it

    @property
    def chip(self) -> str | None:
        return CHIPS.get(re.split(r"[-_]", self.hw)[0])

    @property
    def deployment(self) -> str:
        return ("disaggregated" if self.disagg else "single-node") + (
            "+mtp" if self.spec == "mtp" else ""
        )

    @property
    def config(self) -> tuple:
        """What a newer run supersedes: the same model, chip, shape, precision, framework,
        deployment (MTP included) and parallelism: tp and ep, or the prefill and decode
        workers' count, tp, ep and GPUs. Not dp-attention: the dashboard restates it for
        otherwise equal deployments from run to run (H200 dynamo-trt 8k/1k, prefill workers'
        dp_attention true in February 2026 and false in March at the same throughput)."""
        framework = SAME_FRAMEWORK.get(self.framework, self.framework)
        if self.disagg and self.layout[0][0] != "total":
            parallel = tuple((w, tp, ep, gpus) for w, tp, ep, _, gpus in self.layout)
        elif self.disagg:
            parallel = self.layout
        else:
            parallel = self.layout[:2]
        return (self.prefix, self.chip, self.isl, self.osl, self.precision, framework,
                self.deployment, parallel)  # fmt: skip

    @property
    def where(self) -> str:
        return f"{self.source.file} [{self.index}]"


_TABLE_ROW = re.compile(r"^\|\s*`?([\w./-]+\.json(?:\.gz)?)`?\s*\|(.*)\|\s*$")


def archived_files(archive: Path = ARCHIVE) -> list[Archived]:
    """The files of the archive's README.md table: file, repository, commit, path, run(s),
    run date, date from, kind, sha256 of the bytes as published."""
    found = []
    for line in (archive / "README.md").read_text(encoding="utf-8").splitlines():
        match = _TABLE_ROW.match(line)
        if match:
            cells = [cell.strip().strip("`") for cell in match[2].split("|")]
            found.append(Archived(match[1], *cells))
    return found


def read_bytes(archive: Path, source: Archived) -> bytes:
    """The file's bytes as published (a .gz is stored compressed)."""
    data = (archive / source.file).read_bytes()
    return gzip.decompress(data) if source.file.endswith(".gz") else data


def _bool(value: object) -> bool | None:
    """dp-attention: the artifacts write 'true'/'false', the dashboard true/false."""
    if value is None:
        return None
    return value if isinstance(value, bool) else str(value).lower() == "true"


def _tokens_of(shape: str) -> tuple[int, int]:
    """InferenceMAX's shape names: '1k8k' is 1024 input and 8192 output tokens."""
    isl, osl = re.fullmatch(r"(\d+)k(\d+)k", shape).groups()  # type: ignore[union-attr]
    return int(isl) * 1024, int(osl) * 1024


def _workers(p: dict) -> tuple[tuple, int]:
    """A disaggregated point's prefill and decode workers (count, tp, ep, dp-attention, GPUs),
    as artifacts and the dashboard both name them, and its GPUs in all."""
    layout = tuple(
        (p[f"{s}_num_workers"], p[f"{s}_tp"], p[f"{s}_ep"], _bool(p[f"{s}_dp_attention"]),
         p[f"num_{s}_gpu"])
        for s in ("prefill", "decode")
    )  # fmt: skip
    return layout, int(p["num_prefill_gpu"]) + int(p["num_decode_gpu"])


def _from_artifact(source: Archived, index: int, p: dict) -> Point:
    """A point of a December 2025 / January 2026 artifact (agg_bmk.json)."""
    disagg = bool(p.get("disagg"))
    if disagg:
        layout, gpus = _workers(p)
    else:
        layout = (p["tp"], p["ep"], _bool(p["dp_attention"]))
        gpus = int(p["tp"])
    return Point(
        source, index, source.runs, None, source.date, p["infmax_model_prefix"], p["hw"],
        p["framework"], p["precision"], p.get("spec_decoding", "none"), disagg, p["isl"],
        p["osl"], p["conc"], layout, gpus, p.get("image"), p.get("model"), p, p,
    )  # fmt: skip


def _from_first_schema(source: Archived, index: int, p: dict) -> Point:
    """A point of an October 2025 artifact (agg_<model>_<shape>.json): the shape is the
    artifact's name; a GB200 point is a disaggregated Dynamo deployment whose every GPU `tp`
    counts (InferenceMAX's runners/launch_gb200-nv.sh runs Dynamo's submit_disagg.sh and passes
    the GPU count of each result as tp); expert parallelism is not stated."""
    named = re.fullmatch(r"agg_(\w+?)_(\d+k\d+k)\.json", Path(source.file).name)
    prefix, shape = named.groups()  # type: ignore[union-attr]
    isl, osl = _tokens_of(shape)
    disagg = p["framework"].startswith("dynamo")
    mtp = p.get("mtp", "off")
    if mtp not in ("on", "off"):
        raise ValueError(f"{source.file} [{index}]: mtp {mtp!r}")
    layout = (("total", p["tp"]),) if disagg else (p["tp"], None, None)
    return Point(
        source, index, source.runs, None, source.date, prefix, p["hw"], p["framework"],
        p["precision"], "mtp" if mtp == "on" else "none", disagg, isl, osl, p["conc"], layout,
        int(p["tp"]), None, p.get("model"), p, p,
    )  # fmt: skip


def _from_dashboard(source: Archived, index: int, p: dict) -> Point:
    """A point of the dashboard's API answer: its own run, attempt and date."""
    run, attempt = re.fullmatch(
        r"https://github\.com/SemiAnalysisAI/InferenceX/actions/runs/(\d+)(?:/attempts/(\d+))?",
        p["run_url"],
    ).groups()  # type: ignore[union-attr]
    disagg = bool(p["disagg"])
    if disagg:
        if p["prefill_num_workers"] == 0 and p["decode_num_workers"] == 0:
            # as the old GB200 artifacts: tp counts every GPU (num_*_gpu repeat it), no split
            layout: tuple = (("total", p["decode_tp"]),)
            gpus = int(p["decode_tp"])
        else:
            layout, gpus = _workers(p)
    else:
        layout = (p["decode_tp"], p["decode_ep"], _bool(p["decode_dp_attention"]))
        gpus = int(p["decode_tp"])
    return Point(
        source, index, run, attempt, p["date"], p["model"], p["hardware"], p["framework"],
        p["precision"], p["spec_method"], disagg, p["isl"], p["osl"], p["conc"], layout, gpus,
        p.get("image"), None, p["metrics"], p,
    )  # fmt: skip


def points(archive: Path = ARCHIVE) -> list[Point]:
    """Every point of every archived file, in the README's order."""
    found = []
    for source in archived_files(archive):
        data = json.loads(read_bytes(archive, source))
        if source.kind == DASHBOARD:
            read = _from_dashboard
        elif Path(source.file).name == "agg_bmk.json":
            read = _from_artifact
        else:
            read = _from_first_schema
        found += [read(source, index, p) for index, p in enumerate(data)]
    return found


_NEEDED = ("output_tput_per_gpu", "tput_per_gpu", "median_intvty", "median_ttft", "median_tpot")


def excluded_because(found: list[Point]) -> dict[int, str]:
    """index in `found` -> why that point is not in the catalogue."""
    why: dict[int, str] = {}
    for index, point in enumerate(found):
        if point.chip is None or point.prefix not in MODELS:
            why[index] = f"hw {point.hw!r} or model {point.prefix!r} unmapped"
        elif missing := [m for m in _NEEDED if point.metrics.get(m) is None]:
            why[index] = f"{', '.join(missing)} not stated"
        elif point.spec not in ("none", "mtp"):
            why[index] = f"speculative decoding {point.spec!r} unmapped"
    # One copy of a run's point: the official artifact's, else the dashboard's latest answer.
    rank = {ARTIFACT: 0, DASHBOARD: 1}
    copies: dict[tuple, list[int]] = {}
    for index, point in enumerate(found):
        if index not in why:
            copies.setdefault((point.run, point.config, point.conc), []).append(index)
    for same in copies.values():
        same.sort(key=lambda i: (rank[found[i].source.kind], found[i].source.file != LATEST))
        kept = found[same[0]]
        for index in same[1:]:
            point = found[index]
            differs = [m for m in _NEEDED if point.metrics[m] != kept.metrics[m]]
            why[index] = f"a copy of {kept.where}" + (
                f" (which differs in {', '.join(differs)})" if differs else ""
            )
    newest: dict[tuple, int] = {}
    for index, point in enumerate(found):
        if index not in why:
            newest[point.config] = max(newest.get(point.config, 0), int(point.run))
    for index, point in enumerate(found):
        if index not in why and newest[point.config] != int(point.run):
            why[index] = f"run {newest[point.config]} is newer for the same configuration"
    return why


def _tokens(count: int) -> str:
    """InferenceX's own name for a length: 1024 is '1k', 8192 '8k'."""
    return f"{count // 1024}k" if count % 1024 == 0 else str(count)


def _dpa(value: bool | None) -> str:
    return "not stated" if value is None else str(value).lower()


def _layout(point: Point, *, detailed: bool = False) -> str:
    """The parallel layout, for the id; `detailed` adds a disaggregated deployment's expert
    parallelism and dp-attention, where two configurations would otherwise read the same."""
    if point.disagg and point.layout[0][0] == "total":
        return f"{point.gpus}g"
    if point.disagg:
        (pw, ptp, pep, pdpa, _), (dw, dtp, dep, ddpa, _) = point.layout
        text = f"p{pw}xtp{ptp}-d{dw}xtp{dtp}-{point.gpus}g"
        # each side's ep and dp-attention where the same workers and GPUs are laid out otherwise
        if not detailed:
            return text
        # '-ep8d-1': prefill ep 8 with dp-attention (d), decode ep 1 without
        return f"{text}-ep{pep}{'d' if pdpa else ''}-{dep}{'d' if ddpa else ''}"
    tp, ep, dpa = point.layout
    if ep is None:  # the October artifacts state no expert parallelism: their month
        return f"tp{tp}-2510"
    return f"tp{tp}{f'-ep{ep}' if int(ep) > 1 else ''}{'-dpa' if dpa else ''}"


def _system(point: Point, chip: str) -> str:
    if point.disagg and point.layout[0][0] == "total":
        return (
            f"{point.gpus} x {chip}, disaggregated ({point.framework}), {point.gpus} GPUs in all "
            "(tp); prefill and decode workers not stated"
        )
    if point.disagg:
        (pw, ptp, pep, pdpa, pg), (dw, dtp, dep, ddpa, dg) = point.layout
        return (
            f"{point.gpus} x {chip}, disaggregated: {pw} prefill worker(s) of tp {ptp}, ep {pep}"
            f"{', dp-attention' if pdpa else ''} ({pg} GPUs) and {dw} decode worker(s) of tp "
            f"{dtp}, ep {dep}{', dp-attention' if ddpa else ''} ({dg} GPUs)"
        )
    tp, ep, dpa = point.layout
    return (
        f"{point.gpus} x {chip}, tp {tp}, ep {'not stated' if ep is None else ep}, "
        f"dp-attention {_dpa(dpa)}"
    )


def decoding_all(point: Point) -> bool:
    """Whether the batch is the concurrency: one node, and the median request spends under a
    tenth of its time waiting for its first token, so nearly every request is being decoded
    (a disaggregated deployment's batch is its decode workers', which it does not state)."""
    e2el = point.metrics.get("median_e2el")
    return not point.disagg and e2el is not None and point.metrics["median_ttft"] <= 0.1 * e2el


def _g(value: float) -> str:
    return f"{value:.6g}"


def _id(point: Point, *, detailed: bool = False) -> str:
    spec = "" if point.spec == "none" else "-" + point.spec
    return (
        # no run id (source and notes give it): one run per configuration is kept
        f"inferencex-{point.prefix}-{re.split(r'[-_]', point.hw)[0]}-{point.framework}-"
        f"{point.precision}-{_tokens(point.isl)}{_tokens(point.osl)}-"
        f"{_layout(point, detailed=detailed)}{spec}-c{point.conc}"
    )


def ids(kept: list[Point]) -> list[str]:
    """Each kept point's id: the short one, or where two configurations would share it (a
    disaggregated deployment's workers laid out with other expert parallelism), the detailed."""
    short = [_id(point) for point in kept]
    shared = {i for i in short if short.count(i) > 1}
    named = [_id(p, detailed=True) if i in shared else i for p, i in zip(kept, short, strict=True)]
    repeated = sorted({i for i in named if named.count(i) > 1})
    if repeated:
        raise ValueError(f"ids repeated: {', '.join(repeated)}")
    return named


def row(point: Point, ident: str) -> dict[str, str]:
    """One catalogue row from one point."""
    chip = str(point.chip)
    m = point.metrics
    model, served = MODELS[point.prefix]
    source = point.source
    isl, osl, conc = point.isl, point.osl, point.conc
    image = point.image or "not stated"
    software = f"{point.framework}, image {image}"
    if point.spec != "none":
        software += f", {point.spec.upper()} speculative decoding"
    run_page = RUN_PAGE.format(run=point.run)
    if source.kind == ARTIFACT:
        name = Path(source.file).name
        artifact = (
            "results_bmk (agg_bmk.json)"
            if name == "agg_bmk.json"
            else f"results_{name.removeprefix('agg_').removesuffix('.json')} ({name})"
        )
        cited = (
            f"SemiAnalysis InferenceX (formerly InferenceMAX), official CI run {point.run}, "
            f"artifact {artifact}"
        )
        origin = (
            f"Official run artifact of run {point.run} ({run_page}), archived unmodified in "
            f"core/data/throughput/inferencex/{source.file}; run date from {source.date_from}."
        )
    else:
        attempt = f" attempt {point.attempt}" if point.attempt else ""
        cited = (
            f"SemiAnalysis InferenceX (formerly InferenceMAX), CI run {point.run}{attempt}, as "
            f"its dashboard's API serves it ({Path(source.file).name.removesuffix('.gz')}, a "
            "copy, not the run's artifact)"
        )
        origin = (
            f"The dashboard's copy of run {point.run}{attempt} ({run_page}), its API's answer "
            f"as SemiAnalysisAI/InferenceX-app keeps it for its tests, archived in "
            f"core/data/throughput/inferencex/{source.file} (item {point.index}); the "
            "date is the point's own `date`."
        )
    notes = (
        f"One point of InferenceX's concurrency sweep: {conc} concurrent requests of random "
        f"prompts, input and output lengths drawn within 80-100% of {isl}/{osl} tokens, every "
        "answer run to its length (ignore_eos). tokens_per_second is output_tput_per_gpu "
        f"(generated tokens per second per GPU, over the deployment's {point.gpus} GPUs); "
        "tput_per_gpu in stated_as also counts the prompts' tokens. tokens_per_second_per_user "
        "is median_intvty (1 / the median time per output token); ttft_ms and tpot_ms are "
        "median_ttft and median_tpot, which the file gives in seconds. Model served: "
        f"{served}{f' ({point.served})' if point.served else ''}. {origin}"
    )
    raw = point.raw
    if source.kind == DASHBOARD and not point.disagg and raw["num_decode_gpu"] != point.gpus:
        notes += (
            f" The dashboard gives this one-node point num_prefill_gpu {raw['num_prefill_gpu']} "
            f"and num_decode_gpu {raw['num_decode_gpu']}; chips is its tp, {point.gpus}."
        )
    if decoding_all(point):
        notes += (
            " batch_size is the concurrency: the median time to first token is under a tenth of "
            "the median request's, so nearly every request is being decoded at any moment."
        )
    if point.spec != "none":
        notes += (
            " With speculative decoding a user may be served faster than the weights can be "
            "read once per token."
        )
    return {
        "id": ident,
        "chip": chip,
        "model": model,
        "workload": "inference",
        "kind": "independent",
        "tokens_per_second": _g(m["output_tput_per_gpu"]),
        "per": "chip",
        "chips": str(point.gpus),
        "precision": point.precision,
        "operating_point": "latency-bound",
        "scenario": f"ISL/OSL {isl}/{osl}, concurrency {conc}",
        "tokens_per_second_per_user": _g(m["median_intvty"]),
        "ttft_ms": _g(m["median_ttft"] * 1000),
        "tpot_ms": _g(m["median_tpot"] * 1000),
        "input_tokens": str(isl),
        "output_tokens": str(osl),
        "batch_size": str(conc) if decoding_all(point) else "",
        "concurrency": str(conc),
        "software": software,
        "system": _system(point, chip),
        "submitter": "SemiAnalysis",
        "source": cited,
        "source_url": source.url,
        "source_date": point.date,
        "stated_as": (
            f"output_tput_per_gpu {m['output_tput_per_gpu']!r} | tput_per_gpu (input and "
            f"output tokens) {m['tput_per_gpu']!r} | median_intvty {m['median_intvty']!r}"
            f" | median_ttft {m['median_ttft']!r} s | median_tpot {m['median_tpot']!r} s"
            f" (hw {point.hw}, conc {conc})"
        ),
        "notes": notes,
        "deployment": point.deployment,
    }


def kept_points(archive: Path = ARCHIVE) -> list[Point]:
    found = points(archive)
    why = excluded_because(found)
    return [point for i, point in enumerate(found) if i not in why]


def rows(archive: Path = ARCHIVE) -> list[dict[str, str]]:
    kept = kept_points(archive)
    return [row(point, ident) for point, ident in zip(kept, ids(kept), strict=True)]


def main() -> None:
    found = points()
    for index, reason in sorted(excluded_because(found).items()):
        point = found[index]
        print(f"excluded: {point.where} run {point.run} {point.config} conc {point.conc}: "
              f"{reason}", file=sys.stderr)  # fmt: skip
    sys.stdout.write(HEADER)
    writer = csv.DictWriter(sys.stdout, fieldnames=COLUMNS, lineterminator="\n")
    writer.writeheader()
    writer.writerows(rows())


if __name__ == "__main__":
    main()
