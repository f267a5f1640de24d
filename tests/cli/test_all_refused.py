"""A listing whose every row is refused fails its source with its reasons grouped by kind and
the format change found in its payload at the end: AWS's spot feed (its recorded shape, from
tests/fixtures/aws-spot-feed/) with every price a thousand times itself and one region written
as an object, replayed by `chipcost collect` into a real warehouse file."""

from __future__ import annotations

import json

import duckdb

from chipcost.archive import ArchiveWriter, parse_stamp
from chipcost.extract.aws import spot_feed
from tests.paths import FIXTURES

STAMP = "2026-11-21T060000Z"
DRIFT = (
    "format drift (aws-spot-feed, spot price feed (JSONP), config.regions[]): region changed "
    "from string to object in 1 of 3 rows"
)


def _feed() -> bytes:
    text = (FIXTURES / "aws-spot-feed" / "spot.js").read_text()
    body = json.loads(text[text.index("(") + 1 : text.rindex(")")])
    regions = body["config"]["regions"]
    for region in regions:
        for group in region["instanceTypes"]:
            for size in group["sizes"]:
                for column in size["valueColumns"]:
                    usd = column["prices"]["USD"]
                    if not usd.startswith("N/A"):  # 'N/A*': no spot market, refused as such
                        column["prices"]["USD"] = f"{float(usd) * 1000:.4f}"
    regions[-1]["region"] = {"name": regions[-1]["region"]}
    return f"callback({json.dumps(body)});".encode()


def test_every_row_refused_says_its_reasons_by_kind_and_ends_with_the_drift(run, tmp_path):
    """On 444acd6f the message named one reason of two rows as 'the most common' (each
    implausible price made its reason unique), and the format change was '1 more note'."""
    root = tmp_path / "archive"
    writer = ArchiveWriter(root, STAMP, "aws-spot-feed")
    at = parse_stamp(STAMP)
    writer.write(_feed(), spot_feed.SPOT_FEED_URL, fetched_at=at, ext="js")
    db = tmp_path / "w.duckdb"
    ran = run("collect", "--replay", str(root), "--db", str(db))
    assert ran.returncode == 1  # its only source failed
    said = " ".join(ran.stdout.split())
    assert (
        "aws-spot-feed: every one of its 8 rows was refused (5 for per-chip hourly price … "
        "outside the plausible range 0.01-150.0 USD, 2 for … in {'name': 'eu-ireland'}: "
        "unknown region name in the feed"
    ) in said, said
    assert said.count(DRIFT) == 1 and "more note" not in said
    with duckdb.connect(str(db), read_only=True) as con:
        [(status, message)] = con.execute("SELECT status, message FROM source_runs").fetchall()
    assert status == "failed" and message.endswith(f"If it lasts, report it; {DRIFT}")
