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
    _stored,
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
        # another generation of the family: model_equivalents.csv lets a published Llama 2 70B
        # figure stand for Llama 3 70B, but a measurement of it is Llama 2's
        ("llama-2-70b", "'llama-2-70b', not llama-3-70b"),
        ("meta-llama/Llama-2-70b-chat-hf", "(llama-2-70b), not llama-3-70b"),
        ("llama2-70b-prod", "(llama 2 by its name), not llama-3-70b"),
        ("Llama 2 70B", "(llama-2-70b), not llama-3-70b"),
        # a count in another unit is read as a number: 70M is no 70B
        ("llama-3-70m", "(70M by its name), not llama-3-70b"),
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


@pytest.mark.parametrize(
    ("listed", "sizes"),
    [
        ("llama-3-70b-distilled-to-8b", "70B and 8B"),
        ("Llama-3-8B-Instruct-70b-tokens", "8B and 70B"),  # a count of tokens looks like one
    ],
)
def test_a_name_stating_two_sizes_is_refused_as_ambiguous(
    fresh_db, tokenizer, answered, listed, sizes
):
    asked = answered
    with serving(200.0, model=listed) as double:
        result = measure(fresh_db, double.url, tokenizer, *POINT)
    line = _refused(result, f"lists only '{listed}' ({sizes} by its name: two sizes)")
    assert "Give --served-model a name it serves llama-3-70b by that states one size" in line
    assert "--model llama" not in line.partition("nothing measured")[2]  # no model to give
    assert result.returncode == 2 and double.requests == [] and asked == []
    _nothing_recorded(fresh_db)


def test_the_model_a_refusal_names_is_measured_as_it_says(fresh_db, tokenizer, answered):
    """`--model llama-2-70b`, as the refusal of a Llama 2 endpoint advises: measured, and
    recorded as given, a Llama 2 figure counting for Llama 3 70B (model_equivalents.csv)."""
    with serving(200.0, model="meta-llama/Llama-2-70b-chat-hf") as double:
        refused = measure(fresh_db, double.url, tokenizer, *POINT)
        _refused(refused, "Give --model llama-2-70b to measure it")
        result = measure(fresh_db, double.url, tokenizer, *POINT, model="llama-2-70b")
    assert result.returncode == 0, result.stderr
    [figure] = _user_figures(fresh_db, "llama-2-70b")
    assert figure["model"] == "llama-3-70b" and figure["published_model"] == "llama-2-70b"
    assert "Served as 'meta-llama/Llama-2-70b-chat-hf'." in figure["notes"]


def test_a_served_model_named_for_another_model_is_refused(fresh_db, tokenizer, answered):
    asked = answered
    with serving(200.0, model="llama-3-8b", models=["llama-3-70b", "llama-3-8b"]) as double:
        result = measure(fresh_db, double.url, tokenizer, *POINT, "--served-model", "llama-3-8b")
    _refused(result, "--served-model) for 'llama-3-8b', not llama-3-70b")
    assert double.requests == [] and asked == []
    _nothing_recorded(fresh_db)


@pytest.mark.parametrize(
    "answers_as",
    ["llama-3-8b", "meta-llama/Llama-3.1-8B-Instruct", "llama-2-70b", "llama-3-8b-to-70b"],
)
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
        # a point release of the generation, quantised (a precision, which the figure names)
        ("Llama-3.1-70B-Instruct-AWQ-INT4", "meta-llama/Llama-3.3-70B-Instruct",
         "Served as 'Llama-3.1-70B-Instruct-AWQ-INT4', its answers naming "
         "'meta-llama/Llama-3.3-70B-Instruct'."),
        # a count in another unit is read as a number: 0.07T is 70B
        ("llama-3-0.07t", None, "Served as 'llama-3-0.07t'."),
    ],
)  # fmt: skip
def test_the_served_name_is_kept_with_the_figure(
    fresh_db, tokenizer, answered, listed, answers_as, kept
):
    with serving(200.0, model=listed, answers_as=answers_as) as double:
        result = measure(fresh_db, double.url, tokenizer, *POINT)
    assert result.returncode == 0, result.stderr
    [figure] = _stored(fresh_db)
    assert figure["model"] == "llama-3-70b" and kept in figure["notes"]
    assert [r["max_tokens"] for r in double.requests] == [1]  # one token asked, no load


@pytest.mark.parametrize(
    "served",
    [
        "llama-3-8-b", "llama-3-8bn", "llama-3-\uff18b", "llama-3-8 B", "llama-3-8billion",
        "llama3-8binstruct", "llama-3-instruct8b", "llama-3-8\uff42", "llama-\uff12-70b",
    ],
)  # fmt: skip
def test_a_size_or_generation_however_written_is_read(served):
    """On 9165155e each of these was taken for Llama 3 70B (the size pattern read only '8b'
    between separators, in ASCII)."""
    from chipcost.pipeline.served import other_model

    assert other_model(served, "llama-3-70b") is not None


@pytest.mark.parametrize(
    "served",
    [
        "Meta-Llama-3.1-70B", "llama3.3:70b", "llama-3-70b-instruct-fp8",
        "Llama-3-70B-Instruct-GPTQ-4bit", "llama-3-70bn", "Llama 3 70 B", "llama-3-70b-128k",
        "meta-llama/Meta-Llama-3-70B-Instruct", "Llama-3.1-70B-Instruct-AWQ-INT4",
    ],
)  # fmt: skip
def test_the_model_however_written_is_taken(served):
    from chipcost.pipeline.served import other_model

    assert other_model(served, "llama-3-70b") is None
