"""An answer at a glance: `prices --by chip` gives each chip's cheapest offer anywhere (as `sky
show-gpus` does) under the other filters; plain `prices` says how to narrow what it cuts;
`throughput list` and `sources --runs` take --limit and say their count first; the e-mail
opens with what changed, the dense head-to-head answers after. The sample's two newest runs."""

from __future__ import annotations

import csv
import email
import email.policy
import io
import json
import re
from collections import defaultdict

import pytest

from chipcost.core.errors import UsageError
from chipcost.reads.price_glance import in_cheapest
from tests import warehouses
from tests.cli.test_read_commands import chipcost


@pytest.fixture(scope="module")
def db(tmp_path_factory) -> str:
    return str(warehouses.sample(tmp_path_factory.mktemp("glance") / "w.duckdb", last=2))


def _json(run, *args: str) -> list[dict]:
    done = run(*args, "--format", "json")
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


@pytest.mark.parametrize(
    "filters",
    [
        (),
        ("--pricing-model", "on_demand"),
        ("--provider", "aws"),
        ("--region", "us-east-1"),
        ("--chip", "H100"),
        ("--no-spot", "--min-memory", "80"),
    ],
    ids=["all", "on-demand", "aws", "us-east-1", "h100", "no-spot-80gb"],
)
def test_by_chip_is_each_chip_s_cheapest_offer_under_the_filters(run, db, filters):
    listed = _json(run, "prices", *filters, "--db", db)
    glance = _json(run, "prices", "--by", "chip", *filters, "--db", db)
    # A slice of a GPU (AWS's g6f: 1/8 of an L4) answers no "cheapest", nor, unless --region
    # names it, a government, China or sovereign region.
    every = [r for r in listed if in_cheapest(r, regions_asked="--region" in filters)]
    if not filters:
        assert any(0 < r["chip_count"] < 1 for r in listed) and len(every) < len(listed)
    offers: dict[str, list[dict]] = defaultdict(list)
    for row in every:
        offers[row["chip"]].append(row)
    assert [r["chip"] for r in glance] == list(dict.fromkeys(r["chip"] for r in every))
    for row in glance:
        # at one price, a zone's own row before its region's row (which names no zone)
        cheapest = min(
            offers[row["chip"]],
            key=lambda r: (r["price_per_chip_hour"], r["plan"] == "region_cheapest"),
        )
        assert row["price_per_chip_hour"] == cheapest["price_per_chip_hour"], row
        # each offer once: a region's cheapest spot zone's row repeats that zone's offer
        assert row["offers"] == sum(r["plan"] != "region_cheapest" for r in offers[row["chip"]])
        same = ("provider", "region", "zone", "pricing_model", "term", "instance_type")
        assert {k: row[k] for k in same} == {k: cheapest[k] for k in same}
        assert row["estimate"] == (cheapest.get("estimate") or None)
        assert row["currency"] == "USD"


def test_by_chip_in_a_table_a_row_a_chip_with_where_and_how_it_is_paid(run, db):
    done = run("prices", "--by", "chip", "--chip", "H100-SXM,H200", "--db", db)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("cheapest current offer of each chip per chip-hour (USD")
    header = lines[1].split()
    assert header[:3] == ["chip", "cheapest", "where"] and "offers" in header
    rows = [line for line in lines if line.startswith(("H100-SXM ", "H200 "))]
    assert len(rows) == 2
    glance = _json(run, "prices", "--by", "chip", "--chip", "H100-SXM,H200", "--db", db)
    for row, line in zip(glance, rows, strict=True):
        assert f"{row['price_per_chip_hour']:.4f}" in line and row["provider"] in line
        assert str(row["offers"]) in line.split()[-1]


def test_by_chip_takes_per_limit_sort_and_csv(run, db):
    month = _json(run, "prices", "--by", "chip", "--per", "month", "--db", db)
    hour = _json(run, "prices", "--by", "chip", "--db", db)
    assert [r["price_per_chip_month"] for r in month] == [
        round(730 * r["price_per_chip_hour"], 2) for r in hour
    ]
    cheapest = _json(run, "prices", "--by", "chip", "--sort", "price", "--limit", "3", "--db", db)
    prices = sorted(r["price_per_chip_hour"] for r in hour)
    assert [r["price_per_chip_hour"] for r in cheapest] == prices[:3]
    listed = run("prices", "--by", "chip", "--format", "csv", "--db", db)
    assert listed.returncode == 0, listed.stderr
    rows = list(csv.DictReader(io.StringIO(listed.stdout)))
    assert [r["chip"] for r in rows] == [r["chip"] for r in hour]
    assert {"price_per_chip_hour", "provider", "region", "pricing_model", "instance_type",
            "offers"} <= set(rows[0])  # fmt: skip


