"""`chipcost measure` as a user runs it (tests.cli_runner): the real AIPerf drives a test
double of the user's serving stack (tests.openai_server: an OpenAI-compatible endpoint on
127.0.0.1 streaming tokens at a known rate), with a tokenizer the test builds (the
`tokenizers` package, nothing from a model hub), into a real DuckDB warehouse with the
shipped throughput catalogue. Bounded: a few requests of each run, each run a few seconds of
load (AIPerf's own start-up is most of a run's 20-40 s).

AIPerf runs for real where driving it is the subject: a sweep measured and recorded, an
endpoint that times out under its load. Where the subject is what chipcost makes of AIPerf's
report (a stream without usage, a malformed stream, a point above the roofline), the run is
answered from AIPerf's own output recorded against the same double (tests/fixtures/aiperf:
ORIGIN.md, record.py), after chipcost has asked the endpoint what it serves and checked the
run it asks for is the one recorded."""

from __future__ import annotations

import base64
import gzip
import json
from dataclasses import dataclass
from pathlib import Path

import pytest

from chipcost.pipeline.measure_point import matched_point
from chipcost.warehouse.db import connect, dict_rows
from tests.cli.test_cost_cli import _warehouse, chipcost
from tests.cli_runner import Ran
from tests.openai_server import Double, serving
from tests.pipeline.test_measure_point import inferencex_rows, with_inferencex, without_inferencex

# The known rate of the double, tokens/s per user: within MLPerf Interactive's speed band
# (25 to 50 tokens/s per user at `--speed 25`), so the figure is used at that speed.
RATE = 45.0
# Trainium2 chips serving the endpoint: one replica on part of a trn2.48xlarge, within the
# scale compare matches to H100-SXM's published point (2 GPUs; at most 4x apart).
TRN2_CHIPS = 4


def make_tokenizer(folder: Path) -> Path:
    """A small word-level tokenizer in `folder`: AIPerf builds its prompts with it."""
    from tokenizers import Tokenizer, models, pre_tokenizers, trainers

    made = Tokenizer(models.WordLevel(unk_token="[UNK]"))
    made.pre_tokenizer = pre_tokenizers.Whitespace()
    words = " ".join(f"w{n}" for n in range(300))
    made.train_from_iterator([words], trainers.WordLevelTrainer(special_tokens=["[UNK]"]))
    made.save(str(folder / "tokenizer.json"))
    return folder


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory) -> Path:
    return make_tokenizer(tmp_path_factory.mktemp("tokenizer"))


@pytest.fixture
def recorded(monkeypatch):
    """`recorded(name)`: AIPerf's run answered from tests/fixtures/aiperf/run-NAME (its
    summary, per-request records and last line, as AIPerf wrote them), once chipcost asks for
    the very run recorded (model, shape, concurrency, requests). Returns what was asked."""
    from chipcost.pipeline import load_generator
    from chipcost.pipeline import measure as measuring

    asked: list[dict] = []

    def answer_from(name: str) -> list[dict]:
        folder = RECORDED / f"run-{name}"
        said = json.loads((folder / "run.json").read_text())

        def run_aiperf(**given) -> load_generator.Run:
            asked.append(given)
            recorded_with = _options(said["command"])
            assert _options(["aiperf", "profile", *_asked_options(given)]) == {
                key: recorded_with[key] for key in _COMPARED
            }, (given, said["command"])
            read = [folder / kept for kept in ("summary.json", "records.jsonl")]
            summary, records = (path.read_bytes() if path.is_file() else None for path in read)
            return load_generator.Run(
                summary,
                records,
                said["command"],
                said["last_line"],
                said.get("tokenizer_error", ""),
            )

        monkeypatch.setattr(measuring, "run_aiperf", run_aiperf)
        return asked

    return answer_from


RECORDED = Path(__file__).resolve().parents[1] / "fixtures" / "aiperf"
_COMPARED = ("--model", "--isl", "--osl", "--concurrency", "--request-count")


def _asked_options(given: dict) -> list[str]:
    return [
        "--model", given["served_model"], "--isl", str(given["input_tokens"]),
        "--osl", str(given["output_tokens"]), "--concurrency", str(given["concurrency"]),
        "--request-count", str(given["requests"]),
    ]  # fmt: skip


def _options(command: list[str]) -> dict[str, str]:
    """The values of _COMPARED options in an AIPerf command line (`--x v` or `--x=v`)."""
    found = {arg: command[n + 1] for n, arg in enumerate(command) if arg in _COMPARED}
    joined = (arg.partition("=") for arg in command)
    return found | {name: value for name, eq, value in joined if eq and name in _COMPARED}


def _shipped(path: Path) -> Path:
    """The shipped catalogue, but H100-SXM's Llama 3 70B InferenceX curves: the tests that match
    H100-SXM measure at its own figures' shapes and NIM's (InferenceX's are matched below on a
    curve of the test's own)."""
    return without_inferencex(_warehouse(path))


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return _shipped(tmp_path_factory.mktemp("measure") / "w.duckdb")


def _env(data: Path) -> dict[str, str]:
    return {"CHIPCOST_DATA_DIR": str(data), "COLUMNS": "200"}


def measure(db: Path, url: str, tokenizer: Path, *args: str, model: str = "llama-3-70b") -> object:
    return chipcost(
        "measure", "--endpoint", url, "--model", model, "--tokenizer", str(tokenizer),
        "--precision", "fp8", "--software", "test double (tests.openai_server)",
        "--db", str(db), "--request-timeout", "20", "--max-seconds", "300", *args,
        env=_env(db.parent / "data"),
    )  # fmt: skip


