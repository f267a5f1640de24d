"""Price alerts through apprise URLs (Slack, Teams, Discord, webhooks, e-mail), once a day each."""

from __future__ import annotations

import hashlib
import threading
from collections.abc import Sequence
from dataclasses import dataclass, field
from datetime import UTC, date, datetime, timedelta

import duckdb
import polars as pl

from chipcost.core.clean import printable
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.settings import DEFAULT_NOTIFY_DEADLINE, NOTIFY_DEADLINE_ENV
from chipcost.core.vocabulary import BUCKET_LABELS
from chipcost.reports.alerts import moves_since
from chipcost.reports.labels import money, signed_pct, with_labels
from chipcost.reports.text import first_known, top_move
from chipcost.warehouse.db import connect
from chipcost.warehouse.notifications import record_sent, sent_today
from chipcost.warehouse.reader import open_reader
from chipcost.warehouse.snapshot import at_rate_day, cheapest_by_model

# The same freshness as the report's "cheapest now": an offer whose source stopped running
# a week ago is not today's cheapest.
FRESH_DAYS = 7
# Lines in one notification, "… and N more" among them: chat services cut long messages
# (Discord at 2,000 characters).
MAX_LINES = 15


# Chat services read markup in a message: Slack's <!channel> and <url|text>, Discord's
# @everyone and [text](url), Telegram's HTML. Provider text reaches alerts as plain text only:
# no angle brackets, no square brackets, and an @ that mentions nobody.
_CHAT_SAFE = str.maketrans({"<": "‹", ">": "›", "[": "(", "]": ")", "@": "@\u200b"})


def chat_text(text: str) -> str:
    """The text as an alert may carry it: printable, with no mention, link or tag syntax."""
    return printable(text).translate(_CHAT_SAFE)


class NotifyError(ChipcostError):
    """A notification target refused the alert or cannot be reached."""


class NotifyUsageError(NotifyError, UsageError):
    """A target given on the command line (`collect --notify`) that apprise cannot send to: a
    usage error (exit 2) that is a NotifyError too."""


@dataclass(frozen=True)
class Alert:
    key: str  # what makes it the same alert on a re-run
    kind: str  # "move" or "cheapest"
    line: str


@dataclass
class Notified:
    alerts: int = 0  # alerts found in the window
    sent: dict[str, int] = field(default_factory=dict)  # target label -> alerts sent to it
    already: dict[str, int] = field(default_factory=dict)  # target label -> sent before today


def target_label(url: str) -> str:
    """The URL with its secrets masked (apprise's privacy form), for messages and logs."""
    import apprise

    plugin = apprise.Apprise.instantiate(url)
    if plugin is None:
        return url.split("://", 1)[0] + "://…"
    return plugin.url(privacy=True).split("?", 1)[0]


def check_urls(
    urls: Sequence[str], option: str | None = None, variable: str | None = None
) -> list[str]:
    """The URLs, each one apprise can send to; otherwise a NotifyError naming it as it was
    typed, less what may be a secret: a URL's scheme (`nope://…`), else the text's first
    characters. With `option` (`--notify`, the URLs given there), a NotifyUsageError naming
    the option; with `variable` (the URLs read from it), a NotifyError naming the variable."""
    import apprise

    checked = []
    for i, url in enumerate(u.strip() for u in urls):
        if not url:
            continue
        if apprise.Apprise.instantiate(url) is None:
            typed = _as_typed(url)
            which = (
                f"{option} {typed}"
                if option
                else f"{variable or 'notification'} target {i + 1} ({typed})"
            )
            raise (NotifyUsageError if option else NotifyError)(
                f"{which} is not an apprise URL: give one such as slack://…, msteams://…, "
                "discord://…, json://host/path or mailto://…"
            )
        checked.append(url)
    return checked


def _as_typed(url: str) -> str:
    """A target as it was typed, but for what may be its secret: `nope://…` (the scheme
    alone), `'bogus'` (text with no scheme), `'hooks.slack.…'` (its first 12 characters)."""
    if "://" in url:
        return f"{printable(url.split('://', 1)[0])}://…"
    return repr(printable(url) if len(url) <= 12 else f"{printable(url[:12])}…")