@pytest.mark.parametrize("width", [60, 80, 100])
def test_by_chip_keeps_every_chip_on_a_narrow_terminal(db, width):
    done = chipcost("prices", "--by", "chip", "--provider", "aws", "--db", db, columns=width)
    assert done.returncode == 0, done.stderr
    assert all(len(line) <= width for line in done.stdout.splitlines())
    chips = [r["chip"] for r in json.loads(
        chipcost("prices", "--by", "chip", "--provider", "aws", "--format", "json",
                 "--db", db).stdout)]  # fmt: skip
    firsts = [line.split()[0] for line in done.stdout.splitlines() if line.strip()]
    assert all(chip in firsts for chip in chips)


def test_plain_prices_leads_with_one_row_per_chip_and_says_how_to_see_every_offer(run, db):
    done = run("prices", "--db", db, env={"COLUMNS": "100"})
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0].startswith("cheapest current offer of each chip per chip-hour (USD")
    glance = _json(run, "prices", "--by", "chip", "--db", db)
    every = _json(run, "prices", "--db", db)  # json of plain prices: every offer, as scripts read
    assert len(every) > len(glance) > 20 and set(every[0]) > {"source", "payload_ref"}
    firsts = [line.split()[0] for line in lines if line and not line[0].isspace()]
    assert [c for c in firsts if c in {r["chip"] for r in glance}] == [r["chip"] for r in glance]
    stored = sum(r["plan"] != "region_cheapest" for r in every)  # each offer once
    assert stored < len(every)
    (line,) = [x for x in lines if x.startswith(f"all {stored:,} offers: `prices")]
    assert len(line) <= 100 and "`prices --by offer`" in line
    assert line.endswith("(or a filter: --chip H100)")
    listed = run("prices", "--by", "offer", "--db", db)
    assert listed.returncode == 0, listed.stderr
    # counted as every command counts (on c96d2408: '2531 more rows: ...')
    assert (
        f"{len(every) - 200:,} more rows: --by chip gives each chip's cheapest offer"
        in " ".join(listed.stdout.split())
    )
    assert listed.stdout.count("\n") > 200  # the listing: every offer, 200 of them shown


def test_offers_of_no_known_chip_are_listed_left_out_of_the_glance_and_said(run, db):
    """`unknown` marks a GPU no chip is named for: no chip to answer for, so no row of the
    glance (as the index and the explorer leave it out), counted under it with the query that
    lists them; `--by offer` lists them, and no list of chips with prices names it."""
    every = _json(run, "prices", "--db", db)
    unknown = sum(1 for r in every if r["chip"] == "unknown")
    assert unknown, "the sample holds offers of a GPU no chip is named for"
    for by in ("chip", "provider", "region"):
        assert "unknown" not in {r["chip"] for r in _json(run, "prices", "--by", by, "--db", db)}
    done = run("prices", "--db", db, env={"COLUMNS": "200"})
    firsts = {line.split()[0] for line in done.stdout.splitlines() if line.strip()}
    assert "unknown" not in firsts, done.stdout
    said = " ".join(done.stdout.split())
    assert f"left out of the cheapest: {unknown} offer(s) whose GPU names no chip" in said
    assert "WHERE chip = 'unknown'\"` lists them" in said
    missing = run("prices", "--chip", "Gaudi2", "--db", db)
    assert missing.returncode == 1 and "Chips with prices: A10" in missing.stderr
    assert "unknown" not in missing.stderr, missing.stderr


@pytest.mark.parametrize(
    "args", [("--chip", "H100"), ("--no-spot",), ("--sort", "price"), ("--limit", "5")]
)
def test_any_filter_order_or_count_keeps_the_listing(run, db, args):
    done = run("prices", *args, "--db", db, env={"COLUMNS": "200"})
    assert done.returncode == 0, done.stderr
    assert not done.stdout.startswith("cheapest current offer") and "--by offer" not in done.stdout
    header = next(line for line in done.stdout.splitlines() if line.startswith("chip "))
    assert "$/chip-hr" in header.split() and "cheapest" not in header.split()


