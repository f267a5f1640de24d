"""The price explorer: a static page of every current offer, sortable and filterable, with cost
per token and each chip's price history; its data as JSON (and a script for the page) and CSV."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta
from html import escape
from pathlib import Path

import polars as pl

from chipcost.core.catalog import UNKNOWN_CHIP
from chipcost.core.figures import DEFAULT_SPEED
from chipcost.core.frames import frame_of, spreadsheet_safe
from chipcost.core.outputs import written_whole
from chipcost.core.settings import DEFAULT_STALE_DAYS, Warehouse, environment
from chipcost.core.version import __version__
from chipcost.core.vocabulary import GPU_ALONE, GPU_ALONE_TYPES, HISTORY_KEY, gpu_alone_types
from chipcost.reads.price_glance import PER_HOURS, cheapest_per_model
from chipcost.reads.price_notes import left_out_words, unconverted_words
from chipcost.reads.your_prices import YourPrices, for_read
from chipcost.reports.answers import (
    PAIRING,
    break_even_words,
    cost_where,
    discounts_said,
    estimated_costs_note,
)
from chipcost.reports.charts import chip_charts
from chipcost.reports.explorer_data import as_script, columnar, significant
from chipcost.reports.explorer_page import page_html
from chipcost.reports.fresh import freshness_data
from chipcost.reports.labels import MODEL_LABELS, model_label, offer_label, prose
from chipcost.reports.level_charts import level_chart
from chipcost.reports.period import MAX_WEEKS, ReportError, ReportUsageError
from chipcost.warehouse.freshness import freshness
from chipcost.warehouse.fx import newest_per_usd, unrated, unrated_of, unrated_offers
from chipcost.warehouse.history import daily_cheapest, daily_unrated
from chipcost.warehouse.offers import chosen_throughput, current_offers
from chipcost.warehouse.reader import open_reader

# The price as its provider states it, in stated_currency, per chip-hour and per instance-hour:
# the figure a converted price was converted from (OVHcloud's a10-45: 0.76 EUR, 0.819204 USD),
# the list price, before your discounts.
STATED = ("stated_price_per_chip_hour", "stated_price_per_hour")
# The columns each offer carries in the page, offers.json and offers.csv, in this order.
COLUMNS = (
    "chip",
    "memory_gb",
    "provider",
    "region",
    "zone",
    "instance_type",
    "chip_count",
    "pricing_model",
    "offer_label",
    "price_per_chip_hour",
    "price_per_hour",
    "upfront",  # the whole instance's upfront fee, where its term has one
    "source",
    "last_seen_at",
    "interruption",  # AWS spot only: the Spot Instance Advisor's frequency of interruption
    "estimate",  # what a price no public page gives rests on (the sample's estimates only)
    "sample",  # the bundled sample's price (the Download CSV's mark; the page's banner)
    # The host (vCPUs, memory and local disk, GB) where the source publishes it, else null.
    "vcpus",
    "ram_gb",
    "disk_gb",
    # After the host, so that the columns before it keep their places in offers.csv: why a
    # spot price is doubtful (not below its offer's on-demand price), as `prices` marks it '(!)'.
    "spot_doubt",
    # Then, for the same reason: the currency its provider states the price in (OVHcloud's
    # 0.76 EUR is 0.819204 USD at the ECB rate of its day), and the prices' own (US dollars
    # unless --currency; after your prices' columns): the file says what its numbers are in.
    "stated_currency",
    "currency",
    # After the currency, so that every column before it keeps its place: the price as its
    # provider states it (STATED).
    *STATED,
    # Last, so that every column before it keeps its place: whether the price is the GPU's
    # alone, its host billed beside it, as `prices` says (core.vocabulary.gpu_alone).
    "gpu_alone",
)
# Each current offer's price as stored, in the currency its provider states it in (the views
# read it in US dollars, price_history_usd), by HISTORY_KEY, which a load keeps one open row of
# (a run repeating an offer key is refused at validation). Rows loaded around that check (a
# test's) that disagree on a key's price state none of them, never one chosen at random.
_STATED = f"""
    SELECT {", ".join(HISTORY_KEY)},
        CASE WHEN min(per_chip) = max(per_chip) THEN min(per_chip) END AS {STATED[0]},
        CASE WHEN min(per_hour) = max(per_hour) THEN min(per_hour) END AS {STATED[1]}
    FROM (
        SELECT *, per_chip_hour(price_per_hour, chip_count) AS per_chip,
            price_per_hour AS per_hour
        FROM price_history WHERE valid_to IS NULL
    )
    GROUP BY ALL