def _target_id(url: str) -> str:
    return hashlib.sha256(url.encode()).hexdigest()[:24]


def move_alerts(moves: pl.DataFrame) -> list[Alert]:
    alerts = []
    for row in moves.iter_rows(named=True):
        key = "|".join(
            str(row[c])
            for c in ("source", "provider", "region", "zone", "instance_type", "pricing_model")
        )
        key += f"|{row['term']}|{row['payment']}|{row['plan']}|{row['changed_at']:%Y-%m-%dT%H:%M}"
        line = (
            f"{signed_pct(row['change_pct'])} {row['chip']} {row['where']} · "
            f"{row['instance_type']} · {row['offer']}: {money(row['old_price_per_chip_hour'])} "
            f"→ {money(row['new_price_per_chip_hour'])} per chip-hour"
        )
        alerts.append(Alert(f"move|{key}|{row['new_price_per_chip_hour']:.6f}", "move", line))
    return alerts


def cheapest_alerts(before: pl.DataFrame, after: pl.DataFrame) -> list[Alert]:
    """A chip whose cheapest price under a pricing model fell below the cheapest before."""
    was = before.select("chip", "bucket", was="price_per_chip_hour", was_where="where")
    joined = after.join(was, on=["chip", "bucket"], how="inner").filter(
        pl.col("price_per_chip_hour") < pl.col("was")
    )
    alerts = []
    for row in joined.iter_rows(named=True):
        bucket = BUCKET_LABELS.get(row["bucket"], row["bucket"])
        line = (
            f"new cheapest {row['chip']} {bucket.lower()}: {money(row['price_per_chip_hour'])} "
            f"per chip-hour at {row['where']} · {row['instance_type']} (was "
            f"{money(row['was'])} at {row['was_where']})"
        )
        key = f"cheapest|{row['chip']}|{row['bucket']}|{row['price_per_chip_hour']:.6f}"
        alerts.append(Alert(key, "cheapest", line))
    return alerts


def price_alerts(
    con: duckdb.DuckDBPyConnection, since: datetime, until: datetime, threshold_pct: float
) -> tuple[list[Alert], str]:
    """Moves of at least threshold_pct since `since`, and new cheapest prices at `until`
    against those at `since`; with the title that announces them."""
    moves = moves_since(con, since, threshold_pct)
    fresh = timedelta(days=FRESH_DAYS)
    # Both at the rate of `until`'s day: a euro price that did not move is no new cheapest
    # because the euro fell between the two days.
    day = at_rate_day(until)
    before = with_labels(cheapest_by_model(con, since, since - fresh, day))
    after = with_labels(cheapest_by_model(con, until, until - fresh, day))
    alerts = move_alerts(moves) + cheapest_alerts(before, after)
    sample = bool(moves.height and moves["sample"].any()) or _sample_since(con, since)
    parts = []
    if moves.height:
        count = f"{moves.height} move{'s' if moves.height != 1 else ''}"
        parts.append(f"{count} of {threshold_pct:g}% or more, {top_move(first_known(moves))}")
    cheaper = len(alerts) - moves.height
    if cheaper:
        parts.append(f"{cheaper} new cheapest price{'s' if cheaper != 1 else ''}")
    title = ("[sample data] " if sample else "") + "Price alert: " + "; ".join(parts)
    return alerts, title


def _sample_since(con: duckdb.DuckDBPyConnection, since: datetime) -> bool:
    rows = con.execute("SELECT bool_or(sample) FROM runs WHERE observed_at >= ?", [since])
    return bool(rows.fetchall()[0][0])


def _send(url: str, title: str, lines: list[str], deadline: float) -> None:
    """Post to one target within `deadline` seconds (connect to last byte: apprise's own
    timeouts bound each read, not their sum), or NotifyError: a target that answers a byte
    at a time fails alone (its post may still land late; nothing records it)."""
    done: list[BaseException | None] = []
    thread = threading.Thread(
        target=_post, args=(url, title, lines, done), name="chipcost-notify", daemon=True
    )
    thread.start()
    thread.join(deadline)
    if not done:
        raise NotifyError(
            f"{target_label(url)} did not answer the price alert within {deadline:g} s "
            f"({NOTIFY_DEADLINE_ENV}): not recorded as sent, so the next run sends it again"
        )
    if done[0] is not None:
        raise done[0]


