"""What refused rows say, by kind: a run's reasons grouped with each row's own values taken
out, the latest run's of each source, and the offers a run kept at their earlier price."""

from __future__ import annotations

import re
from collections.abc import Iterable

import duckdb

from chipcost.core.runs import OK, SourceResult
from chipcost.warehouse.bound import execute

# A row's own values in a reason: a quoted text, or a word holding a digit (a price, a count,
# an id, a region, an instance type: 460.35, 1e+09, us-east-1, p5.48xlarge). A value every
# row of a kind shares is kept (the bound of a range, the unit asked); one that differs is "…".
_VALUE = re.compile(r"'[^']*'|\"[^\"]*\"|[\w.+/-]*\d[\w.+/-]*")
# A reason that starts with the row it refuses ("p5.48xlarge in us-east-1: no spot market",
# "NVIDIA GH200 spot: no price listed"): what follows its first ": " outside brackets and
# quotes is the kind, when rows named in different words say it.
_LABEL = ": "
# The kinds said in one line; the rest are counted.
KINDS_SAID = 2


def reason_kinds(reasons: Iterable[tuple[str, int]]) -> list[tuple[str, int]]:
    """(reason, rows) pairs grouped by kind, most rows first: (the kind as said, its rows).

    Reasons are of one kind when they differ only in the row's own values (_VALUE), or only
    in those and in the words naming the row before their first ": "; a kind is said with
    the values its rows share and "…" for the others: "per-chip hourly price … outside the
    plausible range 0.01-150.0 USD" for sixty rows each with its own price, "no price listed
    (N/A)" for the spot rows of five GPUs each named its own way."""
    whole: dict[str, list[tuple[str, int]]] = {}
    for reason, rows in reasons:
        whole.setdefault(_VALUE.sub("\0", reason), []).append((reason, rows))
    by_kind: dict[str, list[list[tuple[str, int]]]] = {}
    for members in whole.values():
        by_kind.setdefault(_VALUE.sub("\0", _after_label(members[0][0])), []).append(members)
    kinds = []
    for groups in by_kind.values():
        if len(groups) == 1:  # one wording, the row's values aside: said whole
            said = [reason for reason, _ in groups[0]]
        else:  # rows named in words of their own: the kind alone
            said = [_after_label(reason) for members in groups for reason, _ in members]
        rows = sum(n for members in groups for _, n in members)
        kinds.append((_merged(said), rows))
    return sorted(kinds, key=lambda kind: -kind[1])


def _after_label(reason: str) -> str:
    """What follows the first ": " outside brackets and quotes (the reason, if none)."""
    depth, quoted = 0, ""
    for at, char in enumerate(reason):
        if quoted:
            quoted = "" if char == quoted else quoted
        elif char in "'\"":
            quoted = char
        elif char in "([{":
            depth += 1
        elif char in ")]}":
            depth -= 1
        elif depth == 0 and reason.startswith(_LABEL, at):
            return reason[at + len(_LABEL) :]
    return reason


def _merged(reasons: list[str]) -> str:
    """Reasons of one template said once: each value their rows share, "…" for the others."""
    parts = _VALUE.sub("\0", reasons[0]).split("\0")
    values = [shared(column) for column in zip(*map(_VALUE.findall, reasons), strict=True)]
    return parts[0] + "".join(v + p for v, p in zip(values, parts[1:], strict=True))


def shared(values: tuple[str, ...]) -> str:
    """The value every row of a kind has, or "…" where they differ (quoted, if they are)."""
    if len(set(values)) == 1:
        return values[0]
    quote = values[0][:1]
    quoted = quote in ("'", '"') and all(v[:1] == quote for v in values)
    return f"{quote}…{quote}" if quoted else "…"


def refused_said(kinds: list[tuple[str, int]], *, said: int = KINDS_SAID) -> str:
    """'43 rows refused: 30 for unit '1 Second' is not '1 Hour', 13 for currency 'EUR' is
    not USD': the count, then the most common kinds with their rows (kinds_said); one kind
    alone is said without its count, the line's own."""
    total = sum(rows for _, rows in kinds)
    if len(kinds) == 1:
        return f"{rows_of(total)} refused: {kinds[0][0][:200]}"
    return f"{rows_of(total)} refused: {kinds_said(kinds, said=said)}"


def kinds_said(kinds: list[tuple[str, int]], *, said: int = KINDS_SAID) -> str:
    """'30 for unit '1 Second' is not '1 Hour', 13 for currency 'EUR' is not USD': the most
    common kinds with their rows, the others counted together."""
    shown = ", ".join(f"{rows:,} for {kind[:200]}" for kind, rows in kinds[:said])
    if len(kinds) > said:
        rest = sum(rows for _, rows in kinds[said:])
        others = len(kinds) - said
        shown += f", {rest:,} for {others:,} other reason{'s' if others > 1 else ''}"
    return shown


def rows_of(count: int) -> str:
    return f"{count:,} row{'s' if count != 1 else ''}"


# What refused_said begins with: a source's note of its refused rows is told by it.
_SAID = re.compile(r"[\d,]+ rows? refused: ")


def is_refused_said(text: str) -> bool:
    return _SAID.match(text) is not None


# Each source's latest run (the one of its newest prices, then the latest started, as
# `sources` reads its latest attempt), its rejects and their reasons, counted.
_LATEST = """
WITH latest AS (
    SELECT source, run_id, rejects FROM (
        SELECT s.source, s.run_id, s.rejects, row_number() OVER (
            PARTITION BY s.source ORDER BY r.observed_at DESC, r.started_at DESC
        ) AS n
        FROM source_runs s JOIN runs r USING (run_id)
    ) WHERE n = 1
)
SELECT l.source, l.rejects, j.reason, count(j.reason)
FROM latest l LEFT JOIN rejects j ON j.run_id = l.run_id AND j.source = l.source
GROUP BY ALL
"""


def latest_rejects(con: duckdb.DuckDBPyConnection) -> dict[str, tuple[int, str]]:
    """Per source, its latest run's count of refused rows and what they were refused for
    (refused_said; "" when none)."""
    counts: dict[str, int] = {}
    reasons: dict[str, list[tuple[str, int]]] = {}
    for source, rejects, reason, rows in con.execute(_LATEST).fetchall():
        counts[source] = rejects
        if reason is not None:
            reasons.setdefault(source, []).append((reason, rows))
    return {
        source: (count, refused_said(reason_kinds(reasons[source])) if source in reasons else "")
        for source, count in counts.items()
    }


def kept_offers(con: duckdb.DuckDBPyConnection, results: list[SourceResult]) -> dict[str, int]:
    """Per successful source with refused rows, its offers that kept their earlier price: read
    after the run's load, the offers still open that the run neither saw priced (their last
    sighting is older than the run's) nor withdrew, because it saw their rows refused."""
    refusing = [r for r in results if r.status == OK and r.rejects and r.observed_at]
    if not refusing:
        return {}
    rows = execute(
        con,
        "SELECT h.source, count(*) FROM price_history h JOIN (SELECT unnest(?::VARCHAR[]) AS "
        "source, unnest(?::TIMESTAMPTZ[]) AS observed_at) s USING (source) "
        "WHERE h.valid_to IS NULL AND h.last_seen_at < s.observed_at GROUP BY h.source",
        [[r.source for r in refusing], [r.observed_at for r in refusing]],
    ).fetchall()
    return {source: count for source, count in rows if count}
