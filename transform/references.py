"""Throughput references, model sizes and derivation assumptions: data files in core/data."""

from __future__ import annotations

import csv
import re
from functools import cache
from importlib import resources

from chipcost.core.catalog import canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.core.figures import WORKLOADS, Assumption, Figure
from chipcost.transform.roofline import Settings
from chipcost.transform.throughput_figures import figures_from_rows, normalise_model
from chipcost.transform.tokens import parse_quantity

# The throughput catalogue: one file per publication family (articles, MLPerf, vendors' pages),
# every file in the folder read (docs/cost-per-token.md, "The throughput catalogue").
THROUGHPUT_DIR = "throughput"
MODELS_FILE = "core/data/models.csv"
EQUIVALENTS_FILE = "core/data/model_equivalents.csv"
DERIVATION_FILE = "core/data/derivation.csv"


def throughput_files() -> list[str]:
    """The catalogue's files, relative to core/data, in a stable order."""
    folder = resources.files("chipcost.core").joinpath("data", THROUGHPUT_DIR)
    names = sorted(entry.name for entry in folder.iterdir() if entry.name.endswith(".csv"))
    return [f"{THROUGHPUT_DIR}/{name}" for name in names]


def _numbered_rows(name: str) -> tuple[list[int], list[dict[str, str]]]:
    """(line numbers, rows) of a data file; '#' lines are skipped but still counted."""
    path = resources.files("chipcost.core").joinpath("data", *name.split("/"))
    with path.open(encoding="utf-8") as handle:
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
    """Every row of the catalogue's files, checked: a bad row stops the load, naming its file
    and line, and an id may appear once in the whole catalogue."""
    chips, equivalents = canonical_chips(), model_equivalents()
    models = [str(m["model"]) for m in model_rows()]
    figures: list[Figure] = []
    for name in throughput_files():
        lines, rows = _numbered_rows(name)
        figures += figures_from_rows(
            rows,
            chips=chips,
            origin="reference",
            where=f"core/data/{name}",
            lines=lines,
            equivalents=equivalents,
            models=models,
        )
    ids = [f.throughput_id for f in figures]
    repeated = sorted({i for i in ids if ids.count(i) > 1})
    if repeated:
        raise ChipcostError(f"core/data/{THROUGHPUT_DIR}/ repeats the id(s) {', '.join(repeated)}")
    return tuple(figures)


@cache
def model_equivalents() -> dict[str, tuple[str, str]]:
    """published model -> (the model it stands for, why): model_equivalents.csv, checked."""
    known = {str(m["model"]) for m in model_rows()}
    found = {}
    for line, row in enumerate(_rows("model_equivalents.csv"), start=2):
        published, target = normalise_model(row["model"]), normalise_model(row["stands_for"])
        if target not in known or published in known or not (row.get("why") or "").strip():
            raise ChipcostError(
                f"{EQUIVALENTS_FILE} line {line}: {published} -> {target} needs a model of "
                "models.csv to stand for, a published name that is not one, and why"
            )
        found[published] = (target, row["why"].strip())
    return found


def model_standing(name: str) -> tuple[str, str | None]:
    """(the model chipcost keeps figures of, why) for a model as named: 'Llama 3.3 70B' ->
    ('llama-3-70b', the rule of model_equivalents.csv); any other name normalised, no rule."""
    model = normalise_model(name)
    target = model_equivalents().get(model)
    return target if target else (model, None)


# What a Hugging Face id adds to the name of the model it holds, none of which changes a
# layer: the organisation ('meta-llama/'), Meta's own prefix ('Meta-Llama-3-70B'), the tuning
# of the weights ('-Instruct', '-Chat', '-it', '-Thinking', '-Base'), Meta's '-hf' (its weights
# in the Hugging Face format) and the format they are stored in ('-FP8', '-AWQ': a
# precision, which each figure names).
# The formats the weights are stored in: a precision the figures are asked at only by
# --precision (reads/cost_asked.py says so of a name that holds one).
STORED_AS = (
    "-fp8-kv", "-fp8-dynamic", "-fp8", "-nvfp4", "-fp4", "-mxfp4",
    "-awq", "-gptq", "-int4", "-int8", "-w8a8", "-w4a16", "-bf16",
)  # fmt: skip
_SUFFIXES = ("-instruct", "-chat", "-it", "-thinking", "-base", "-hf", *STORED_AS)