def _user_figures(db: Path, model: str = "llama-3-70b") -> list[dict]:
    result = chipcost(
        "throughput", "list", "--origin", "user", "--model", model, "--format", "json",
        "--db", str(db),
    )  # fmt: skip
    return json.loads(result.stdout) if result.returncode == 0 else []


# A password in the endpoint's URL, with the characters a URL must quote.
PASSWORD = "s3cr:t/p@ss"
QUOTED = "s3cr%3At%2Fp%40ss"


def _watch_processes(monkeypatch: pytest.MonkeyPatch) -> list[list[str]]:
    """The command line of every process chipcost starts from now on (what `ps` shows of it)."""
    import subprocess

    seen: list[list[str]] = []

    class Watched(subprocess.Popen):
        def __init__(self, args, *more, **given):
            seen.append([str(a) for a in args])
            super().__init__(args, *more, **given)

    monkeypatch.setattr(subprocess, "Popen", Watched)
    return seen


@pytest.fixture
def started(monkeypatch) -> list[list[str]]:
    """Every process chipcost starts in the test: none where it refuses before AIPerf runs."""
    return _watch_processes(monkeypatch)


@dataclass
class Matched:
    """The measurement at H100-SXM's point, what it said, what the endpoint saw, the figures
    `throughput list` shows of it and every process it started."""

    result: Ran
    double: Double
    rows: list[dict]
    started: list[list[str]]


@pytest.fixture(scope="module")
def matched(db, tokenizer) -> Matched:
    """Trainium2 (4 chips of a trn2.48xlarge) measured at H100-SXM's point at 25 tokens/s per
    user, two concurrencies, as few requests as each takes (one, two), the endpoint behind a
    password. The model is named as InferenceX and NIM name it, llama-3.3-70b: it is measured
    and recorded as llama-3-70b, whose figures stand for it, and says the name it was given.
    AIPerf runs for real, once a concurrency, for the module: the tests below each check one
    thing of this one measurement (scripts/test.sh keeps a file's tests in one worker)."""
    with pytest.MonkeyPatch.context() as patch, serving(RATE) as double:
        started = _watch_processes(patch)
        guarded = double.url.replace("http://", f"http://user:{QUOTED}@")
        result = measure(
            db, guarded, tokenizer, "--instance", "trn2.48xlarge", "--chips", "4",
            "--match", "H100-SXM", "--speed", "25", "--concurrency", "1,2", "--requests", "1",
            model="llama-3.3-70b",
        )  # fmt: skip
    rows = sorted(_user_figures(db), key=lambda r: r["concurrency"])
    return Matched(result, double, rows, started)


def _measured(matched: Matched) -> list[dict]:
    """The measurement's figures, once it is known to have succeeded."""
    assert matched.result.returncode == 0, matched.result.stderr
    assert "Traceback" not in matched.result.stderr
    return matched.rows


def test_measured_at_the_matched_point_as_the_model_given(matched):
    rows = _measured(matched)
    said = "Trainium2 llama-3-70b (given as llama-3.3-70b) at concurrency 1"
    assert said in matched.result.stdout
    assert {(r["model"], r["published_model"]) for r in rows} == {("llama-3-70b", "llama-3.3-70b")}


def test_measured_at_the_matched_point_at_the_known_rate(matched):
    _recorded_at_the_known_rate(_measured(matched), _load(matched.double))


def test_measured_at_the_matched_point_at_its_shape(matched, db):
    _at_the_matched_point(db, _measured(matched))


def test_measured_at_the_matched_point_archived_as_aiperf_wrote_it(matched, db):
    _archived(db, _measured(matched))


def test_measured_at_the_matched_point_and_compare_answers_from_it(matched, db):
    _compared(db, {r["throughput_id"] for r in _measured(matched)})


def test_measured_at_the_matched_point_keeps_the_password_to_the_server(matched, db):
    _password_kept_to_the_server(
        db, _measured(matched), matched.result, matched.double.authorizations, matched.started
    )


def _password_kept_to_the_server(
    db: Path, rows: list[dict], result, authorizations: list, started: list
) -> None:
    basic = "Basic " + base64.b64encode(f"user:{PASSWORD}".encode()).decode()
    assert authorizations and set(authorizations) == {basic}  # every request carried it
    seen = [
        result.stdout, result.stderr, json.dumps(rows), json.dumps(_stored(db), default=str),
        json.dumps(started),
        *(gzip.decompress(f.read_bytes()).decode() for f in _archive(db).rglob("*.gz")),
        *(f.read_text() for f in _archive(db).rglob("manifest.json")),
    ]  # fmt: skip
    # one AIPerf a concurrency, each with a watcher of its group (chipcost.pipeline.aiperf_group)
    assert _aiperf_runs(started) == 2 and len(started) == 4
    for text in seen:
        for secret in (PASSWORD, QUOTED, basic.split()[1]):
            assert secret not in text


def _aiperf_runs(started: list[list[str]]) -> int:
    """How many of the processes started were AIPerf's `profile` (each has a watcher beside
    it: chipcost.pipeline.aiperf_group)."""
    return sum("profile" in command for command in started)


def _load(double) -> list[dict]:
    """The requests of AIPerf's load, streamed: not chipcost's own one-token request, unstreamed,
    asking which model answers (chipcost.pipeline.served)."""
    return [r for r in double.requests if r.get("stream")]


