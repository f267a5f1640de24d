"""A model asked of `cost` and `compare` as Hugging Face writes it without its organisation
(Llama-3.3-70B-Instruct): read as the id with its organisation is, the tuning, storage format,
release tag and Meta's prefix cut, with a note saying how it was read; a name refused says it is
longer than any known name only when it is longer than every name it could have matched. Real
DuckDB files; the command in process on the bundled sample week."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from chipcost.core.errors import UsageError
from chipcost.pipeline.seed import add_user_model, open_warehouse
from chipcost.reads.cost_asked import resolve_model
from tests import warehouses
from tests.cli_runner import chipcost

RULE = (
    "answered with the figures of llama-3-70b, the model it stands for "
    "(core/data/model_equivalents.csv says why)"
)


@pytest.fixture(scope="module")
def con(tmp_path_factory):
    con = open_warehouse(warehouses.new(tmp_path_factory.mktemp("models") / "w.duckdb"))
    yield con
    con.close()


@pytest.mark.parametrize(
    ("name", "model", "note"),
    [
        # on b4f20479 each was refused as a model of its own, 'longer than any known name'
        (
            "Llama-3.3-70B-Instruct",
            "llama-3-70b",
            f"Llama-3.3-70B-Instruct is llama-3.3-70b (its -instruct cut: the same layers), {RULE}",
        ),
        (
            "llama-3.3-70b-instruct",
            "llama-3-70b",
            f"llama-3.3-70b-instruct is llama-3.3-70b (its -instruct cut: the same layers), {RULE}",
        ),
        (
            "llama-3-70b-instruct",
            "llama-3-70b",
            "llama-3-70b-instruct is llama-3-70b (its -instruct cut: the same layers)",
        ),
        (
            "Meta-Llama-3-70B-Instruct",
            "llama-3-70b",
            "Meta-Llama-3-70B-Instruct is llama-3-70b (its meta- and -instruct cut: the same "
            "layers)",
        ),
        (
            "Qwen3-235B-A22B-Instruct-2507-FP8",
            "qwen3-235b-a22b",
            "Qwen3-235B-A22B-Instruct-2507-FP8 is qwen3-235b-a22b (its -instruct and -fp8 cut: "
            "the same layers; FP8 not asked of the figures: --precision fp8 asks it; release "
            "2507: new weights of its layers, read with its figures)",
        ),
        # on b4f20479 'deepseek-v3' lost its version to the release cut: 'no model deepseek'
        (
            "DeepSeek-V3-0324",
            "deepseek-v3",
            "DeepSeek-V3-0324 is deepseek-v3 (release 0324: new weights of its layers, read with "
            "its figures)",
        ),
        # as before: a model's own name, an equivalent's, an id with its organisation
        ("llama-3-70b", "llama-3-70b", None),
        ("DeepSeek-V3", "deepseek-v3", None),
        ("llama-3.3-70b", "llama-3-70b", f"llama-3.3-70b is {RULE}"),
        (
            "meta-llama/Llama-3.3-70B-Instruct",
            "llama-3-70b",
            f"meta-llama/Llama-3.3-70B-Instruct is a Hugging Face id of llama-3.3-70b, {RULE}",
        ),
        (
            "deepseek-ai/DeepSeek-V3-0324",
            "deepseek-v3",
            "deepseek-ai/DeepSeek-V3-0324 is a Hugging Face id of deepseek-v3 (release 0324: new "
            "weights of its layers, read with its figures)",
        ),
    ],
)
def test_a_name_without_its_organisation_is_read_as_the_id(con, name, model, note):
    assert resolve_model(con, name) == (model, note)


def test_a_name_is_long_only_against_every_name_it_could_match(con):
    """deepseek-r1-distill-llama-70b (29 characters) stands for llama-3-70b: a slip of it is
    named, where on b4f20479 it was '29 characters, longer than any known name'."""
    with pytest.raises(UsageError) as slip:
        resolve_model(con, "deepseek-r1-distill-llama-70x")
    said = str(slip.value)
    assert "(did you mean deepseek-r1-distill-llama-70b?)" in said, said
    assert "longer than any known name" not in said
    with pytest.raises(UsageError) as long:
        resolve_model(con, "x" * 33)  # 29 + 3 characters and one more
    assert "(33 characters, longer than any known name)" in str(long.value)


def test_a_name_of_a_model_you_sized_is_read_as_its_id_is(tmp_path):
    """A name without its organisation of a model chipcost knows nothing of is refused as
    given ('acme-chat' may be a model of its own); once the model its id names is recorded
    (`throughput model qwen2.5-72b`, as the id's refusal says), the name is read as it."""
    con = open_warehouse(warehouses.new(tmp_path / "w.duckdb"))
    try:
        with pytest.raises(UsageError) as refused:
            resolve_model(con, "Qwen2.5-72B-Instruct")
        assert str(refused.value).startswith("no throughput for model 'qwen2.5-72b-instruct':")
        add_user_model(con, "qwen2.5-72b", 72.7e9, "Qwen2.5-72B model card")
        assert resolve_model(con, "Qwen2.5-72B-Instruct") == (
            "qwen2.5-72b",
            "Qwen2.5-72B-Instruct is qwen2.5-72b (its -instruct cut: the same layers)",
        )
    finally:
        con.close()


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    return warehouses.sample(tmp_path_factory.mktemp("sample") / "w.duckdb")


def test_cost_answers_the_name_as_the_id_with_its_organisation(sample):
    """The same rows, at the same named speed (Llama 3.1 405B's MLPerf Server bound, not Llama
    2 70B's), and the note says how the name was read."""
    asked = ("--workload", "inference", "--speed", "server", "--limit", "5", "--db", str(sample))
    plain = chipcost("cost", "--model", "Llama-3.1-405B-Instruct", *asked, "--format", "json")
    repo = chipcost("cost", "--model", "meta-llama/Llama-3.1-405B-Instruct", *asked, "--format",
                    "json")  # fmt: skip
    assert plain.returncode == 0, plain.stderr
    assert json.loads(plain.stdout) == json.loads(repo.stdout)
    assert "Llama-3.1-405B-Instruct is llama-3.1-405b (its -instruct cut: the same layers)" in (
        plain.stderr
    )
    header = chipcost("cost", "--model", "Llama-3.1-405B-Instruct", *asked).stdout.splitlines()[0]
    assert "MLPerf Server's 175 ms per output token for Llama 3.1 405B" in header, header


def test_a_precision_in_a_name_is_said_not_asked_of_the_figures(con):
    """llama-3-70b-fp8 was answered at every precision's figures (FP4 MLPerf ones among them)
    with only 'its -fp8 cut: the same layers': the precision a name stores its weights in is
    not the figures' unless --precision asks it, and the note says so, with or without the
    organisation."""
    assert resolve_model(con, "llama-3-70b-fp8") == (
        "llama-3-70b",
        "llama-3-70b-fp8 is llama-3-70b (its -fp8 cut: the same layers; FP8 not asked of the "
        "figures: --precision fp8 asks it)",
    )
    _, note = resolve_model(con, "meta-llama/Llama-3.3-70B-Instruct-FP8")
    assert "(FP8 not asked of the figures: --precision fp8 asks it)" in str(note)


def test_a_name_longer_than_any_hugging_face_id_is_not_cut():
    """Cut a suffix a pass, a name of 120,000 characters took 43 s to refuse (docs/
    operations.md: refused at once); past Hugging Face's bound on a name it is no id."""
    from chipcost.transform.references import LONGEST_ID, name_cut

    long = "llama" + "-it" * 40_000
    assert name_cut(long) == (long, None, ())
    assert name_cut("llama-3-70b" + "-it" * 20)[0] == "llama-3-70b"  # an id's length: cut
    assert len("llama-3-70b" + "-it" * 20) <= LONGEST_ID