"""
DEFAULT_MODEL = "llama-3-70b|inference"
DEFAULT_WEEKS = 12


def _gpu_alone() -> pl.Expr:
    """Whether an offer's price is the GPU's alone (core.vocabulary.gpu_alone): every offer
    of a GPU_ALONE source, and the instance types gpu_alone_types names of the others."""
    typed = [
        (pl.col("source") == source) & pl.col("instance_type").is_in(list(gpu_alone_types(source)))
        for source in GPU_ALONE_TYPES
    ]
    return pl.any_horizontal(pl.col("source").is_in(list(GPU_ALONE)), *typed)


@dataclass(frozen=True)
class Site:
    index: Path
    offers: int
    chips: int
    sample: bool
    unconverted: int = 0  # current offers no rate converts, listed apart under the table


def _read(
    db_path: Path | Warehouse,
    weeks: int,
    currency: str | None = None,
    list_prices: bool = False,
    stale_days: int = DEFAULT_STALE_DAYS,
) -> tuple[pl.DataFrame, pl.DataFrame, pl.DataFrame, dict]:
    con = open_reader(db_path)
    try:
        mine = for_read(con, currency, list_prices)
        offers = current_offers(con, mine.converting).with_columns(
            offer_label=offer_label(), gpu_alone=_gpu_alone()
        )
        offers = offers.join(
            frame_of(con.sql(_STATED)), on=HISTORY_KEY, how="left", maintain_order="left"
        )
        offers = mine.frame(offers)
        if "currency" not in offers.columns:  # your prices name it; list prices are in USD
            offers = offers.with_columns(currency=pl.lit(mine.currency, dtype=pl.String))
        throughput = chosen_throughput(con)
        # the prices dated by each source's last successful run, as every read dates them
        fresh = freshness(con, None, stale_days=stale_days)
        row = con.execute("SELECT max(observed_at), bool_or(sample) FROM runs").fetchall()[0]
        newest, sample = row
        today = datetime.now(UTC).date()
        until = min(newest.date(), today) if newest else today  # never a day to come
        since = until - timedelta(days=7 * weeks - 1)
        history = daily_cheapest(con, since=since, until=until)
        # the prices those days' charts leave out for want of a rate, each run of days named
        left = daily_unrated(con, since=since, until=until)
        answers = _answers(con, mine, stale_days)
        curve = _curve(con)
        rates = newest_per_usd(con)
        unconverted = unrated_offers(con) if unrated(con).count else []
        counting = _counting(con)
    finally:
        con.close()
    meta = {**freshness_data(fresh), "sample": bool(sample)}
    meta["head_to_head"] = answers
    meta["speed_curve"] = curve
    # What the prices are: the currency, and the lines saying which discounts and rates applied.
    meta["currency"] = mine.currency
    meta["yours"] = mine.notes(offers.to_dicts()) if mine.active else []
    meta["rates"] = _offered(rates, mine.currency)
    meta["per_hours"] = PER_HOURS  # the switch of the price columns: per hour, month, year
    # The current offers no ECB rate converts, listed apart in their own currency: in the
    # table they would be ranked, filtered and converted as if they were US dollars.
    meta["unconverted"] = [
        {**row, "price_per_chip_hour": significant(row["price_per_chip_hour"]),
         "day": str(row["day"]), "said": unconverted_words([row], why=False)}
        for row in unconverted
    ]  # fmt: skip
    meta["history_left_out"] = left_out_words(unrated_of(left), left)
    meta.update(counting)
    return offers, throughput, history.filter(pl.col("chip") != "unknown"), meta


def _counting(con) -> dict[str, int]:
    """What the page's first line says beside its count of offers, which counts each offer
    once (docs/warehouse.md: per_chip_prices without its region rows, as the offers are read):
    `region_rows`, the rows a region's cheapest spot zone has again, not counted; and
    `unknown_offers`, the current offers whose GPU names no chip chipcost knows, counted so
    but not in the table (`prices` and `export` count them)."""
    ((region_rows, unknown),) = con.execute(
        "SELECT count(*) FILTER (WHERE plan = 'region_cheapest'), "
        "count(*) FILTER (WHERE plan <> 'region_cheapest' AND chip = ?) FROM per_chip_prices",
        [UNKNOWN_CHIP],
    ).fetchall()
    return {"region_rows": region_rows, "unknown_offers": unknown}


def _offered(rates: dict[str, tuple[date, float]], currency: str) -> dict[str, dict]:
    """The currencies the page offers, each with its newest ECB rate (units per US dollar) and
    its day: those the warehouse holds a rate of, the prices' own currency always."""
    offered = {
        c: {"per_usd": significant(rate), "day": day.isoformat()}
        for c, (day, rate) in rates.items()
    }
    if currency not in offered:  # no rate to convert from it: only its own prices
        return {currency: {"per_usd": None, "day": None}}
    return offered