def _archive(db: Path) -> Path:
    return db.parent / "data" / "archive" / "measurements"


def _recorded_at_the_known_rate(rows: list[dict], requests: list[dict]) -> None:
    assert [r["concurrency"] for r in rows] == [1, 2]
    for row in rows:
        assert row["kind"] == "measured" and row["origin"] == "user"
        assert row["chip"] == "Trainium2" and row["system"] == "4 x Trainium2 (on trn2.48xlarge)"
        assert row["precision"] == "fp8" and row["software"].startswith("test double")
        assert row["operating_point"] == "latency-bound"
        # the double streams RATE tokens/s to each user, `concurrency` users at a time
        expected = RATE * row["concurrency"] / TRN2_CHIPS
        assert row["tokens_per_second_per_chip"] == pytest.approx(expected, rel=0.10)
        assert row["tokens_per_second_per_user"] == pytest.approx(RATE, rel=0.10)
    # AIPerf asked for the point's answer length, streamed, with usage: 1 + 2 requests
    assert {r.get("max_completion_tokens") for r in requests} == {rows[0]["output_tokens"]}
    assert all(r["stream"] and r["stream_options"]["include_usage"] for r in requests)
    assert len(requests) == 3


def _at_the_matched_point(db: Path, rows: list[dict]) -> None:
    con = connect(db, read_only=True)
    try:
        baseline = matched_point(con, "H100-SXM", "llama-3-70b", "25")
        shape = (baseline.input_tokens, baseline.output_tokens)
        published = con.execute(
            "SELECT count(*) FROM throughput WHERE chip = 'H100-SXM' AND model = 'llama-3-70b' "
            "AND input_tokens = ? AND output_tokens = ? AND tokens_per_second_per_user >= 25",
            [shape[0], shape[1]],
        ).fetchone()
    finally:
        con.close()
    assert published[0] >= 1  # a published H100-SXM figure at that speed has that shape
    for row in rows:
        assert (row["input_tokens"], row["output_tokens"]) == shape
        assert "H100-SXM" in row["notes"]


def _archived(db: Path, rows: list[dict]) -> None:
    for row in rows:
        ref = row["source_url"].removeprefix("archive:")
        report = json.loads(gzip.decompress((db.parent / "data" / "archive" / ref).read_bytes()))
        assert report["aiperf_version"] == "0.13.0"
        assert report["output_token_throughput"]["avg"] == pytest.approx(
            row["tokens_per_second_per_chip"] * TRN2_CHIPS
        )


def _compared_with(db: Path, ids: set[str], chip: str, model: str, speed: str) -> list[dict]:
    """compare Trainium2 against `chip` as JSON, Trainium2's side resting on the figures `ids`
    measured."""
    result = chipcost(
        "compare", "Trainium2", chip, "--model", model, "--workload", "inference",
        "--speed", speed, "--format", "json", "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = json.loads(result.stdout)
    assert lines and all(line["a_throughput_id"] in ids for line in lines), lines
    assert {line["a_throughput_figure_kind"] for line in lines} == {"measured"}
    return lines


def _compared(db: Path, ids: set[str]) -> None:
    lines = _compared_with(db, ids, "H100-SXM", "llama-3-70b", "25")
    # both measured at one point (shape, FP8, 4 chips against 2), but the double streams every
    # user at RATE, faster than the 25 asked: Trainium2's figure there is a lower bound, which
    # cannot show it dearer (tens of tokens/s per chip against H100-SXM's hundreds): no
    # verdict, the bound said, and how far dearer it could at most be
    assert {line["verdict"] for line in lines} == {"cannot say"}, [x["in_words"] for x in lines]
    for line in lines:
        assert line["a_lower_bound"] is True and line["b_lower_bound"] is False
        assert "Trainium2's figure is a lower bound" in line["in_words"]


def _refused(result, *words: str) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    # A failure is "error: ..." (exit 1), a value an option does not take "chipcost measure:
    # error: ..." (exit 2, as any usage error).
    lines = [line for line in result.stderr.splitlines()
             if line.startswith(("error:", "chipcost measure: error:"))]  # fmt: skip
    assert len(lines) == 1, result.stderr
    others = [line for line in result.stderr.splitlines() if line.strip() and line not in lines]
    # what was about to be measured, its further lines indented
    assert all(line.startswith(("measuring ", "--match: ", "  ")) for line in others), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _stored(db: Path) -> list[dict]:
    """The user's figures as the warehouse holds them: every row of the throughput table of
    origin 'user', whatever its model. What a refusal must leave empty, read in a hundredth of
    the time of `throughput list`, which ranks the whole catalogue to list them."""
    con = connect(db, read_only=True)
    try:
        return dict_rows(con, "SELECT * FROM throughput WHERE origin = 'user'")
    finally:
        con.close()


def _nothing_recorded(db: Path) -> None:
    assert _stored(db) == []


def _warehouse_now(db: Path) -> dict:
    return {
        "figures": _stored(db),
        "archived": (db.parent / "data" / "archive" / "measurements").exists(),
    }


@pytest.fixture
def fresh_db(tmp_path) -> Path:
    return _shipped(tmp_path / "w.duckdb")


def test_an_endpoint_that_refuses_is_named(fresh_db, tokenizer, started):
    with serving(RATE) as double:
        url = double.url  # closed at the block's end: nothing listens there after
    result = measure(fresh_db, url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                     "--input-tokens", "64", "--output-tokens", "16")  # fmt: skip
    _refused(result, url, "refused")
    _nothing_recorded(fresh_db)
    assert started == []  # AIPerf never started


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("stall", "no answer to GET /v1/models within 1 s"),  # before any load
        ("stall-answers", "no whole answer within --request-timeout"),  # AIPerf's requests
        # a byte every 0.3 s keeps each read within --request-timeout 1: the probe's whole
        # answer is bounded, not each read (before, it went on as long as the server did)
        ("trickle-headers", "no answer to GET /v1/models within 1 s"),
        ("trickle-models", "no answer to GET /v1/models within 1 s"),
    ],
)
def test_an_endpoint_that_times_out_is_named(fresh_db, tokenizer, started, mode, said):
    with serving(RATE, mode=mode) as double:
        result = chipcost(
            "measure", "--endpoint", double.url, "--model", "llama-3-70b", "--tokenizer",
            str(tokenizer), "--precision", "fp8", "--software", "x", "--chip", "H100-SXM",
            "--chips", "8", "--input-tokens", "32", "--output-tokens", "8", "--concurrency", "1",
            "--requests", "1", "--request-timeout", "1", "--db", str(fresh_db),
            env=_env(fresh_db.parent / "data"),
        )  # fmt: skip
    _refused(result, double.url, "timed out", said)
    _nothing_recorded(fresh_db)
    # AIPerf runs only where the endpoint lists its model and then stalls its requests
    assert _aiperf_runs(started) == (1 if mode == "stall-answers" else 0), started


