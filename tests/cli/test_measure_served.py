"""`chipcost measure` checks what the endpoint serves against the model it records
(chipcost.pipeline.served): the name it lists (GET /v1/models, or --served-model) and the name
its answers carry. The endpoint is tests.openai_server serving a given name; AIPerf's run is
answered from a recorded report (run-fast's, whatever is asked), so what is checked is the
refusal before the load and the name kept with the figure."""

from __future__ import annotations

from pathlib import Path

import pytest

from tests.cli.test_measure import (
    _fast_report,
    _load,
    _nothing_recorded,
    _refused,
    _shipped,
    _user_figures,
    make_tokenizer,
    measure,
)
from tests.openai_server import serving


@pytest.fixture(scope="module")
def tokenizer(tmp_path_factory) -> Path:
    return make_tokenizer(tmp_path_factory.mktemp("tokenizer"))


@pytest.fixture
def fresh_db(tmp_path) -> Path:
    return _shipped(tmp_path / "w.duckdb")


@pytest.fixture
def answered(monkeypatch):
    """AIPerf's run answered with run-fast's report whatever is asked; what was asked."""
    from chipcost.pipeline import load_generator
    from chipcost.pipeline import measure as measuring

    asked: list[dict] = []

    def run_aiperf(**given) -> load_generator.Run:
        asked.append(given)
        return load_generator.Run(_fast_report(), None, ["aiperf", "profile"], "")

    monkeypatch.setattr(measuring, "run_aiperf", run_aiperf)
    return asked


POINT = ("--chip", "H100-SXM", "--chips", "8", "--input-tokens", "32", "--output-tokens", "20",
         "--concurrency", "1", "--requests", "1", "--allow-above-roofline")  # fmt: skip


@pytest.mark.parametrize(
    ("listed", "said"),
    [
        ("llama-3-8b", "'llama-3-8b', not llama-3-70b"),
        ("meta-llama/Meta-Llama-3-8B-Instruct", "(llama-3-8b), not llama-3-70b"),
        ("Llama-3.1-8B-Instruct-FP8", "(llama-3-8b), not llama-3-70b"),
        ("qwen3-32b", "'qwen3-32b', not llama-3-70b"),
        ("my-llama-8b", "(8B by its name), not llama-3-70b"),  # an alias stating its size
        # names chipcost does not know stating the same size: a size alone is no Llama 3 70B
        ("tiiuae/falcon-70b", "(70B by its name, no llama model), not llama-3-70b"),
        ("prod-70B", "(70B by its name, no llama model), not llama-3-70b"),
        ("Qwen-70B-Chat", "(a qwen model by its name), not llama-3-70b"),
        ("gemma-prod", "(a gemma model by its name), not llama-3-70b"),  # no size, a family
    ],
)
def test_an_endpoint_listing_another_model_is_refused_before_any_load(
    fresh_db, tokenizer, answered, listed, said
):
    asked = answered
    with serving(200.0, model=listed) as double:
        result = measure(fresh_db, double.url, tokenizer, *POINT)
    line = _refused(result, "--model llama-3-70b", f"{double.url} lists only", said)
    assert "nothing measured" in line and result.returncode == 2
    assert double.requests == [] and asked == []  # not a request, not a run of AIPerf
    _nothing_recorded(fresh_db)


def test_a_served_model_named_for_another_model_is_refused(fresh_db, tokenizer, answered):
    asked = answered
    with serving(200.0, model="llama-3-8b", models=["llama-3-70b", "llama-3-8b"]) as double:
        result = measure(fresh_db, double.url, tokenizer, *POINT, "--served-model", "llama-3-8b")
    _refused(result, "--served-model) for 'llama-3-8b', not llama-3-70b")
    assert double.requests == [] and asked == []
    _nothing_recorded(fresh_db)


@pytest.mark.parametrize("answers_as", ["llama-3-8b", "meta-llama/Llama-3.1-8B-Instruct"])
def test_answers_naming_another_model_are_refused_before_the_load(
    fresh_db, tokenizer, answered, answers_as
):
    """A proxy listing the model asked for and routing to another: its answers say so."""
    asked = answered
    with serving(200.0, model="llama-3-70b", answers_as=answers_as) as double:
        result = measure(fresh_db, double.url, tokenizer, *POINT)
    _refused(result, "answers a request for 'llama-3-70b' as", answers_as, "not llama-3-70b")
    assert len(double.requests) == 1 and _load(double) == [] and asked == []
    _nothing_recorded(fresh_db)


@pytest.mark.parametrize(
    ("listed", "answers_as", "kept"),
    [
        # the Hugging Face id of a model standing for llama-3-70b (model_equivalents.csv)
        ("meta-llama/Llama-3.3-70B-Instruct", None,
         "Served as 'meta-llama/Llama-3.3-70B-Instruct'."),
        # an alias naming no model: nothing to refuse, the name kept
        ("prod", None, "Served as 'prod'."),
        # a fine-tune chipcost does not know, of the model's family and size
        ("NousResearch/Hermes-3-Llama-3.1-70B", None,
         "Served as 'NousResearch/Hermes-3-Llama-3.1-70B'."),
        ("llama-3-70b", "llama-3-70b-instruct-0528",
         "Served as 'llama-3-70b', its answers naming 'llama-3-70b-instruct-0528'."),
    ],
)  # fmt: skip
def test_the_served_name_is_kept_with_the_figure(
    fresh_db, tokenizer, answered, listed, answers_as, kept
):
    with serving(200.0, model=listed, answers_as=answers_as) as double:
        result = measure(fresh_db, double.url, tokenizer, *POINT)
    assert result.returncode == 0, result.stderr
    [figure] = _user_figures(fresh_db)
    assert figure["model"] == "llama-3-70b" and kept in figure["notes"]
    assert [r["max_tokens"] for r in double.requests] == [1]  # one token asked, no load
