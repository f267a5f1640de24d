"""One spelling per idea: the names a user meets in data (every command's options as --help
shows them, the keys of each read's json on the sample, the columns of the views users query,
the explorer's address and data) hold at most one variant of each idea's group below, and the
read tables' headers at most one label; values in data are the record's codes. docs/cli.md's
spelling tables are what the command line writes (chipcost.cli.spellings)."""

from __future__ import annotations

import functools
import json
import re
from collections import defaultdict
from pathlib import Path

import duckdb
import pytest

from chipcost.cli import spellings
from chipcost.cli.parser import every_command
from chipcost.core.vocabulary import PAYMENTS, PRICING_MODELS
from tests import warehouses
from tests.cli.test_read_commands import chipcost

ROOT = Path(__file__).resolve().parents[2]
# Each idea's spellings, as names in data: an option's name as the API spells it (--chip-count
# is chip_count), a key, a view's column, a parameter of the explorer's address.
NAMES = {
    "pricing model": {"pricing_model", "bucket", "pricing"},
    "chips per instance": {"chip_count", "chips"},
    "cost per million tokens": {
        "usd_per_million_tokens", "cost_per_million_tokens", "usd_per_million",
        "cost_per_million",
    },
    "spot interruption": {"interruption", "interrupted"},
    "per-user speed (an option)": {"speed", "per_user"},
    "what a figure was measured on (an option)": {"figure_per", "per_unit"},
}  # fmt: skip
# Where a variant names another idea, and which: a throughput figure's `chips` is the scale it
# was measured at (the `throughput` table's column), not an offer's chips per instance.
ELSEWHERE = {
    ("chips", "throughput list"): "the chips a figure ran on",
    ("chips", "view throughput_ranked"): "the chips a figure ran on",
    ("chips", "measure"): "the chips serving the measured endpoint",
}
# The read tables' headers: labels, one per idea, the first of each group: its name in data
# said in words (pricing_model: "pricing model"), or the label table's (on_demand: "on demand").
LABELS = {
    "pricing model": ("pricing model", "pricing", "bucket"),
    "chips per instance": ("chip count", "chips"),
    "spot interruption": ("interruption", "interrupted"),
    "on demand": ("on demand", "on-demand", "on_demand"),
}
# Values in data are the record's codes: a variant here is a second spelling.
VALUES = {
    "on_demand": {"on-demand", "on demand", "On-demand"},
    "all_upfront": {"all-up", "all upfront"},
    "partial_upfront": {"part-up", "partial upfront"},
    "no_upfront": {"no-up", "no upfront"},
}
# Relative changes are in percent, named *_pct; a change that is money is not one.
NOT_RELATIVE = {"change", "change_per_hour", "changed_at", "constituents_changed"}
READS = {
    "prices": ("prices", "--chip", "Trainium2"),
    "prices --by provider": ("prices", "--by", "provider"),
    "history": ("history", "--chip", "H100-SXM"),
    "index": ("index", "--chip", "H100-SXM"),
    "cost": ("cost", "--model", "llama-3-70b", "--workload", "inference"),
    "compare": ("compare", "Trainium2", "H100-SXM", "--model", "llama-3-70b", "--workload",
                "inference"),
    "sources": ("sources",),
    "throughput list": ("throughput", "list", "--model", "llama-3-70b"),
}  # fmt: skip
VIEWS = (
    "current_prices",
    "per_chip_prices",
    "cost_per_token",
    "price_changes",
    "throughput_ranked",
)


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("spelling") / "w.duckdb", last=2))


@pytest.fixture(scope="module")
def site(db, tmp_path_factory) -> dict:
    from chipcost.reports.site import write_site

    out = tmp_path_factory.mktemp("site")
    write_site(Path(db), out)
    return json.loads((out / "offers.json").read_text(encoding="utf-8"))


def _name(option: str) -> str:
    """'--chip-count' -> 'chip_count': an option as the API and the data spell it."""
    return option.removeprefix("--").replace("-", "_")