@pytest.mark.parametrize(
    ("match", "said"),
    [
        # a figure's id, as `throughput list` and the evidence lines print it
        ("mlperf-v5.1-cisco-h100-sxmx32-llama2-70b-server",
         "--match 'mlperf-v5.1-cisco-h100-sxmx32-llama2-70b-server' is a figure of H100-SXM, "
         "not a chip: give --match H100-SXM"),
        ("H10", "--match 'H10': unknown chip (did you mean"),
    ],
)  # fmt: skip
def test_a_match_that_is_no_chip_is_named_as_the_matchs(fresh_db, tokenizer, started, match, said):
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "Trainium2", "--chips", "4",
                         "--match", match)  # fmt: skip
    assert result.returncode == 2, result.stderr
    assert said in " ".join(result.stderr.split()), result.stderr
    assert "--chip 'H10'" not in result.stderr and double.requests == []
    _nothing_recorded(fresh_db)
    assert started == []


def test_a_model_the_server_does_not_serve_is_named(fresh_db, tokenizer, started):
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--input-tokens", "64", "--output-tokens", "16",
                         "--served-model", "llama-4")  # fmt: skip
    _refused(result, "llama-4", "does not serve it", "test-model")
    assert result.returncode == 2
    _nothing_recorded(fresh_db)
    assert started == []


def test_a_figure_without_a_shape_is_matched_through_the_nearest_curve(
    fresh_db, tokenizer, recorded
):
    # H100-SXM's figure at the default speed is MLPerf Server's, which states no token counts:
    # the shape is that of H100-SXM's nearest public curve with one (NIM's, 5,000 in / 500 out)
    asked = recorded("nim-shape")  # AIPerf at 5,000/500 against the double at RATE
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "2",
                         "--match", "H100-SXM", "--concurrency", "1",
                         "--requests", "1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stderr.split())  # the line as said, however wrapped
    assert "--match: H100-SXM's mlperf-" in said
    assert "states no input and output tokens: measured at 5000/500" in said
    assert "the shape of H100-SXM's nearest public curve with one, nim-" in said
    [row] = _stored(fresh_db)
    assert (row["input_tokens"], row["output_tokens"]) == (5000, 500)
    assert row["tokens_per_second_per_user"] == pytest.approx(RATE, rel=0.10)
    assert row["tokens_per_second_per_chip"] == pytest.approx(RATE / 2, rel=0.10)
    assert [(a["input_tokens"], a["output_tokens"]) for a in asked] == [(5000, 500)]


def test_a_shape_given_stands_for_the_one_the_figure_lacks(fresh_db, tokenizer, recorded):
    asked = recorded("fast")
    with serving(200.0) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--match", "H100-SXM", "--input-tokens", "32", "--output-tokens", "20",
                         "--concurrency", "1", "--requests", "1",
                         "--allow-above-roofline")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "states no input and output tokens: measured at the 32/20 given" in result.stderr
    assert [(a["input_tokens"], a["output_tokens"]) for a in asked] == [(32, 20)]
    [row] = _stored(fresh_db)
    assert "at the shape given" in row["notes"]


@pytest.mark.parametrize(
    ("mode", "words"),
    [
        ("no-usage", ("returned no usage",)),
        ("malformed", ("malformed stream",)),
        ("no-stream", ("does not stream",)),
        ("inflated-usage", ("claims 80 output tokens", "where it streamed 8")),
        ("redirect", ("redirected AIPerf's requests to another host",)),
    ],
)
def test_a_bad_stream_is_named(fresh_db, tokenizer, recorded, mode, words):
    asked = recorded(mode)
    with serving(200.0, mode=mode) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--input-tokens", "32", "--output-tokens", "8", "--concurrency", "1",
                         "--requests", "1")  # fmt: skip
    _refused(result, double.url, *words)
    assert len(asked) == 1  # the sweep stopped at its first concurrency
    _nothing_recorded(fresh_db)
    assert not (fresh_db.parent / "data" / "archive" / "measurements").exists()


