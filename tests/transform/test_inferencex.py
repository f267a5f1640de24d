"""InferenceX in the catalogue: every row read back from the archived file it names
(core/data/throughput/inferencex/: official run artifacts and the dashboard's API copies),
in the catalogue and in a seeded warehouse; every archived point either imported or left out for
a stated reason; every archived file named in the README with its origin, date and sha256."""

from __future__ import annotations

import csv
import gzip
import hashlib
import importlib.util
import json
import re
import sys
from functools import cache

import pytest

from chipcost.core.catalog import chip_rows
from chipcost.transform.measured import physical_roof
from chipcost.transform.references import model_rows, throughput_references
from tests.paths import ROOT

ARCHIVE = ROOT / "core" / "data" / "throughput" / "inferencex"
CATALOGUE = ROOT / "core" / "data" / "throughput" / "independent-inferencex.csv"
# The runner (hw, hardware) -> canonical chip; InferenceX's model prefix -> chipcost's model.
CHIPS = {"h100": "H100-SXM", "h200": "H200", "b200": "B200", "b300": "B300", "gb200": "GB200",
         "gb300": "GB300", "mi300x": "MI300X", "mi325x": "MI325X", "mi355x": "MI355X"}  # fmt: skip
MODELS = {"dsr1": "deepseek-r1", "gptoss": "gpt-oss-120b", "70b": "llama-3.3-70b"}
KINDS = ("official artifact", "dashboard API copy")
_FILE = re.compile(r"core/data/throughput/inferencex/(\S+?\.json(?:\.gz)?)")
_RUN = re.compile(r"(?:CI run|run) (\d+)")


def _script():
    path = ROOT / "scripts" / "throughput" / "inferencex.py"
    spec = importlib.util.spec_from_file_location("inferencex", path)
    module = importlib.util.module_from_spec(spec)
    sys.modules["inferencex"] = module  # its dataclass looks its module up there
    spec.loader.exec_module(module)  # type: ignore[union-attr]
    return module


def _readme() -> dict[str, list[str]]:
    """file -> its README row's cells (repository, commit, path, run, date, from, kind, sha256)."""
    rows = {}
    for line in (ARCHIVE / "README.md").read_text(encoding="utf-8").splitlines():
        cells = [c.strip() for c in line.strip().strip("|").split("|")]
        if line.startswith("| ") and re.search(r"\.json(\.gz)?$", cells[0]):
            rows[cells[0]] = cells[1:]
    return rows


@cache
def _published(file: str) -> bytes:
    data = (ARCHIVE / file).read_bytes()
    return gzip.decompress(data) if file.endswith(".gz") else data


def _fields(file: str, p: dict) -> dict:
    """A point's identity and values, read straight from its file, whatever its schema."""
    if "run_url" in p:  # the dashboard's copy
        one_node = not p["disagg"]
        total = p["prefill_num_workers"] == 0 and p["decode_num_workers"] == 0
        return {
            "run": re.search(r"/runs/(\d+)", p["run_url"])[1], "date": p["date"],
            "hw": p["hardware"], "prefix": p["model"], "isl": p["isl"], "osl": p["osl"],
            "image": p.get("image") or "not stated", "mtp": p["spec_method"] == "mtp",
            "gpus": p["decode_tp"] if one_node or total
            else p["num_prefill_gpu"] + p["num_decode_gpu"],
            "disagg": p["disagg"], **{k: p[k] for k in ("framework", "precision", "conc")},
            **p["metrics"],
        }  # fmt: skip
    run = re.match(r"run_(\d+)/", file)[1]
    if "isl" in p:  # agg_bmk.json, December 2025 on
        gpus = p["num_prefill_gpu"] + p["num_decode_gpu"] if p.get("disagg") else p["tp"]
        return {**p, "run": run, "prefix": p["infmax_model_prefix"], "gpus": gpus,
                "image": p["image"], "mtp": p.get("spec_decoding") == "mtp",
                "disagg": bool(p.get("disagg"))}  # fmt: skip
    # October 2025: the shape is the artifact's name, a GB200 deployment's GPUs are its tp
    prefix, isl, osl = re.search(r"agg_(\w+?)_(\d+)k(\d+)k\.json", file).groups()
    return {**p, "run": run, "prefix": prefix, "isl": int(isl) * 1024, "osl": int(osl) * 1024,
            "gpus": p["tp"], "image": "not stated", "mtp": p.get("mtp") == "on",
            "disagg": p["framework"].startswith("dynamo")}  # fmt: skip