# What names a release or a mixture's shape rather than the model: a release tag (Qwen's
# '-2507', DeepSeek's '-0528': year and month; Mistral's '-v0.1'), new weights of the same
# layers, and Llama 4's active parameters and experts ('-17B-16E'), which its name already is.
# Hugging Face's own bound on a repository's name: longer is no id, and is not cut.
LONGEST_ID = 96
_RELEASE = re.compile(r"-(\d{4}|v\d+(?:\.\d+)*)$")
_SHAPE = re.compile(r"-\d+b-\d+e$")


def repo_release(name: str) -> tuple[str | None, str | None]:
    """(the model a Hugging Face id holds, as chipcost names it, its release tag or None):
    'Qwen/Qwen3-235B-A22B-Instruct-2507-FP8' -> ('qwen3-235b-a22b', '2507'). The model is a
    model of models.csv or one standing for one (model_equivalents.csv); (None, None) for a
    name that is not an id, or an id of another model."""
    if "/" not in name:
        return None, None
    model, release = repo_cut(name)
    standing, _ = model_standing(model)
    known = any(m["model"] == standing for m in model_rows())
    return (model, release) if known else (None, None)


def repo_cut(name: str) -> tuple[str, str | None]:
    """A Hugging Face id's model name with what does not change a layer cut off, and its
    release tag or None, known to chipcost or not: 'Qwen/Qwen2.5-72B-Instruct' -> ('qwen2.5-72b',
    None)."""
    model, release, _ = name_cut(name)
    return model, release


def name_cut(name: str) -> tuple[str, str | None, tuple[str, ...]]:
    """repo_cut's (model, release tag) and the parts cut that name no layer, as the name
    writes them in order: 'Meta-Llama-3-70B-Instruct-FP8' -> ('llama-3-70b', None, ('meta-',
    '-instruct', '-fp8')). A version tag is the model's own where nothing numbered is left
    without it: 'DeepSeek-V3-0324' -> ('deepseek-v3', '0324', ())."""
    model, cut, release = normalise_model(name.rsplit("/", 1)[-1]), "", None
    if len(model) > LONGEST_ID:  # no id's: cut a pass a suffix, a long name took a minute
        return model, None, ()
    cut_off: list[str] = []  # the parts cut, last first
    while cut != model:  # '-instruct-2507-fp8': each suffix, in any order
        cut = model
        for suffix in _SUFFIXES:
            if model.endswith(suffix):
                model = model.removesuffix(suffix)
                cut_off.append(suffix)
        tag = _RELEASE.search(model)
        if tag and (tag[1][0] != "v" or re.search(r"\d", model[: tag.start()])):
            model, release = model[: tag.start()], tag[1]
        if shape := _SHAPE.search(model):
            model = model[: shape.start()]
            cut_off.append(shape[0])
    parts = cut_off[::-1]
    if model.startswith("meta-"):
        model, parts = model.removeprefix("meta-"), ["meta-", *parts]
    return model, release, tuple(parts)


def repo_model(name: str) -> str | None:
    """The model a Hugging Face id holds, as chipcost names it ('meta-llama/Llama-3.3-70B-
    Instruct' -> 'llama-3.3-70b'; repo_release); None for a name that is not an id, or an id
    of another model."""
    return repo_release(name)[0]