def test_a_figure_above_the_roofline_is_refused(fresh_db, tokenizer, recorded):
    # 70B parameters in BF16 read once per token from one H100's 3.35 TB/s: at most 24
    # tokens/s per user; the double streamed 200
    recorded("fast")
    with serving(200.0) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "1",
                         "--precision", "bf16", "--input-tokens", "32", "--output-tokens", "20",
                         "--concurrency", "1", "--requests", "1")  # fmt: skip
        refused = _warehouse_now(fresh_db)
        # the same report with --allow-above-roofline is recorded: the refusal was the roof's
        kept = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "1",
                       "--precision", "bf16", "--input-tokens", "32", "--output-tokens", "20",
                       "--concurrency", "1", "--requests", "1",
                       "--allow-above-roofline")  # fmt: skip
    _refused(result, "roofline", "24 tokens/s per user")
    assert refused == {"figures": [], "archived": False}
    assert kept.returncode == 0, kept.stderr
    [figure] = _stored(fresh_db)
    assert figure["tokens_per_second_per_user"] > 24


def test_without_aiperf_it_says_what_to_install(fresh_db, tokenizer, monkeypatch, started):
    from chipcost.pipeline import load_generator

    monkeypatch.setattr(load_generator, "_candidates", lambda: [])
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--input-tokens", "64", "--output-tokens", "16")  # fmt: skip
        given = chipcost("measure", "--endpoint", double.url, "--model", "llama-3-70b",
                         "--tokenizer", str(tokenizer), "--precision", "fp8", "--software", "x",
                         "--chip", "H100-SXM", "--chips", "8", "--input-tokens", "64",
                         "--output-tokens", "16", "--db", str(fresh_db),
                         env={"CHIPCOST_AIPERF": "/nonexistent/aiperf"})  # fmt: skip
    _refused(result, "chipcost[measure]", "CHIPCOST_AIPERF")
    _refused(given, "CHIPCOST_AIPERF=/nonexistent/aiperf is not a program")
    assert double.requests == [] and started == []  # asked what it serves, never loaded


@pytest.fixture
def answered(monkeypatch):
    """`answered(summary)`: AIPerf's run answered with `summary` (bytes: a crafted report)
    whatever is asked; returns what was asked. For the checks of a report's content."""
    from chipcost.pipeline import load_generator
    from chipcost.pipeline import measure as measuring

    asked: list[dict] = []

    def answer_with(summary: bytes | None, tokenizer_error: str = "") -> list[dict]:
        def run_aiperf(**given) -> load_generator.Run:
            asked.append(given)
            return load_generator.Run(summary, None, ["aiperf", "profile"], "", tokenizer_error)

        monkeypatch.setattr(measuring, "run_aiperf", run_aiperf)
        return asked

    return answer_with


def _fast_report(**metrics: object) -> bytes:
    """run-fast's summary (one request, 20 tokens at 200 tokens/s) with metrics replaced; text
    goes into the JSON as it is (NaN, Infinity, nesting)."""
    report = json.loads((RECORDED / "run-fast" / "summary.json").read_bytes())
    raw = {}
    for name, value in metrics.items():
        if isinstance(value, str):
            raw[f'"@{name}@"'] = value
            value = f"@{name}@"
        report[name] = value
    text = json.dumps(report)
    for mark, value in raw.items():
        text = text.replace(mark, value)
    return text.encode()


def _fast(db: Path, url: str, tokenizer: Path, *args: str) -> object:
    return measure(db, url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                   "--input-tokens", "32", "--output-tokens", "20", "--concurrency", "1",
                   "--requests", "1", *args)  # fmt: skip


@pytest.mark.parametrize(
    ("metrics", "said"),
    [
        ({"request_count": "NaN"}, "not JSON chipcost can read"),
        ({"request_count": "Infinity"}, "not JSON chipcost can read"),
        ({"request_count": {"unit": "requests", "avg": 0}}, "request_count as '0'"),
        ({"request_count": {"unit": "requests", "avg": -3}}, "request_count as '-3'"),
        ({"error_summary": 7}, "error_summary as int, not a list"),
        ({"error_summary": "[" * 100_000 + "]" * 100_000}, "nested too deep"),
        ({"output_token_count": '{"unit": "tokens", "avg": NaN}'}, "not JSON"),
        ({"request_error_rate": '{"unit": "%", "avg": NaN}'}, "not JSON"),
    ],
    ids=["count-nan", "count-inf", "count-0", "count-minus-3", "errors-a-number", "deep",
         "tokens-nan", "error-rate-nan"],
)  # fmt: skip
def test_a_report_out_of_shape_records_nothing(fresh_db, tokenizer, answered, metrics, said):
    answered(_fast_report(**metrics))
    with serving(200.0) as double:
        result = _fast(fresh_db, double.url, tokenizer, "--allow-above-roofline")
    _refused(result, "AIPerf's report of", said, "nothing recorded")
    assert _warehouse_now(fresh_db) == {"figures": [], "archived": False}


def test_a_point_cut_short_by_the_time_limit_is_recorded_nowhere(fresh_db, tokenizer, answered):
    # AIPerf stopped at --max-seconds with one of the two requests asked answered
    answered(_fast_report())
    with serving(200.0) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--input-tokens", "32", "--output-tokens", "20", "--concurrency", "1",
                         "--requests", "2", "--allow-above-roofline")  # fmt: skip
    _refused(result, "concurrency 1 was cut short by --max-seconds 300", "1 of its 2 requests")
    assert _warehouse_now(fresh_db) == {"figures": [], "archived": False}