def _post(url: str, title: str, lines: list[str], done: list[BaseException | None]) -> None:
    try:
        _notify(url, title, lines)
    except BaseException as exc:  # handed to the waiting thread, which raises it
        done.append(exc)
    else:
        done.append(None)


def _notify(url: str, title: str, lines: list[str]) -> None:
    import apprise

    shown = lines
    if len(lines) > MAX_LINES:  # the line that counts the rest is one of the MAX_LINES
        kept = MAX_LINES - 1
        shown = [*lines[:kept], f"… and {len(lines) - kept} more: see the weekly report"]
    notifier = apprise.Apprise()
    notifier.add(url)
    body = "\n".join(chat_text(line) for line in shown)
    with apprise.LogCapture(level=apprise.logging.WARNING) as log:
        # The title is chipcost's own words and canonical chip names; the lines carry
        # provider text (where, instance types), neutralised.
        ok = notifier.notify(title=title, body=body, body_format=apprise.NotifyFormat.TEXT)
        said = log.getvalue().strip().splitlines()
    if not ok:
        reason = said[-1] if said else "no reason given"
        raise NotifyError(f"{target_label(url)} did not accept the price alert: {reason}")


@dataclass
class Pending:
    """The alerts of a window and, for each target, those it already had today."""

    urls: list[str]
    alerts: list[Alert]
    title: str
    old: dict[str, set[str]]  # url -> alert keys sent to it today
    today: date


def pending_alerts(
    con: duckdb.DuckDBPyConnection,
    urls: Sequence[str],
    since: datetime,
    until: datetime,
    threshold_pct: float,
) -> Pending:
    """The alerts of [since, until] and what each target already had today."""
    today = datetime.now(UTC).date()
    alerts, title = price_alerts(con, since, until, threshold_pct)
    keys = [a.key for a in alerts]
    old = (
        {url: set(sent_today(con, today, _target_id(url), keys)) for url in urls} if alerts else {}
    )
    return Pending(list(urls), alerts, title, old, today)


def post_alerts(
    pending: Pending, deadline: float
) -> tuple[Notified, dict[str, list[Alert]], list[str]]:
    """Post each target the alerts it has not had today, each within `deadline` seconds, the
    warehouse closed meanwhile: what was done, the alerts sent per target (to record), and
    the failures (every target is tried)."""
    done = Notified(alerts=len(pending.alerts))
    failures, sent = [], {}
    for url in pending.urls if pending.alerts else ():
        label = target_label(url)
        new = [a for a in pending.alerts if a.key not in pending.old[url]]
        done.already[label] = len(pending.old[url])
        if not new:
            continue
        try:
            _send(url, pending.title, [a.line for a in new], deadline)
        except NotifyError as exc:
            failures.append(str(exc))
            continue
        sent[url] = new
        done.sent[label] = len(new)
    return done, sent, failures


def record_alerts(
    con: duckdb.DuckDBPyConnection, today: date, sent: dict[str, list[Alert]]
) -> None:
    """Record the alerts sent to each target today."""
    for url, new in sent.items():
        record_sent(con, today, _target_id(url), ((a.key, a.kind) for a in new))


def send_alerts(
    db_path,
    urls: Sequence[str],
    since: datetime,
    until: datetime,
    threshold_pct: float,
    *,
    deadline: float = DEFAULT_NOTIFY_DEADLINE,
) -> Notified:
    """Send each target the alerts of [since, until] it has not had today; record them.

    The warehouse is read, closed while the targets are posted to (each within `deadline`
    seconds), then opened again to record what was sent: a slow target never holds the
    warehouse from its readers or the next load. Every target is tried; the first failure
    is raised after the others were sent.
    """
    urls = check_urls(urls)
    con = open_reader(db_path)
    try:
        pending = pending_alerts(con, urls, since, until, threshold_pct)
    finally:
        con.close()
    done, sent, failures = post_alerts(pending, deadline)
    if sent:
        con = connect(db_path)
        try:
            record_alerts(con, pending.today, sent)
        finally:
            con.close()
    if failures:
        raise NotifyError("; ".join(failures))
    return done