@cache
def _points(file: str) -> tuple[dict, ...]:
    return tuple(_fields(file, p) for p in json.loads(_published(file)))


@cache
def _rows() -> tuple[dict[str, str], ...]:
    with CATALOGUE.open(encoding="utf-8") as handle:
        return tuple(csv.DictReader(line for line in handle if not line.startswith("#")))


def _same(row: dict[str, str], p: dict) -> bool:
    """The row is the point: its identity, and its published values (six digits kept)."""
    return (
        CHIPS.get(re.split(r"[-_]", p["hw"])[0]) == row["chip"]
        and MODELS.get(p["prefix"]) == row["model"]
        and (str(p["isl"]), str(p["osl"]), str(p["conc"]))
        == (row["input_tokens"], row["output_tokens"], row["concurrency"])
        and p["precision"] == row["precision"]
        and row["software"].startswith(f"{p['framework']}, image {p['image']}")
        and str(p["gpus"]) == row["chips"]
        and row["system"].startswith(f"{p['gpus']} x {row['chip']}")
        and f"run {p['run']}" in row["source"]
        and row["deployment"]
        == ("disaggregated" if p["disagg"] else "single-node") + ("+mtp" if p["mtp"] else "")
        and all(
            float(row[column]) == pytest.approx(p[metric] * scale, rel=1e-5)
            for column, metric, scale in (
                ("tokens_per_second", "output_tput_per_gpu", 1),
                ("tokens_per_second_per_user", "median_intvty", 1),
                ("ttft_ms", "median_ttft", 1000),  # the files give seconds
                ("tpot_ms", "median_tpot", 1000),
            )
        )
        and f"tput_per_gpu (input and output tokens) {p['tput_per_gpu']!r}" in row["stated_as"]
    )


@cache
def _matched() -> dict[str, tuple[str, int]]:
    """id -> (file, index of its point in the file); each row exactly one point."""
    found = {}
    for row in _rows():
        file = _FILE.search(row["notes"])[1]
        points = _points(file)
        same = [i for i, p in enumerate(points) if _same(row, p)]
        assert len(same) == 1, (row["id"], file, len(same))
        found[row["id"]] = (file, same[0])
        if file.startswith("dashboard/"):  # the notes name the item and the date is the point's
            assert f"(item {same[0]})" in row["notes"], row["id"]
            assert row["source_date"] == points[same[0]]["date"], row["id"]
        else:
            assert row["source_date"] == _readme()[file][4], row["id"]
        assert row["source_url"] == "https://github.com/{}/blob/{}/{}".format(*_readme()[file][:3])
    return found


@pytest.fixture(scope="module")
def catalogue():
    return [f for f in throughput_references() if f.throughput_id.startswith("inferencex-")]


def test_every_catalogue_row_is_a_published_point_of_the_file_it_names():
    matched = _matched()
    rows = _rows()
    assert len(set(matched.values())) == len(rows) >= 2000  # no point imported twice
    assert len({row["id"] for row in rows}) == len(rows)
    assert {row["model"] for row in rows} == {"deepseek-r1", "gpt-oss-120b", "llama-3.3-70b"}
    assert {row["chip"] for row in rows} == set(CHIPS.values())
    assert {row["deployment"] for row in rows} == {
        "single-node", "single-node+mtp", "disaggregated", "disaggregated+mtp"
    }  # fmt: skip
    assert list(rows[0])[-1] == "deployment"
    kinds = {row["id"]: "dashboard" in row["source"] for row in rows}
    for ident, (file, _) in matched.items():  # the source says which kind of file it is
        assert kinds[ident] == file.startswith("dashboard/"), ident