def test_the_python_api_by_chip_gives_the_rows_of_by_chip_json(run, db):
    import chipcost

    for by, args in (("chip", {}), ("chip", {"provider": "aws"}), ("provider", {"chip": "H100"})):
        given = [x for k, v in args.items() for x in (f"--{k}", v)]
        rows = chipcost.prices(by=by, db=db, **args).to_dicts()
        # the dates json writes in ISO 8601 (valid_from, last_seen_at)
        iso = [{k: v.isoformat() if hasattr(v, "isoformat") else v for k, v in r.items()}
               for r in rows]  # fmt: skip
        assert iso == _json(run, "prices", "--by", by, *given, "--db", db)
    assert chipcost.prices(by="offer", db=db).equals(chipcost.prices(db=db))
    with pytest.raises(UsageError, match="by=zone: give one of chip, provider, region, offer"):
        chipcost.prices(by="zone", db=db)


@pytest.mark.parametrize("limit", [1, 5])
def test_throughput_list_takes_limit_and_says_its_count_first(run, db, limit):
    every = _json(run, "throughput", "list", "--db", db)
    table = run("throughput", "list", "--limit", str(limit), "--db", db, env={"COLUMNS": "250"})
    assert table.returncode == 0, table.stderr
    lines = table.stdout.splitlines()
    assert lines[0] == (
        f"throughput figures (tokens/s per chip): {limit} of {len(every):,} (--limit N shows more)"
    )
    rule = next(i for i, line in enumerate(lines) if line.startswith("───"))
    shown = [line.split()[0] for line in lines[rule + 1 :] if line and not line[0].isspace()]
    ids = [r["throughput_id"] for r in every[:limit]]
    assert shown[:limit] == ids and not any(r["throughput_id"] in shown for r in every[limit:])
    for fmt in ("csv", "json"):
        cut = run("throughput", "list", "--limit", str(limit), "--format", fmt, "--db", db)
        assert cut.returncode == 0 and f"{len(every) - limit:,} more rows (--limit)" in cut.stderr
        got = json.loads(cut.stdout) if fmt == "json" else list(csv.DictReader(io.StringIO(
            cut.stdout)))  # fmt: skip
        assert [r["throughput_id"] for r in got] == ids


def test_throughput_list_table_shows_200_unless_given_csv_and_json_every_figure(run, db):
    every = _json(run, "throughput", "list", "--db", db)
    assert len(every) > 200  # the catalogue's reference figures
    table = run("throughput", "list", "--db", db)
    assert table.stdout.startswith(f"throughput figures (tokens/s per chip): 200 of {len(every):,}")
    few = run("throughput", "list", "--chip", "Trainium2", "--db", db)
    counted = len(_json(run, "throughput", "list", "--chip", "Trainium2", "--db", db))
    assert few.stdout.splitlines()[0] == f"throughput figures (tokens/s per chip): {counted}"


@pytest.mark.parametrize("limit", [None, 1])
def test_sources_runs_take_limit_and_say_their_count_first(run, db, limit):
    given = () if limit is None else ("--limit", str(limit))
    every = _json(run, "sources", "--runs", "--db", db)
    assert len(every) == 2
    table = run("sources", "--runs", *given, "--db", db)
    assert table.returncode == 0, table.stderr
    first = table.stdout.splitlines()[0]
    if limit is None:
        assert first == "2 runs, newest first"
        assert all(r["run_id"] in table.stdout for r in every)
    else:
        assert first == "2 runs, newest first, the newest 1 shown (--limit N shows more)"
        assert every[0]["run_id"] in table.stdout and every[1]["run_id"] not in table.stdout
        listed = run("sources", "--runs", *given, "--format", "csv", "--db", db)
        rows = list(csv.DictReader(io.StringIO(listed.stdout)))
        assert [r["run_id"] for r in rows] == [every[0]["run_id"]]
        assert "1 more row (--limit)" in listed.stderr


def test_the_e_mail_opens_with_what_changed(run, db, tmp_path):
    done = run("report", "--dry-run", "--out", str(tmp_path), "--db", db)
    assert done.returncode == 0, done.stderr
    (eml,) = tmp_path.glob("*.eml")
    message = email.message_from_bytes(eml.read_bytes(), policy=email.policy.default)
    html = message.get_body(("html",)).get_content()
    text = message.get_body(("plain",)).get_content()
    answers = "Is chip A cheaper than chip B?"
    assert answers in html and answers in text  # the sample holds both
    changed = re.search(r">What changed<", html)
    assert changed and changed.start() < html.index(answers)
    assert text.index("Largest moves of") < text.index(answers)