def option_names() -> list[tuple[str, str]]:
    """(name, command) of every option --help shows."""
    found = []
    for name, command in every_command():
        for option in spellings.options(command):
            flags = (*option.opts, *option.secondary_opts)
            found += [(_name(o), name) for o in flags if o.startswith("--")]
    return found


def explorer_parameters() -> list[str]:
    """The explorer address's parameters: the keys of its view (DEFAULTS in explorer.js)."""
    script = (ROOT / "reports" / "assets" / "explorer.js").read_text(encoding="utf-8")
    defaults = re.search(r"const DEFAULTS = \{(.*?)\};", script, re.S)
    assert defaults, "explorer.js declares its view as const DEFAULTS = {...}"
    return re.findall(r"(\w+):", defaults[1])


@functools.cache
def _json(db: str, args: tuple[str, ...]) -> list[dict]:
    """A read's JSON rows, run once per module's warehouse (the tests read them, never edit)."""
    done = chipcost(*args, "--format", "json", "--db", db)
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def _headers(db: str, args: tuple[str, ...]) -> list[str]:
    """The table's column headers at a width that wraps none: split at two or more spaces."""
    done = chipcost(*args, "--db", db, columns=400)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    rule = next((i for i, line in enumerate(lines) if line.startswith("───")), None)
    if rule is None:  # compare: sentences, no table
        return []
    return [h.strip() for h in re.split(r"\s{2,}", lines[rule - 1]) if h.strip()]


def data_names(db: str, site: dict) -> dict[str, set[str]]:
    """Each name in data, with where it appears."""
    where: dict[str, set[str]] = defaultdict(set)
    for name, command in option_names():
        where[name].add(command)
    for read, args in READS.items():
        for row in _json(db, args)[:50]:
            for key in row:
                where[key].add(read)
    con = duckdb.connect(db, read_only=True)
    try:
        for view in VIEWS:
            for column, *_ in con.sql(f"DESCRIBE {view}").fetchall():
                where[column].add(f"view {view}")
    finally:
        con.close()
    for name in explorer_parameters():
        where[name].add("explorer address")
    for part in ("offers", "throughput"):
        for key in site[part]:
            where[key].add(f"explorer {part}")
    for answer in site["head_to_head"]:
        for key in answer:
            where[key].add("explorer head_to_head")
    for key in site:
        where[key].add("explorer data")
    return where


def second_spellings(where: dict[str, set[str]]) -> dict[str, dict[str, set[str]]]:
    """Per idea of NAMES, its variants in use (outside ELSEWHERE) when there is more than one."""
    twice = {}
    for idea, variants in NAMES.items():
        used = {
            v: places
            for v in variants
            if (places := {p for p in where.get(v, set()) if (v, p) not in ELSEWHERE})
        }
        if len(used) > 1:
            twice[idea] = used
    return twice


def test_each_idea_has_one_name_in_options_keys_views_and_the_explorer(db, site):
    where = data_names(db, site)
    assert {"chip_count", "pricing_model", "usd_per_million_tokens"} <= set(where)
    assert not second_spellings(where)
    # A relative change is in percent, named so; money and words are not changes.
    relative = {k: p for k, p in where.items() if "change" in k and k not in NOT_RELATIVE}
    fractions = {k: p for k, p in relative.items() if not k.endswith("_pct")}
    assert relative and not fractions, fractions
    # The explorer's model is the model, as --model is: never a pricing model.
    assert "pricing_model" in explorer_parameters() and "model" in explorer_parameters()


def test_a_second_spelling_fails_the_check():
    where = {"pricing_model": {"prices"}, "bucket": {"index"}, "chips": {"throughput list"}}
    assert second_spellings(where) == {
        "pricing model": {"pricing_model": {"prices"}, "bucket": {"index"}}
    }