def test_a_tokenizer_aiperf_cannot_load_is_named_as_the_tokenizers(fresh_db, tokenizer, recorded):
    recorded("bad-tokenizer")
    with serving(200.0) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--input-tokens", "32", "--output-tokens", "8", "--concurrency", "1",
                         "--requests", "1")  # fmt: skip
    _refused(result, f"--tokenizer {tokenizer}: AIPerf could not load it", "Failed to load")
    _nothing_recorded(fresh_db)


def test_two_measurements_in_one_second_keep_a_report_each(
    fresh_db, tokenizer, answered, monkeypatch
):
    from chipcost.pipeline import measure as measuring

    monkeypatch.setattr(measuring, "run_stamp", lambda moment: "2026-11-26T101010Z")
    for rate in (150.0, 180.0):
        answered(_fast_report(output_token_throughput={"unit": "tokens/sec", "avg": rate}))
        with serving(200.0) as double:
            result = _fast(fresh_db, double.url, tokenizer, "--allow-above-roofline")
        assert result.returncode == 0, result.stderr
    rows = sorted(_stored(fresh_db), key=lambda r: r["throughput_id"])
    refs = [r["source_url"].removeprefix("archive:measurements/") for r in rows]
    assert refs == ["2026-11-26T101010Z/aiperf/0001.json.gz",
                    "2026-11-26T101010Z-2/aiperf/0001.json.gz"]  # fmt: skip
    for row, ref, rate in zip(rows, refs, (150.0, 180.0), strict=True):
        report = json.loads(gzip.decompress((_archive(fresh_db) / ref).read_bytes()))
        assert report["output_token_throughput"]["avg"] == rate
        assert row["tokens_per_second_per_chip"] == pytest.approx(rate / 8)


@pytest.mark.parametrize(
    ("chips", "said"),
    [("1.5", "--chips 1.5 is not a whole number of chips"), ("0.5", "not a whole number"),
     ("16384", "--chips 16384: give 1 to 576 chips behind one inference replica"),
     ("577", "give 1 to 576"), ("0", "give 1 to 576"), ("1e10", "give 1 to 576")],
)  # fmt: skip
def test_chips_are_whole_and_within_one_replica(fresh_db, tokenizer, started, chips, said):
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", chips,
                         "--input-tokens", "64", "--output-tokens", "16")  # fmt: skip
    _refused(result, said)
    assert double.requests == [] and double.authorizations == []  # refused before any request
    assert started == []


def test_a_model_named_like_an_option_is_passed_as_one_argument(fresh_db, tokenizer, answered):
    asked = answered(_fast_report())
    with serving(200.0, models=["--help"]) as double:
        result = _fast(fresh_db, double.url, tokenizer, "--allow-above-roofline")
    assert result.returncode == 0, result.stderr
    from chipcost.pipeline.load_generator import aiperf_options

    options = aiperf_options(**{k: v for k, v in asked[0].items() if k != "client"})
    assert "--model=--help" in options and "--help" not in options


def test_the_api_key_comes_from_the_environment_and_is_never_shown(fresh_db, tokenizer, answered):
    answered(_fast_report())
    key = "sk-test-0123456789"
    with serving(200.0) as double:
        env = {**_env(fresh_db.parent / "data"), "CHIPCOST_API_KEY": key}
        result = chipcost(
            "measure", "--endpoint", double.url, "--model", "llama-3-70b", "--tokenizer",
            str(tokenizer), "--precision", "fp8", "--software", "x", "--chip", "H100-SXM",
            "--chips", "8", "--input-tokens", "32", "--output-tokens", "20", "--concurrency",
            "1", "--requests", "1", "--allow-above-roofline", "--db", str(fresh_db), env=env,
        )  # fmt: skip
        typed = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                        "--input-tokens", "32", "--output-tokens", "20",
                        "--api-key", key)  # fmt: skip
        unset = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                        "--input-tokens", "32", "--output-tokens", "20",
                        "--api-key", "NO_SUCH_VARIABLE")  # fmt: skip
    assert result.returncode == 0, result.stderr
    # the model list and the one-token answer naming the model, each asked with it
    assert double.authorizations == [f"Bearer {key}"] * 2
    _refused(typed, "--api-key takes the name of the environment variable")
    _refused(unset, "--api-key names an environment variable that is not set")
    for ran in (result, typed, unset):
        assert key not in ran.stdout + ran.stderr
    assert key not in json.dumps(_stored(fresh_db), default=str)


def test_a_redirect_to_another_host_is_not_measured(fresh_db, tokenizer):
    """AIPerf for real: the endpoint answers every completion with a 307 to another server
    (the same kind of double, named by another host); AIPerf's client follows redirects, so
    the other host must be unreachable to it."""
    with serving(RATE) as elsewhere:
        moved = elsewhere.url.replace("127.0.0.1", "localhost")
        with serving(RATE, mode="redirect", redirect_to=moved) as double:
            result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM",
                             "--chips", "8", "--input-tokens", "32", "--output-tokens", "8",
                             "--concurrency", "1", "--requests", "1")  # fmt: skip
    _refused(result, double.url, "redirected AIPerf's requests to another host")
    assert len(_load(double)) == 1 and elsewhere.requests == []
    assert _warehouse_now(fresh_db) == {"figures": [], "archived": False}