def model_asked(name: str) -> tuple[str, str | None, str | None]:
    """(the model whose figures answer `name`, the model a Hugging Face id holds or None,
    why that model stands for another or None): 'meta-llama/Llama-3.3-70B-Instruct' ->
    ('llama-3-70b', 'llama-3.3-70b', the rule of model_equivalents.csv)."""
    plain = repo_model(name)
    standing, why = model_standing(plain or name)
    return standing, plain, why


def repo_id_refused(name: str) -> str | None:
    """What to say of a Hugging Face id given where a measurement is recorded under chipcost's
    name for the model; None for a name that is not an id."""
    if "/" not in name:
        return None
    plain = repo_model(name)
    named = (
        f"chipcost's name for it, {plain}" if plain else "the model's name without its organisation"
    )
    return f"model {name!r} is a Hugging Face id: give {named}"


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
        models.append({**row, "parameters": params, **_shape(row, params, line)})
    return tuple(models)


def _shape(row: dict[str, str], params: float, line: int) -> dict[str, object]:
    """A model's shape as the roofline reads it: active parameters (a mixture of experts
    computes with fewer than it holds), layers, KV heads, head dimension and attention kind."""
    where = f"{MODELS_FILE} line {line}"
    active_text = (row.get("active_parameters") or "").strip()
    active = parse_quantity(active_text, f"{where} active_parameters") if active_text else params
    if active > params:
        raise ChipcostError(f"{where}: active_parameters exceed parameters")
    attention = (row.get("attention") or "").strip()
    if attention not in ATTENTION:
        known = ", ".join(ATTENTION)
        raise ChipcostError(f"{where}: attention {attention!r} is not one of {known}")
    shape: dict[str, object] = {"active_parameters": active, "attention": attention}
    for column in ("layers", "kv_heads", "head_dim"):
        text = (row.get(column) or "").strip()
        value = int(parse_quantity(text, f"{where} {column}")) if text else None
        if value is None and attention != "none":
            raise ChipcostError(f"{where}: {column} is empty (the KV cache needs it)")
        shape[column] = value
    return shape


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


ROOFLINE_FILE = "core/data/roofline.csv"
ATTENTION = ("gqa", "mha", "mla", "none")


@cache
def roofline_settings() -> Settings:
    """The inference roofline's settings (roofline.csv), checked."""
    values = {row["setting"]: row["value"].strip() for row in _rows("roofline.csv")}
    try:
        settings = Settings(
            bandwidth_efficiency=float(values["bandwidth_efficiency"]),
            usable_memory=float(values["usable_memory"]),
            input_tokens=int(values["input_tokens"]),
            output_tokens=int(values["output_tokens"]),
            speeds=tuple(sorted(float(v) for v in values["speeds"].split(";"))),
            allreduce_latency_us=float(values["allreduce_latency_us"]),
        )
    except (KeyError, ValueError) as exc:
        raise ChipcostError(f"{ROOFLINE_FILE}: missing or bad setting ({exc})") from None
    fractions = (settings.bandwidth_efficiency, settings.usable_memory)
    if not all(0 < f <= 1 for f in fractions) or min(settings.speeds, default=0) <= 0:
        raise ChipcostError(f"{ROOFLINE_FILE}: efficiencies are in (0, 1], speeds positive")
    return settings


@cache
def interconnect() -> dict[str, float]:
    """Each chip's stated bidirectional interconnect bandwidth in GB/s (interconnect.csv)."""
    found = {}
    for row in _rows("interconnect.csv"):
        value = parse_quantity(row["interconnect_gbps"], "interconnect_gbps")
        if value <= 0 or not (row.get("source") or "").strip():
            raise ChipcostError(
                f"core/data/interconnect.csv: {row['chip']} needs a positive bandwidth and "
                "its source"
            )
        found[row["chip"]] = value
    return found


def with_interconnect(chips: list[dict]) -> list[dict]:
    """The chips' rows, each given interconnect_gbps (None where interconnect.csv has none)."""
    known = interconnect()
    return [{**chip, "interconnect_gbps": known.get(str(chip["chip"]))} for chip in chips]