def _answers(con, mine: YourPrices, stale_days: int) -> list[dict]:
    """The article pairs answered as `chipcost compare` does (chipcost.reads.compare), on your
    discounts as compare takes them, as the weekly report shows them."""
    from chipcost.reads.articles import article_answers
    from chipcost.reports.data import answer_prices, section

    return section(
        "head-to-head",
        lambda: article_answers(con, stale_days, answer_prices(mine)),
        [],
    )


def _curve(con) -> list[dict]:
    """The figures the throughput-against-speed chart draws."""
    from chipcost.reads.articles import speed_curve
    from chipcost.reports.data import section

    return section("throughput against speed", lambda: speed_curve(con), [])


_VERSUS_HEADS = (
    "For", "Answer", "A: USD / M tokens", "B: USD / M tokens", "Figures (A; B)", "Caveats",
)  # fmt: skip


def _versus(answers: list[dict], curve: list[dict]) -> str:
    """The answers as a static table (escaped: provider text never becomes markup), after
    their two charts."""
    from chipcost.reports.versus_charts import cost_chart, speed_chart

    if not answers:
        return ""
    charts = f'<div class="versus-charts">{cost_chart(answers)}{speed_chart(curve)}</div>'
    rows = []
    for a in answers:
        question = f"{a['chip_a']} vs {a['chip_b']}: {a['model']} {a['workload']}"
        if a["answer"] is None:
            cells = [question, f"not answered: {a['why_not']}", "", "", "", ""]
        else:
            cells = [
                question,
                f"{a['answer']} ({model_label(a['pricing_model'], a['term'])}; "
                f"break-even: {break_even_words(a)})",
                cost_where(a, "a"),
                cost_where(a, "b"),
                f"{a['a_figure']}; {a['b_figure']}",
                a["caveats"] or "",
            ]
        # Escaped, a `command` set as code (prose), each cell named for a phone's card.
        rows.append(
            "<tr>"
            + "".join(
                f'<td data-label="{escape(h)}">{prose(str(c))}</td>'
                for h, c in zip(_VERSUS_HEADS, cells, strict=True)
            )
            + "</tr>"
        )
    head = "".join(f"<th>{h}</th>" for h in _VERSUS_HEADS)
    return (
        '<section id="versus"><h2>Is chip A cheaper than chip B?</h2><p class="meta">The '
        "articles' questions, per token, as <code>chipcost compare A B</code> answers them: "
        f"{PAIRING}, at the default speed ({DEFAULT_SPEED} tokens/s per user); each figure's "
        "kind says how far to trust it. The weekly report adds the range over the figures held."
        f"{prose(discounts_said(answers) + estimated_costs_note(answers))}</p>"
        f"{charts}"
        f'<div class="scroll"><table class="versus"><thead><tr>{head}</tr></thead><tbody>'
        f"{''.join(rows)}</tbody></table></div></section>"
    )