def test_an_inferencex_baseline_is_rerun_with_its_client(fresh_db, tokenizer, monkeypatch):
    """The nearest curve an InferenceX one: its sweep, ten prompts a user, lengths drawn within
    80-100% and the end-of-sequence token ignored reach AIPerf's command line."""
    from chipcost.pipeline import load_generator
    from chipcost.pipeline import measure as measuring
    from tests.pipeline.test_measure_point import SWEEP

    with_inferencex(fresh_db)
    asked: list[list[str]] = []

    def run_aiperf(**given) -> load_generator.Run:
        asked.append(load_generator.aiperf_options(**given))
        drawn = {"unit": "tokens", "avg": 0.9 * given["output_tokens"]}
        report = _fast_report(
            request_count={"unit": "requests", "avg": given["requests"]},
            output_token_count=drawn, usage_completion_tokens=drawn,
        )  # fmt: skip
        return load_generator.Run(report, None, ["aiperf", "profile"], "")

    monkeypatch.setattr(measuring, "run_aiperf", run_aiperf)
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--match", "H100-SXM", "--allow-above-roofline")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "with InferenceX's client" in result.stderr
    for options, concurrency in zip(asked, SWEEP, strict=True):
        assert f"--concurrency={concurrency}" in options
        assert f"--request-count={10 * concurrency}" in options
        assert "--random-range-ratio=0.8" in options and "--random-corpus-style=sglang" in options
        assert "--isl=1024" in options and "--osl=1024" in options
        assert "--extra-inputs=ignore_eos:true" in options
    assert {r["concurrency"] for r in _stored(fresh_db)} == set(SWEEP)


@pytest.mark.parametrize("rate", [1e-9, 0.05, 1e-300])
def test_a_point_below_the_floor_is_refused_before_anything_is_archived(
    fresh_db, tokenizer, answered, rate
):
    # 8 chips: under 0.01 tokens/s per chip (the figure gate's floor, as throughput add's)
    answered(_fast_report(output_token_throughput={"unit": "tokens/sec", "avg": rate}))
    with serving(200.0) as double:
        result = _fast(fresh_db, double.url, tokenizer, "--allow-above-roofline")
    _refused(result, "tokens/s per chip is below 0.01")
    assert _warehouse_now(fresh_db) == {"figures": [], "archived": False}


# The double's rate for the InferenceX run below, tokens/s per user: above the asked 50, so
# every point of the curve recorded is read at --speed 50.
INFERENCEX_RATE = 100.0
# An InferenceX curve of H200 serving DeepSeek-R1 at a shape small enough to sweep in seconds
# (64 input and 16 output tokens, concurrency 2 and 4: 20 and 40 requests, InferenceX's ten a
# user), newer than the catalogue's: at 50 tokens/s per user H200's figure is read between its
# two points (an interpolated id, '<faster point>@50').
H200_SWEEP = {2: 70.0, 4: 40.0}
H200_SHAPE = (64, 16)


def _with_h200_curve(db: Path) -> str:
    """The H200 curve above added; the id of the figure compare reads for H200 at 50."""
    with_inferencex(db, inferencex_rows(H200_SWEEP, chip="H200", model="deepseek-r1",
                                        shape=H200_SHAPE, tag="h200-test"))  # fmt: skip
    return "inferencex-h200-test-c2@50"


def _plan(stdout: str) -> dict[int, list[str]]:
    """measure --dry-run's AIPerf command line at each concurrency, its continued lines
    joined and read as a shell reads them."""
    import re
    import shlex

    found: dict[int, list[str]] = {}
    concurrency = None
    lines: list[str] = []
    for line in [*stdout.splitlines(), "AIPerf at concurrency 0:"]:
        header = re.fullmatch(r"AIPerf at concurrency (\d+):", line)
        if header:
            if concurrency is not None:
                found[concurrency] = shlex.split(" ".join(x.removesuffix("\\") for x in lines))
            concurrency, lines = int(header[1]), []
        elif concurrency is not None:
            lines.append(line)
    return found


def _inferencex_client(options: list[str], concurrency: int, shape: tuple[int, int]) -> None:
    """InferenceX's benchmark client in AIPerf's options: lengths drawn within 80-100% of the
    shape (SGLang's window), the end-of-sequence token ignored, ten prompts a user."""
    assert options[:2] == ["aiperf", "profile"]
    for option in (
        f"--isl={shape[0]}", f"--osl={shape[1]}", "--random-range-ratio=0.8",
        "--random-corpus-style=sglang", "--extra-inputs=ignore_eos:true",
        f"--concurrency={concurrency}", f"--request-count={10 * concurrency}",
    ):  # fmt: skip
        assert option in options, (option, options)
    assert not [o for o in options if o.startswith(("--isl-stddev", "--extra-inputs=min_tokens"))]


