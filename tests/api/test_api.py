"""The Python API: polars frames from the warehouse, read-only, light to import."""

from __future__ import annotations

import subprocess
import sys
from datetime import date

import polars as pl
import pytest

import chipcost
from chipcost.core.errors import ChipcostError, UsageError, WarehouseError
from tests.helpers import loaded_warehouse, record


def test_import_stays_light():
    code = (
        "import sys, chipcost\n"
        "heavy = [m for m in ('polars', 'duckdb', 'prefect') if m in sys.modules]\n"
        "print(heavy, chipcost.__version__)"
    )
    result = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, timeout=60, check=True
    )
    assert result.stdout.startswith("[] ")
    # Completion in a notebook lists the API before its first use.
    assert {"prices", "cost", "compare", "history", "sources"} <= set(dir(chipcost))


def test_prices(golden):
    frame = chipcost.prices(chip="H100", max_price=10.0, db=golden)
    assert isinstance(frame, pl.DataFrame)
    assert set(frame["chip"]) == {"H100-SXM"}
    assert frame["price_per_chip_hour"].max() <= 10.0
    assert {"source_as_of", "sample", "upfront", "memory_gb"} <= set(frame.columns)
    spot = chipcost.prices("H100-SXM", spot=True, db=golden)
    assert set(spot["pricing_model"]) == {"spot"}


def test_default_warehouse_from_the_environment(golden, monkeypatch):
    monkeypatch.setenv("CHIPCOST_DB", str(golden))
    assert chipcost.prices(chip="Trainium").height == 1


def test_history(golden):
    frame = chipcost.history("H100-SXM", pricing_model="on_demand", since="2026-11-05", db=golden)
    assert frame["day"].to_list() == [date(2026, 11, d) for d in (5, 6, 7)]
    assert frame["price_per_chip_hour"].to_list() == [9.0, 9.25, 9.25]


def test_cost_and_sources(golden):
    ranking = chipcost.cost("llama-3-70b", "inference", chip="H100-SXM", tokens="1B", db=golden)
    assert ranking["rank"].to_list() == list(range(1, ranking.height + 1))
    assert {"usd_per_million_tokens", "cost_for_tokens", "fits"} <= set(ranking.columns)
    sources = chipcost.sources(db=golden)
    assert "aws-pricing-api" in sources["source"].to_list()


def test_sources_before_the_first_collection_are_the_registered_ones(tmp_path, monkeypatch):
    """No warehouse yet: the sources `chipcost sources` lists, none of them run; a warehouse
    named that does not exist is still an error naming it."""
    from chipcost.extract import registry

    monkeypatch.setenv("CHIPCOST_DATA_DIR", str(tmp_path / "nothing-yet"))
    monkeypatch.delenv("CHIPCOST_DB", raising=False)
    monkeypatch.delenv("CHIPCOST_WAREHOUSE", raising=False)
    listed = chipcost.sources()
    assert set(listed["source"]) == set(registry())
    assert listed["last_success_at"].null_count() == listed.height  # none has run
    with pytest.raises(ChipcostError, match="no warehouse at"):
        chipcost.sources(db=tmp_path / "missing.duckdb")


def test_compare_is_the_commands_answer_as_a_frame(golden, tmp_path):
    trn1 = record(
        instance_type="trn1.32xlarge", chip="Trainium1", chip_count=16.0, price_per_hour=20.0
    )
    mine = loaded_warehouse(tmp_path / "w.duckdb", [record(), trn1])  # both on demand on aws
    frame = chipcost.compare(
        "Trainium1", "H100-SXM", "llama-3-8b", "inference", speed="max", db=mine
    )
    assert frame["pricing_model"].to_list()[0] == "on_demand"
    row = frame.row(0, named=True)
    assert row["verdict"] in ("cheaper", "dearer", "likely cheaper", "likely dearer", "cannot say")
    needed = row["a_price_per_chip_hour"] / (row["b_usd_per_million_tokens"] * 3600 / 1e6)
    assert row["break_even_tokens_per_second_per_chip"] == pytest.approx(needed)
    # at max: a maximum-throughput figure, or the top of a published load sweep (Neuron's
    # Trainium1 batch table at batch 8)
    assert row["b_throughput_operating_point"] == "max-throughput"
    assert row["a_throughput_operating_point"] in ("max-throughput", "latency-bound")
    assert row["a_throughput_id"].startswith("neuron-trn1-llama-3-8b-int8-batch-8")
    with pytest.raises(ChipcostError, match="share no pricing model"):
        chipcost.compare("Trainium1", "H100-SXM", "llama-3-8b", "inference", db=golden)
    with pytest.raises(UsageError, match="not with itself"):
        chipcost.compare("H100-SXM", "H100-SXM", "llama-3-8b", "inference", db=golden)