def test_the_catalogue_is_what_the_script_writes_of_the_archive():
    script = _script()
    assert [dict(r) for r in _rows()] == script.rows()


def test_every_archived_point_is_imported_or_left_out_for_a_true_reason():
    script = _script()
    found = script.points()
    reasons = script.excluded_because(found)
    imported = set(_matched().values())
    kept = {(p.config, p.conc): p for i, p in enumerate(found) if i not in reasons}
    runs_kept = {p.config: int(p.run) for p in kept.values()}
    for index, point in enumerate(found):
        where = (point.source.file, point.index)
        if index not in reasons:
            assert where in imported, where
            continue
        assert where not in imported, where
        reason = reasons[index]
        if newer := re.fullmatch(r"run (\d+) is newer for the same configuration", reason):
            assert runs_kept[point.config] == int(newer[1]) > int(point.run), (where, reason)
        elif copy := re.fullmatch(r"a copy of (\S+) \[(\d+)\]", reason):
            original = _points(copy[1])[int(copy[2])]
            assert (copy[1], int(copy[2])) in imported or any(
                r.startswith("run ") for i, r in reasons.items()
                if (found[i].source.file, found[i].index) == (copy[1], int(copy[2]))
            ), (where, reason)  # fmt: skip
            theirs = _points(point.source.file)[point.index]
            for metric in ("output_tput_per_gpu", "tput_per_gpu", "median_intvty"):
                assert theirs[metric] == original[metric], (where, metric)
            assert (theirs["run"], theirs["conc"]) == (original["run"], original["conc"])
        else:
            missing = re.fullmatch(r"(\w+) not stated", reason)
            assert missing and _points(point.source.file)[point.index].get(missing[1]) is None
    assert len(imported) + len(reasons) == len(found)


def test_the_official_artifact_is_preferred_to_the_dashboards_copy_of_its_run():
    """Run 20720630953's artifact lacks 15 points of the run; the dashboard holds 10 of them,
    read from its copy; every point both hold is taken from the artifact."""
    script = _script()
    found = script.points()
    reasons = script.excluded_because(found)
    ours = [i for i, p in enumerate(found) if p.run == "20720630953"]
    copies = [i for i in ours if found[i].source.kind == "dashboard API copy"]
    assert len([i for i in ours if found[i].source.kind == "official artifact"]) == 30
    assert len(copies) == 27
    assert sum(not reasons[i].startswith("a copy of run_") for i in copies) == 10
    for index, reason in reasons.items():
        if reason.startswith("a copy of "):
            assert found[index].source.kind == "dashboard API copy", reason


def test_every_archived_file_is_named_in_the_readme_with_its_origin_date_and_sha256():
    readme = _readme()
    archived = {str(path.relative_to(ARCHIVE)) for path in ARCHIVE.rglob("*") if path.is_file()} - {
        "README.md"
    }
    assert set(readme) == archived
    assert [s.file for s in _script().archived_files()] == list(readme)
    for file, (repository, commit, path, run, date, date_from, kind, sha) in readme.items():
        assert re.fullmatch(r"[\w.-]+/[\w.-]+", repository)
        assert re.fullmatch(r"[0-9a-f]{40}", commit)
        assert path.endswith(".json") and date_from
        assert hashlib.sha256(_published(file)).hexdigest() == sha, file
        assert kind == KINDS[file.startswith("dashboard/")], file
        if kind == "official artifact":
            assert re.fullmatch(r"\d{4}-\d{2}(-\d{2})?", date) and file.startswith(f"run_{run}/")
    # the dashboard's copies are those its repository's fixture manifest lists
    assert readme["dashboard/benchmarks.json.gz"][-1].startswith("f46823a76cb63248")
    assert readme["dashboard/benchmarks-history.json.gz"][-1].startswith("9e7efc17d018d25a")