def test_a_dry_run_shows_inferencex_client_and_sweep_and_sends_nothing(
    fresh_db, tokenizer, started
):
    """`--match H200 --model deepseek-r1 --speed 50` on the shipped catalogue: H200's figure
    there is one of an InferenceX curve (its source reads "SemiAnalysis InferenceX ..."): the
    plan is InferenceX's client over that curve's own sweep."""
    con = connect(fresh_db, read_only=True)
    try:
        baseline = matched_point(con, "H200", "deepseek-r1", "50")
    finally:
        con.close()
    assert "with InferenceX's client" in baseline.named and baseline.concurrencies
    shape = (baseline.input_tokens, baseline.output_tokens)
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "Trainium2", "--chips", "16",
                         "--match", "H200", "--speed", "50", "--dry-run",
                         model="deepseek-r1")  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert double.requests == [] and double.authorizations == []  # not even asked its models
    assert started == []  # nor AIPerf started
    _nothing_recorded(fresh_db)
    said = " ".join(result.stdout.split())
    assert "nothing sent to it, nothing recorded" in said
    assert f"point: ISL/OSL {shape[0]}/{shape[1]} of H200's inferencex-" in said
    low = (int(0.8 * shape[0]), int(0.8 * shape[1]))
    assert (
        f"client: InferenceX's benchmark client: input lengths drawn from {low[0]}-{shape[0]} "
        f"tokens and output lengths from {low[1]}-{shape[1]} (80-100% of the shape), the "
        "end-of-sequence token ignored"
    ) in said
    sweep = ", ".join(map(str, baseline.concurrencies))
    counts = ", ".join(f"{10 * c:,}" for c in baseline.concurrencies)
    assert f"sweep: concurrency {sweep} (the curve's sweep), requests {counts} (10 prompts" in said
    plan = _plan(result.stdout)
    assert list(plan) == list(baseline.concurrencies)
    for concurrency, options in plan.items():
        _inferencex_client(options, concurrency, shape)
        assert "--model=SERVED_MODEL" in options and f"--url={double.url}" in options


def test_an_inferencex_plan_of_one_stream_alone_is_refused(fresh_db, tokenizer, answered):
    asked = answered(_fast_report())
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "Trainium2", "--chips", "16",
                         "--match", "H200", "--speed", "50", "--concurrency", "1",
                         model="deepseek-r1")  # fmt: skip
    said = _refused(result, "--concurrency 1: a single stream answers no load question")
    con = connect(fresh_db, read_only=True)
    try:
        sweep = matched_point(con, "H200", "deepseek-r1", "50").concurrencies
    finally:
        con.close()
    assert f"give its sweep, --concurrency {','.join(map(str, sweep))}," in said
    assert asked == [] and double.requests == []
    _nothing_recorded(fresh_db)


def test_an_inferencex_baseline_is_measured_with_its_client_and_compared_on_the_curve(
    fresh_db, tokenizer
):
    """AIPerf for real, as InferenceX's client, against the test double of the user's server:
    `measure --match H200 --speed 50` plans the curve's sweep (2 and 4) with ten prompts a user
    (20 and 40 requests), lengths drawn within 80-100% of 64/16 and the end-of-sequence token
    ignored; the curve is recorded, and compare reads Trainium2 from it at 50 tokens/s per user
    against the H200 figure it was matched to."""
    h200 = _with_h200_curve(fresh_db)
    with serving(INFERENCEX_RATE) as double:
        planned = measure(fresh_db, double.url, tokenizer, "--chip", "Trainium2", "--chips",
                          str(TRN2_CHIPS), "--match", "H200", "--speed", "50", "--dry-run",
                          model="deepseek-r1")  # fmt: skip
        # the double streams faster than 671B weights read from 4 Trainium2 chips allow
        result = measure(fresh_db, double.url, tokenizer, "--chip", "Trainium2", "--chips",
                         str(TRN2_CHIPS), "--match", "H200", "--speed", "50",
                         "--allow-above-roofline", model="deepseek-r1")  # fmt: skip
    assert planned.returncode == 0, planned.stderr
    plan = _plan(planned.stdout)
    assert list(plan) == list(H200_SWEEP)
    for concurrency, options in plan.items():
        _inferencex_client(options, concurrency, H200_SHAPE)
    assert result.returncode == 0, result.stderr
    said = " ".join(result.stderr.split())
    assert f"{h200} (independent" in said and "with InferenceX's client" in said
    assert "concurrency 2, 4 (the curve's sweep), requests 20, 40 (10 prompts" in said
    # what AIPerf sent the double: InferenceX's client, ten prompts a user at each concurrency
    isl, osl = H200_SHAPE
    load = _load(double)
    assert len(load) == 10 * sum(H200_SWEEP)
    assert all(r["ignore_eos"] is True for r in load)
    asked = [r["max_completion_tokens"] for r in load]
    assert min(asked) >= int(0.8 * osl) and max(asked) <= osl and len(set(asked)) > 1
    rows = sorted(_user_figures(fresh_db, "deepseek-r1"), key=lambda r: r["concurrency"])
    assert [r["concurrency"] for r in rows] == list(H200_SWEEP)
    for row in rows:
        assert (row["input_tokens"], row["output_tokens"]) == H200_SHAPE
        assert f"Point matched to H200's {h200}" in row["notes"]
        assert "with InferenceX's client" in row["notes"]
        assert row["tokens_per_second_per_user"] > 50
        # AIPerf's own report of the point: each prompt drawn within 80-100% of the shape
        ref = row["source_url"].removeprefix("archive:")
        report = json.loads(gzip.decompress((db_archive(fresh_db) / ref).read_bytes()))
        drawn = report["input_sequence_length"]
        assert int(0.8 * isl) <= drawn["min"] <= drawn["max"] <= isl
        assert report["request_count"]["avg"] == 10 * row["concurrency"]
    lines = _compared_with(
        fresh_db, {r["throughput_id"] for r in rows}, "H200", "deepseek-r1", "50"
    )
    assert {line["b_throughput_id"] for line in lines} == {h200}


def db_archive(db: Path) -> Path:
    return db.parent / "data" / "archive"