def test_data_values_are_the_records_codes(db, site):
    rows = [r for args in READS.values() for r in _json(db, args)[:200]]
    rows += site["head_to_head"]
    codes = {"on_demand", "spot", "commitment", *PRICING_MODELS, *PAYMENTS}
    said = {str(r[k]) for r in rows for k in ("pricing_model", "payment") if r.get(k) is not None}
    assert said and said <= codes, said - codes
    assert set(site["offers"]["pricing_model"]["dictionary"]) <= codes
    # Labels the page shows as they are ("on demand"): the label table and each offer's label.
    offers = {k: v for k, v in site["offers"].items() if k != "offer_label"}
    data = {k: v for k, v in site.items() if k not in ("model_labels", "offers")}
    text = json.dumps(rows) + json.dumps(data) + json.dumps(offers)
    for code, variants in VALUES.items():
        assert not [v for v in variants if f'"{v}"' in text], code


def test_each_table_header_is_one_label(db):
    used: dict[str, set[str]] = defaultdict(set)
    for read, args in READS.items():
        for header in _headers(db, args if read != "history" else (*args, "--no-chart")):
            for idea, labels in LABELS.items():
                if header in labels:
                    used[idea].add(header)
    assert used["pricing model"] and used["on demand"] and used["spot interruption"]
    assert all(said == {LABELS[idea][0]} for idea, said in used.items()), dict(used)


def test_docs_cli_md_holds_the_command_lines_spellings():
    text = spellings.DOC.read_text(encoding="utf-8")
    assert text == spellings.written(text), "run python -m chipcost.cli.spellings"


def _table_spellings() -> dict[tuple[str, str], str]:
    """docs/cli.md's options table read back: (command, option) -> the spelling it gives that
    command ('`--out PATH`; `--out OUT` in `site`' gives site the second, the rest the first)."""
    begin, end = spellings.MARKS["options"]
    text = spellings.DOC.read_text(encoding="utf-8")
    said = {}
    for row in text.partition(begin)[2].partition(end)[0].strip().splitlines()[2:]:
        _, cell, commands = row.replace("\\|", "\0").split(" | ")
        first, *others = (part.replace("\0", "|") for part in cell.split("; "))
        flag = first.split("`")[1].split()[0].rstrip(",")
        for command in re.findall(r"`([^`]+)`", commands):
            said[command, flag] = first.split("`")[1]
        for other in others:
            spelling, _, where = other.partition(" in ")
            for command in re.findall(r"`([^`]+)`", where):
                said[command, flag] = spelling.strip("`")
    return said


def test_each_spelling_in_docs_cli_md_is_what_help_shows():
    """`site --help` showed `--out OUT` and `export --help` `--format FORMAT` while the table
    said `--out PATH` and `--format [table|csv|json|focus]` (c96d2408): each command's help
    lists the option as the table says, at the head of its line."""
    said = _table_spellings()
    assert ("site", "--out") in said and ("measure", "--warehouse") in said
    helps: dict[str, list[str]] = {}
    for (command, flag), spelling in said.items():
        if command not in helps:
            done = chipcost(*command.split(), "--help", columns=400)
            assert done.returncode == 0, done.stderr
            helps[command] = [line.strip() for line in done.stdout.splitlines()]
        listed = [
            line for line in helps[command] if re.match(rf"{re.escape(flag)}(?=[ ,]|$)", line)
        ]
        assert [re.split(r"\s{2,}", line)[0] for line in listed] == [spelling], (command, flag)


def test_an_old_spelling_is_taken_with_a_note_or_refused_naming_the_new(db):
    refused = chipcost("prices", "--chips", "8", "--db", db)
    assert refused.returncode == 2
    # and why the old spelling is not taken: another command's option
    said = "No such option '--chips'. It is --chip-count now. --chips is an option of measure;"
    assert said in refused.stderr
    noted = chipcost("index", "--pricing-model", "1yr", "--chip", "H100-SXM", "--db", db)
    assert noted.returncode == 0, noted.stderr
    note = "note: --pricing-model 1yr is the old spelling of --pricing-model commitment"
    assert noted.stderr.count(note) == 1, noted.stderr
    # A pricing model's label (or the provider's 'On-Demand') is no old spelling: it is taken.
    for label in ("on-demand", "On demand", "capacity block"):
        taken = chipcost("prices", "--pricing-model", label, "--limit", "1", "--db", db)
        assert taken.returncode == 0 and "note" not in taken.stderr, (label, taken.stderr)