def test_the_seeded_warehouse_holds_the_same_points(con, catalogue):
    rows = con.execute(
        "SELECT throughput_id, tokens_per_second_per_chip, tokens_per_second_per_user, ttft_ms, "
        "tpot_ms, concurrency, input_tokens, output_tokens, source_date, source_url "
        "FROM throughput WHERE throughput_id LIKE 'inferencex-%'"
    ).fetchall()
    by_id = {f.throughput_id: f for f in catalogue}
    assert {r[0] for r in rows} == set(by_id) == set(_matched())
    for ident, tps, per_user, ttft, tpot, conc, isl, osl, date, url in rows:
        file, index = _matched()[ident]
        point = _points(file)[index]
        assert (conc, isl, osl) == (point["conc"], point["isl"], point["osl"])
        assert tps == pytest.approx(point["output_tput_per_gpu"], rel=1e-5)
        assert per_user == pytest.approx(point["median_intvty"], rel=1e-5)
        assert ttft == pytest.approx(point["median_ttft"] * 1000, rel=1e-5)
        assert tpot == pytest.approx(point["median_tpot"] * 1000, rel=1e-5)
        assert date == by_id[ident].source_date and url == by_id[ident].source_url


def _roof(figure, chips: dict, models: dict, gpus: int, *, read: str = "parameters"):
    """The physical roof (transform/measured.py) of the figure's GPUs; `read` is the weights
    one decoding step must read: all of them, or only the active ones."""
    chip, model = chips[figure.chip], models[figure.model]
    peak = float(chip.get("dense_fp4_tflops") or 0) if figure.precision == "fp4" else 0.0
    return physical_roof(
        total_parameters=float(model[read] or model["parameters"]),  # a dense model: all
        active_parameters=float(model.get("active_parameters") or model["parameters"]),
        precision=figure.precision,
        peak_tflops=peak or float(chip["dense_fp8_tflops"]),
        bandwidth_tbps=float(chip["memory_bandwidth_tbps"]),
        chips=gpus,
        input_tokens=figure.input_tokens,
        output_tokens=figure.output_tokens,
    )


def test_no_point_is_above_the_chips_compute_roof(catalogue):
    """Per GPU, no point generates faster than the dense peak at its precision allows."""
    chips = {row["chip"]: row for row in chip_rows()}
    models = {str(m["model"]): m for m in model_rows()}
    for figure in catalogue:
        gpus = int(figure.system.split(" x ")[0])
        roof = _roof(figure, chips, models, gpus)
        assert figure.tokens_per_second_per_chip < roof.per_chip, figure.throughput_id


def test_no_user_is_served_faster_than_the_active_weights_can_be_read(catalogue):
    """Per user, no point beats one read of the active weights per token. The all-weights roof
    of `chipcost measure` does not hold for the mixture-of-experts models: at a few concurrent
    requests a step reads only the experts those tokens are routed to, and some DeepSeek-R1 and
    gpt-oss-120b points are above it (none of dense Llama 3.3 70B), none above this."""
    chips = {row["chip"]: row for row in chip_rows()}
    models = {str(m["model"]): m for m in model_rows()}
    above_all_weights = []
    for figure in catalogue:
        gpus = int(figure.system.split(" x ")[0])
        active = _roof(figure, chips, models, gpus, read="active_parameters")
        assert figure.tokens_per_second_per_user < active.per_user, figure.throughput_id
        if figure.tokens_per_second_per_user > _roof(figure, chips, models, gpus).per_user:
            above_all_weights.append(figure)
    assert {f.model for f in above_all_weights} <= {"deepseek-r1", "gpt-oss-120b"}
    assert len(above_all_weights) == ABOVE_ALL_WEIGHTS


ABOVE_ALL_WEIGHTS = 186  # counted from the catalogue; a change says the catalogue changed