def offer_columns(offers: pl.DataFrame) -> tuple[str, ...]:
    """COLUMNS, and with your prices the list price kept and the discount applied before the
    currency."""
    extra = ("list_price_per_chip_hour_usd", "discount")
    at = COLUMNS.index("currency")
    return COLUMNS[:at] + tuple(c for c in extra if c in offers.columns) + COLUMNS[at:]


def site_data(offers: pl.DataFrame, throughput: pl.DataFrame, meta: dict) -> dict:
    """What offers.json (and offers.js, for the page) hold: offers and throughput as columns
    (chipcost.reports.explorer_data), with the facts the page says beside them."""
    rows = offers.with_columns(pl.col("last_seen_at").dt.strftime("%Y-%m-%dT%H:%M:%SZ"))
    columns = offer_columns(offers)
    return {
        "generator": f"chipcost {__version__}",
        **meta,
        "columns": list(columns),
        "count": offers.height,
        "offers": columnar(rows.select(columns)),
        # The page's first view: each chip's cheapest offer per pricing model, as the rows'
        # indexes, by the rule of `prices --by chip` (not re-made in the page's script).
        "cheapest": cheapest_per_model(
            offers.select(
                "chip", "price_per_chip_hour", "chip_count", "region", "pricing_model"
            ).to_dicts()
        ),
        "throughput": columnar(throughput, phrases={"source": "; "}),
        "model_labels": MODEL_LABELS,
        "default_model": DEFAULT_MODEL,
    }


def write_site(
    db_path: Path | Warehouse,
    out_dir: Path,
    weeks: int = DEFAULT_WEEKS,
    *,
    currency: str | None = None,
    list_prices: bool = False,
    stale_days: int | None = None,
) -> Site:
    """index.html, offers.js (its data), offers.json and offers.csv in out_dir; with your discounts
    ($CHIPCOST_DISCOUNTS unless list_prices) and currency applied to the offers; a source
    stale after `stale_days` without a success ($CHIPCOST_STALE_DAYS by default), as the reads
    judge it."""
    if not 1 <= weeks <= MAX_WEEKS:
        raise ReportUsageError(f"weeks {weeks}: give 1 to {MAX_WEEKS} weeks of price history")
    if stale_days is None:
        stale_days = environment().stale_days
    offers, throughput, history, meta = _read(db_path, weeks, currency, list_prices, stale_days)
    out_dir = Path(out_dir)
    if out_dir.exists() and not out_dir.is_dir():
        raise ReportError(f"{out_dir} is a file: give a directory for the price explorer")
    try:
        out_dir.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        raise ReportError(f"cannot create {out_dir}: {exc.strerror}") from None
    data = site_data(offers, throughput, meta)
    index = out_dir / "index.html"
    table = offers.select(offer_columns(offers)).with_columns(
        pl.col("last_seen_at").dt.strftime("%Y-%m-%dT%H:%M:%SZ")
    )
    figures = "".join(
        f'<figure data-chip="{escape(chip, quote=True)}"><figcaption>{escape(chip)}</figcaption>'
        f"{svg}</figure>"
        for chip, svg in chip_charts(history, draw=level_chart).items()
    )
    versus = _versus(data.get("head_to_head") or [], data.get("speed_curve") or [])
    # The page draws neither the answers nor the speed curve (they are in it as HTML).
    page_data = {k: v for k, v in data.items() if k not in ("head_to_head", "speed_curve")}
    paths = [index, out_dir / "offers.js", out_dir / "offers.json", out_dir / "offers.csv"]
    with written_whole(paths) as (page_file, script_file, json_file, csv_file):
        page_file.write_text(page_html(data, figures, versus), encoding="utf-8")
        script_file.write_text(as_script(page_data), encoding="utf-8")
        json_file.write_text(json.dumps(data, separators=(",", ":")) + "\n", encoding="utf-8")
        csv_file.write_text(spreadsheet_safe(table).write_csv(), encoding="utf-8")
    return Site(
        index, offers.height, offers["chip"].n_unique(), data["sample"], len(data["unconverted"])
    )
