"""A read's question declared once (chipcost.core.asks) is every spelling of it: the
command's click option (chipcost.cli.parser), the Python API's keyword (chipcost.api) and the
name its messages use; old spellings are taken with a note."""

from __future__ import annotations

import inspect
import warnings

import pytest

from chipcost import api
from chipcost.core.asks import INDEX, PRICES
from chipcost.core.errors import ChipcostError
from chipcost.core.questions import Voice
from chipcost.pipeline.seed import open_warehouse
from chipcost.warehouse.load import load_run
from tests.helpers import day, record, run_of


@pytest.fixture(scope="module")
def db(tmp_path_factory):
    path = tmp_path_factory.mktemp("declared") / "w.duckdb"
    con = open_warehouse(path)
    load_run(con, run_of([record()], day(0)))  # an H100-SXM: 80 GB a chip
    con.close()
    return str(path)


def test_a_declared_filter_is_an_option_a_keyword_and_a_message(run, db):
    shown = run("prices", "--help", env={"COLUMNS": "200"})
    assert shown.returncode == 0 and "--min-memory" in shown.stdout
    assert "min_memory" in inspect.signature(api.prices).parameters
    refused = run("prices", "--min-memory", "-1", "--db", db)
    assert refused.returncode == 2
    assert "--min-memory -1: give a finite number of 0 or more" in refused.stderr
    with pytest.raises(ChipcostError, match=r"min_memory=-1: give a finite number"):
        api.prices(min_memory=-1, db=db)
    assert api.prices(min_memory=50, db=db)["chip"].to_list() == ["H100-SXM"]
    assert api.prices("H100-SXM", min_memory=100, db=db).is_empty()


def test_the_api_refuses_what_its_signature_does_not_take(db):
    with pytest.raises(TypeError):
        api.prices(memory_at_least=50, db=db)
    with pytest.raises(TypeError):
        api.prices("H100-SXM", "aws", db=db)  # chip alone is taken by position
    with pytest.raises(TypeError):
        api.cost("llama-3-70b", db=db)  # workload is required


def test_messages_spell_an_option_as_the_asker_did():
    assert Voice(PRICES).said("max_price", 3) == "--max-price 3"
    assert Voice(PRICES, api=True).said("max_price", 3) == "max_price=3"
    assert Voice(PRICES).said("spot", False) == "--no-spot"
    assert Voice(PRICES).name("db") == "--warehouse"
    assert Voice(INDEX).said("pricing_model", "x") == "--pricing-model x"


def test_an_old_spelling_is_taken_with_a_note(run, db):
    old = run("index", "--bucket", "on_demand", "--format", "json", "--db", db)
    new = run("index", "--pricing-model", "on_demand", "--format", "json", "--db", db)
    assert old.returncode == new.returncode
    assert old.stdout == new.stdout
    assert "--bucket is the old spelling of --pricing-model" in old.stderr
    assert "old spelling" not in new.stderr


def test_no_old_spelling_is_another_commands_option():
    """`prices --model` was the old spelling of --pricing-model while `cost --model` is the
    LLM: `prices --model llama-3-70b` answered "unknown pricing model 'llama_3_70b'"."""
    from chipcost.cli.parser import every_command

    options: dict[str, set[str]] = {}
    old: list[tuple[str, str]] = []
    for called, command in every_command():
        for field in command.fields.values():
            for flag in field.flags or (field.option,):
                if field.same_as is None:
                    options.setdefault(flag, set()).add(called)
                elif field.kind != "argument":
                    old.append((called, flag))
    clashes = [(c, f, options[f]) for c, f in old if options.get(f, set()) - {c}]
    assert old and not clashes


def test_an_option_of_another_command_is_said_to_be_so(run, db):
    done = run("prices", "--model", "llama-3-70b", "--db", db)
    assert done.returncode == 2
    # its near spelling named, not --wide (a did-you-mean no slip gives, on c96d2408)
    assert "No such option '--model'. Did you mean '--pricing-model'?" in done.stderr
    assert "'--wide'" not in done.stderr
    assert (
        "'--pricing-model'" in done.stderr
        and "--model is an option of cost, compare, throughput add, throughput list, measure"
        in done.stderr
    )
    assert "llama_3_70b" not in done.stderr


def test_the_api_takes_an_old_keyword_with_a_warning(db):
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        old = api.index(bucket="on_demand", db=db)
    assert any("bucket= is the old name of pricing_model=" in str(w.message) for w in caught)
    assert old.equals(api.index(pricing_model="on_demand", db=db))


@pytest.mark.parametrize(
    ("args", "same"),
    [
        # as tables print them: memory with its unit, a price with its sign, thousands grouped
        (("--min-memory", "80GB"), ("--min-memory", "80")),
        (("--min-memory", "80 GB"), ("--min-memory", "80")),
        (("--max-price", "$7.00"), ("--max-price", "7")),
    ],
)
def test_a_number_as_tables_print_it_is_taken(run, db, args, same):
    """On 0cae6cf each was click's "'80GB' is not a valid float"."""
    given = run("prices", *args, "--format", "json", "--db", db)
    plain = run("prices", *same, "--format", "json", "--db", db)
    assert given.returncode == 0, given.stderr
    assert given.stdout == plain.stdout


@pytest.mark.parametrize(
    ("value", "said"),
    [("€2", "--max-price €2: a price bound is in the currency the table shows, USD"),
     ("2,5", "--max-price 2,5: give a number, e.g. 2.5 or $2.50"),  # a decimal comma: ambiguous
     ("1e400", "--max-price 1e400: give a finite number of 0 or more")],
)  # fmt: skip
def test_a_price_bound_that_is_no_dollar_amount_is_refused_as_typed(run, db, value, said):
    refused = run("prices", "--max-price", value, "--db", db)
    assert refused.returncode == 2 and said in refused.stderr, refused.stderr


@pytest.mark.parametrize(
    ("asked", "same"),
    [
        # from Python as the command line takes them (on e2f7b55 "give a number, e.g. 3.5")
        ({"min_memory": "80GB"}, {"min_memory": 80}),
        ({"max_price": "$7.00"}, {"max_price": 7}),
        ({"min_ram": "1,024"}, {"min_ram": 1024}),
        ({"min_vcpus": "192"}, {"min_vcpus": 192}),
    ],
)
def test_the_api_takes_a_number_as_tables_print_it_too(db, asked, same):
    assert api.prices(db=db, **asked).equals(api.prices(db=db, **same))


def test_vcpus_take_grouped_thousands(run, db):
    # on e2f7b55: "'1,024' is not a valid float", where --min-ram took it
    given = run("prices", "--min-vcpus", "1,024", "--format", "json", "--db", db)
    plain = run("prices", "--min-vcpus", "1024", "--format", "json", "--db", db)
    assert given.stdout == plain.stdout and given.stderr == plain.stderr


def test_grouped_thousands_are_one_number():
    from chipcost.reads.price_ask import amount_as_printed as _amount

    assert _amount("1,024", "GB") == 1024.0 and _amount("2,048 GB", "GB") == 2048.0
    assert _amount("$1,234.50", "$") == 1234.5
    assert _amount("1,02", "GB") == "1,02"  # not thousands: left for the message