def test_errors_are_chipcost_errors(golden):
    """A value a keyword does not take is a UsageError (a ChipcostError too), naming the
    keyword and the nearest values, as the command line's exit 2 is."""
    with pytest.raises(UsageError, match="unknown chip 'H10'"):
        chipcost.prices(chip="H10", db=golden)
    with pytest.raises(UsageError, match="give a day as YYYY-MM-DD"):
        chipcost.history(since="last week", db=golden)
    with pytest.raises(UsageError, match=r"since=2026-11-06 is after until=2026-11-04"):
        chipcost.history("H100-SXM", since="2026-11-06", until=date(2026, 11, 4), db=golden)
    with pytest.raises(UsageError, match=r"the history holds no price in region 'us-west-9'"):
        chipcost.history("H100-SXM", region="us-west-9", db=golden)
    with pytest.raises(UsageError, match="unknown pricing model 'ondemand'"):
        chipcost.history("H100-SXM", pricing_model="ondemand", db=golden)
    with pytest.raises(UsageError, match=r"max_price='abc': give a number"):
        chipcost.prices(max_price="abc", db=golden)
    with pytest.raises(UsageError, match=r"min_memory='lots': give a number, e.g. 80 or 80GB"):
        chipcost.prices(min_memory="lots", db=golden)
    with pytest.raises(
        UsageError,
        match=r"region: no current price is in region 'us-east-9' "
        r"\(did you mean us-east-1",
    ):
        chipcost.prices(region="us-east-9", db=golden)
    assert issubclass(UsageError, ChipcostError)
    with pytest.raises(AttributeError):
        chipcost.nothing  # noqa: B018


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda db: chipcost.prices(chip=100, db=db), "chip name 100: give a name or a list"),
        (lambda db: chipcost.prices(region=5, db=db), "region 5: give a name or a list"),
        (lambda db: chipcost.prices(region="", db=db), "the region is empty"),
        (lambda db: chipcost.prices(provider=[" , "], db=db), "the provider is empty"),
        (lambda db: chipcost.prices(chip_count="", db=db), "the chip count is empty"),
        (lambda db: chipcost.prices(spot="no", db=db), r"spot='no': give True"),
        (lambda db: chipcost.prices(chip_count="eight", db=db), r"chip_count=.eight.: give"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", tokens=float("inf"), db=db),
         r"tokens must be a positive number \(got inf\)"),
        (lambda db: chipcost.prices(min_price=3, max_price=1, db=db),
         "min_price=3 is above max_price=1"),
        (lambda db: chipcost.history("H100-SXM", since=20261101, db=db), "since=20261101"),
        (lambda db: chipcost.cost(None, "inference", db=db), "model=None: give a model name"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", chip="", db=db),
         "the chip name is empty"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", baseline=5, db=db),
         "baseline 5: give one chip"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", baseline="H100", db=db),
         r"baseline 'H100' is a family \(H100-SXM, H100-PCIe, H100-NVL\): pick one chip"),
        (lambda db: chipcost.prices(region="x" * 5000, db=db),
         r"no current price is in region 'x{50,60}\.\.\.'"),
        (lambda db: chipcost.prices(chip_count=True, db=db), r"chip_count=True: give the chips"),
        # a number as db= said "no warehouse at 5: run `chipcost collect` first" (8f824434)
        (lambda db: chipcost.prices(db=5), r"db=5: give text or a path"),
        (lambda db: chipcost.history(db=True), r"db=True: give text or a path"),
        # a flag or a switch given what is no bool: a plain ChipcostError on c96d2408
        (lambda db: chipcost.prices(list_prices="yes", db=db), r"list_prices='yes': give True"),
        (lambda db: chipcost.index(latest="no", db=db), r"latest='no': give True or False"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", all_offers=1, db=db),
         r"all_offers=1: give True or False"),
        (lambda db: chipcost.prices(chip="trn2", db=db),
         r"its chip is Trainium2 \(ask for Trainium2, with provider aws"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", overhead="15%", db=db),
         r"overhead='15%': give a fraction, e.g. 0.15"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", daily_tokens="1B", db=db),
         "daily_tokens= is for the break-even: give migration_cost= too"),
        (lambda db: chipcost.cost("llama-3-70b", "inference", migration_cost="lots", db=db),
         "migration_cost 'lots' is not a number"),
    ],
)  # fmt: skip
def test_a_wrong_type_or_a_blank_is_a_usage_error_not_a_traceback(golden, call, message):
    """A value a keyword does not take is a UsageError, the kind docs/api.md names (the
    command line's exit 2), not a plain ChipcostError."""
    with pytest.raises(UsageError, match=message):
        call(golden)


