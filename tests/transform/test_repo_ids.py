"""Hugging Face ids as servers and model cards write them, read as the model chipcost keeps
figures of: the organisation, tuning and storage suffixes, a release tag and Llama 4's mixture
shape cut, and only where what is left is a known model."""

from __future__ import annotations

import pytest

from chipcost.transform.references import repo_release


@pytest.mark.parametrize(
    ("repo", "model", "release"),
    [
        # on 0cae6cf each of these was no model: a release tag or a shape was not cut
        ("Qwen/Qwen3-235B-A22B-Instruct-2507", "qwen3-235b-a22b", "2507"),
        ("Qwen/Qwen3-235B-A22B-Instruct-2507-FP8", "qwen3-235b-a22b", "2507"),
        ("Qwen/Qwen3-30B-A3B-Thinking-2507", "qwen3-30b-a3b", "2507"),
        ("deepseek-ai/DeepSeek-R1-0528", "deepseek-r1", "0528"),
        ("mistralai/Mixtral-8x7B-Instruct-v0.1", "mixtral-8x7b", "v0.1"),
        ("meta-llama/Llama-4-Scout-17B-16E-Instruct", "llama-4-scout", None),
        ("meta-llama/Llama-4-Maverick-17B-128E-Instruct-FP8", "llama-4-maverick", None),
        ("meta-llama/Llama-2-70b-hf", "llama-2-70b", None),
        # as before
        ("meta-llama/Llama-3.3-70B-Instruct", "llama-3.3-70b", None),
        ("amd/Llama-3.1-405B-Instruct-FP8-KV", "llama-3.1-405b", None),
        ("openai/gpt-oss-120b", "gpt-oss-120b", None),
        # not an id, or an id of a model chipcost does not know: nothing is guessed
        ("llama-3-70b", None, None),
        ("Qwen/Qwen2.5-72B-Instruct", None, None),
        ("mistralai/Mistral-7B-Instruct-v0.3", None, None),
    ],
)
def test_a_repo_id_is_read_as_its_model_and_release(repo, model, release):
    assert repo_release(repo) == (model, release)


def test_cost_says_the_release_it_read(tmp_path):
    """The note of a read answered through an id says the release it cut."""
    from chipcost.pipeline.seed import open_warehouse
    from chipcost.reads.cost_asked import resolve_model
    from tests import warehouses

    con = open_warehouse(warehouses.new(tmp_path / "w.duckdb"))
    try:
        model, note = resolve_model(con, "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8")
    finally:
        con.close()
    assert model == "qwen3-235b-a22b"
    assert note == (
        "Qwen/Qwen3-235B-A22B-Instruct-2507-FP8 is a Hugging Face id of qwen3-235b-a22b (FP8 not "
        "asked of the figures: --precision fp8 asks it; release 2507: new weights of its layers, "
        "read with its figures)"
    )


def test_an_id_of_a_model_you_sized_is_read_once_you_have(tmp_path):
    """An id of a model chipcost has no figure of is refused naming the model as a figure
    would record it (on 0cae6cf: 'qwen-qwen2.5-72b-instruct', which `throughput add` would have
    kept as a model of its own); once its size is recorded, the id is read as it."""
    from chipcost.core.errors import UsageError
    from chipcost.pipeline.seed import add_user_model, open_warehouse
    from chipcost.reads.cost_asked import resolve_model
    from tests import warehouses

    con = open_warehouse(warehouses.new(tmp_path / "w.duckdb"))
    try:
        with pytest.raises(UsageError) as refused:
            resolve_model(con, "Qwen/Qwen2.5-72B-Instruct")
        said = str(refused.value)
        assert said.startswith(
            "no throughput for model 'qwen2.5-72b' (the Hugging Face id "
            "'Qwen/Qwen2.5-72B-Instruct')"
        ), said
        assert "`chipcost throughput model qwen2.5-72b --parameters 72e9`" in said
        add_user_model(con, "qwen2.5-72b", 72.7e9, "Qwen2.5-72B model card")
        assert resolve_model(con, "Qwen/Qwen2.5-72B-Instruct") == (
            "qwen2.5-72b",
            "Qwen/Qwen2.5-72B-Instruct is a Hugging Face id of qwen2.5-72b",
        )
    finally:
        con.close()
