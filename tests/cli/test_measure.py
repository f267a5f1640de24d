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

import gzip
import json
from pathlib import Path

import pytest

from chipcost.pipeline.measure import matched_point
from chipcost.warehouse.db import connect
from tests.cli.test_cost_cli import _warehouse, chipcost
from tests.openai_server import serving

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
            return load_generator.Run(summary, records, said["command"], said["last_line"])

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
    """The values of _COMPARED options in an AIPerf command line."""
    return {arg: command[n + 1] for n, arg in enumerate(command) if arg in _COMPARED}


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> Path:
    return _warehouse(tmp_path_factory.mktemp("measure") / "w.duckdb")


def _env(data: Path) -> dict[str, str]:
    return {"CHIPCOST_DATA_DIR": str(data), "COLUMNS": "200"}


def measure(db: Path, url: str, tokenizer: Path, *args: str) -> object:
    return chipcost(
        "measure", "--endpoint", url, "--model", "llama-3-70b", "--tokenizer", str(tokenizer),
        "--precision", "fp8", "--software", "test double (tests.openai_server)",
        "--db", str(db), "--request-timeout", "20", "--max-seconds", "300", *args,
        env=_env(db.parent / "data"),
    )  # fmt: skip


def _user_figures(db: Path) -> list[dict]:
    result = chipcost(
        "throughput", "list", "--origin", "user", "--model", "llama-3-70b", "--format", "json",
        "--db", str(db),
    )  # fmt: skip
    return json.loads(result.stdout) if result.returncode == 0 else []


def test_measured_at_the_matched_point_and_compare_answers_from_it(db, tokenizer):
    """Trainium2 (4 chips of a trn2.48xlarge) measured at H100-SXM's point at 25 tokens/s per
    user, two concurrencies, as few requests as each takes (one, two). One test, not four: under
    pytest-xdist each test of a module may run in a worker of its own, and this measurement
    takes a minute or two."""
    with serving(RATE) as double:
        result = measure(
            db, double.url, tokenizer, "--instance", "trn2.48xlarge", "--chips", "4",
            "--match", "H100-SXM", "--speed", "25", "--concurrency", "1,2", "--requests", "1",
        )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert "Traceback" not in result.stderr
    rows = sorted(_user_figures(db), key=lambda r: r["concurrency"])
    _recorded_at_the_known_rate(rows, double.requests)
    _at_the_matched_point(db, rows)
    _archived(db, rows)
    _compared(db, {r["throughput_id"] for r in rows})


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
        shape = matched_point(con, "H100-SXM", "llama-3-70b", "25")
        published = con.execute(
            "SELECT count(*) FROM throughput WHERE chip = 'H100-SXM' AND model = 'llama-3-70b' "
            "AND input_tokens = ? AND output_tokens = ? AND tokens_per_second_per_user >= 25",
            [shape[0], shape[1]],
        ).fetchone()
    finally:
        con.close()
    assert published[0] >= 1  # a published H100-SXM figure at that speed has that shape
    for row in rows:
        assert (row["input_tokens"], row["output_tokens"]) == shape[:2]
        assert "H100-SXM" in row["notes"]


def _archived(db: Path, rows: list[dict]) -> None:
    for row in rows:
        ref = row["source_url"].removeprefix("archive:")
        report = json.loads(gzip.decompress((db.parent / "data" / "archive" / ref).read_bytes()))
        assert report["aiperf_version"] == "0.13.0"
        assert report["output_token_throughput"]["avg"] == pytest.approx(
            row["tokens_per_second_per_chip"] * TRN2_CHIPS
        )


def _compared(db: Path, ids: set[str]) -> None:
    result = chipcost(
        "compare", "Trainium2", "H100-SXM", "--model", "llama-3-70b", "--workload", "inference",
        "--speed", "25", "--format", "json", "--db", str(db),
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    lines = json.loads(result.stdout)
    assert lines and all(line["a_throughput_id"] in ids for line in lines)
    assert {line["a_throughput_figure_kind"] for line in lines} == {"measured"}
    # both measured at one point (shape, speed, FP8, 4 chips against 2): a verdict, and tens
    # of tokens/s per chip against H100-SXM's hundreds is dearer
    assert {line["verdict"] for line in lines} == {"dearer"}, [x["in_words"] for x in lines]


def _refused(result, *words: str) -> str:
    assert result.returncode != 0
    assert "Traceback" not in result.stderr + result.stdout
    # A failure is "error: ..." (exit 1), a value an option does not take "chipcost measure:
    # error: ..." (exit 2, as any usage error).
    lines = [line for line in result.stderr.splitlines()
             if line.startswith(("error:", "chipcost measure: error:"))]  # fmt: skip
    assert len(lines) == 1, result.stderr
    others = [line for line in result.stderr.splitlines() if line.strip() and line not in lines]
    assert all(line.startswith("measuring ") for line in others), result.stderr
    for word in words:
        assert word in lines[0], lines[0]
    return lines[0]


def _nothing_recorded(db: Path) -> None:
    assert _user_figures(db) == []


def _warehouse_now(db: Path) -> dict:
    return {
        "figures": _user_figures(db),
        "archived": (db.parent / "data" / "archive" / "measurements").exists(),
    }


@pytest.fixture
def fresh_db(tmp_path) -> Path:
    return _warehouse(tmp_path / "w.duckdb")


def test_an_endpoint_that_refuses_is_named(fresh_db, tokenizer):
    with serving(RATE) as double:
        url = double.url  # closed at the block's end: nothing listens there after
    result = measure(fresh_db, url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                     "--input-tokens", "64", "--output-tokens", "16")  # fmt: skip
    _refused(result, url, "refused")
    _nothing_recorded(fresh_db)


@pytest.mark.parametrize(
    ("mode", "said"),
    [
        ("stall", "no answer to GET /v1/models within 1 s"),  # before any load
        ("stall-answers", "no whole answer within --request-timeout"),  # AIPerf's requests
    ],
)
def test_an_endpoint_that_times_out_is_named(fresh_db, tokenizer, mode, said):
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


def test_a_model_the_server_does_not_serve_is_named(fresh_db, tokenizer):
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--input-tokens", "64", "--output-tokens", "16",
                         "--served-model", "llama-4")  # fmt: skip
    _refused(result, "llama-4", "does not serve it", "test-model")
    assert result.returncode == 2
    _nothing_recorded(fresh_db)


def test_a_shape_that_cannot_be_matched_is_named(fresh_db, tokenizer):
    # H100-SXM's figure at the default speed is MLPerf Server's, which states no token counts
    with serving(RATE) as double:
        result = measure(fresh_db, double.url, tokenizer, "--chip", "H100-SXM", "--chips", "8",
                         "--match", "H100-SXM")  # fmt: skip
    _refused(result, "--match H100-SXM", "cannot be matched")
    assert result.returncode == 2 and double.requests == []
    _nothing_recorded(fresh_db)


@pytest.mark.parametrize(
    ("mode", "words"),
    [("no-usage", ("returned no usage",)), ("malformed", ("malformed stream",))],
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
    [figure] = _user_figures(fresh_db)
    assert figure["tokens_per_second_per_user"] > 24


def test_without_aiperf_it_says_what_to_install(fresh_db, tokenizer, monkeypatch):
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
    assert double.requests == []  # asked what it serves, never loaded