@pytest.mark.parametrize(
    ("call", "message"),
    [
        (lambda db: chipcost.prices(db=db.parent), r"db='.+' is a directory"),
        (lambda db: chipcost.prices(db=db.parent / "none.duckdb"),
         r"or pass db= \(or set CHIPCOST_DB\)"),
    ],
)  # fmt: skip
def test_a_warehouse_that_is_not_there_is_a_failure_not_a_usage_error(golden, call, message):
    """docs/cli.md: a --db that is a directory, or no warehouse, is a failure (exit 1)."""
    with pytest.raises(WarehouseError, match=message) as failed:
        call(golden)
    assert not isinstance(failed.value, UsageError)


def test_rankings_concatenate_and_give_the_break_even(tmp_path):
    # A column empty in every row has its type all the same (batch_size, cost_for_tokens,
    # break_even_*): a training and an inference ranking concatenate.
    # H200 at $40 for 8 chips: cheaper per token than H100-SXM at $55.04, both measured at
    # MLPerf's Server point, so the verdict is drawn and a break-even exists.
    h200 = record(instance_type="p5e.48xlarge", chip="H200", price_per_hour=40.0, sku="S2")
    db = loaded_warehouse(tmp_path / "w.duckdb", [record(), h200])
    training = chipcost.cost("llama-3-70b", "training", db=db)
    inference = chipcost.cost(
        "llama-3-70b", "inference", migration_cost="36K", daily_tokens=1e9, db=db
    )
    assert pl.Null not in training.schema.values()
    assert training.schema["break_even_days"] == pl.Float64
    both = pl.concat([training, inference], how="diagonal")
    assert both.height == training.height + inference.height
    even = inference.filter(pl.col("break_even_tokens").is_not_null())
    assert even.height > 0, "the break-even of some offer against H100-SXM"
    days = even["break_even_tokens"] / 1e9
    assert (even["break_even_days"] - days).abs().max() < 1e-6


def test_names_read_as_on_the_command_line(golden):
    """Any case for the workload, as `chipcost cost --workload Inference` takes it."""
    assert chipcost.cost("llama-3-70b", "Inference ", chip="H100-SXM", db=golden).height > 0


def test_the_old_name_of_chip_count_is_taken_with_a_deprecation_warning(golden):
    with pytest.warns(DeprecationWarning, match=r"chips= is the old name of chip_count="):
        old = chipcost.prices(chips=8, db=golden)
    new = chipcost.prices(chip_count=8, db=golden)
    assert old.height == new.height > 0 and set(old["chip_count"].to_list()) == {8}


def test_answers_to_other_questions_concatenate_as_they_are(tmp_path):
    """polars.concat as it is (vertical: the same columns, in order, of the same types): a
    ranking asked with max_interruption (its interruption column), a compare with no verdict
    (no change, no figure at a point) and one with a verdict. On 8f824434 both failed."""
    from tests import warehouses

    db = str(warehouses.sample(tmp_path / "w.duckdb"))
    rankings = [
        chipcost.cost("llama-3-70b", "inference", chip="H100-SXM", pricing_model="spot",
                      max_interruption="10%", db=db),
        chipcost.cost("llama-3-70b", "inference", chip="H200", db=db),
        chipcost.cost("llama-3-70b", "training", chip="H200", db=db),
    ]  # fmt: skip
    assert rankings[0]["interruption"].drop_nulls().len() > 0
    assert rankings[1]["interruption"].null_count() == rankings[1].height
    assert pl.concat(rankings).height == sum(r.height for r in rankings)
    answers = [
        chipcost.compare("Trainium2", "H100-SXM", "llama-3-70b", "inference", speed="max", db=db),
        chipcost.compare("H200", "H100-SXM", "llama-3-70b", "inference", db=db),
    ]
    assert answers[0]["change_pct"].null_count() == answers[0].height  # cannot say, each line
    assert answers[1]["change_pct"].drop_nulls().len() > 0
    assert pl.concat(answers).height == sum(a.height for a in answers)
