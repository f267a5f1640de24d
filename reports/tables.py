"""The report's great-tables: what changed, offers in and out, cheapest now, cost, health."""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from html import escape

import polars as pl
from great_tables import GT, loc, nanoplot_options, style

from chipcost.core.vocabulary import BUCKET_LABELS
from chipcost.reports.labels import (
    BACK,
    holds_words,
    jump_mark,
    marked,
    model_label,
    money,
    tenths_pct,
)
from chipcost.transform.cost import cost_text
from chipcost.transform.tokens import money_sign
from chipcost.warehouse.snapshot import CANNOT_HOLD

# Cheaper is good news for the people renting: green down, red up.
DOWN, UP, STALE = "#15803d", "#b91c1c", "#fef3c7"
JUMP = "#b45309"  # a move out and back: neither cheaper nor dearer, but worth a look
# What marks a move out and back (a glitch: jump_*; a price back where it began: back and its
# range, moves.swing_words): kept for the marks, never shown as columns.
JUMP_COLUMNS = ["jump_back", "jump_factor", "jump_up", "back", "swing_range"]
SMALL = "font-size:11px;color:#6b7280"
# Sparklines: values show on hover only (static labels crowd a 130px plot); the e-mail has
# none, since most mail clients do not draw inline SVG.
TREND = nanoplot_options(
    data_line_type="straight",  # prices step; a smoothed curve would invent overshoots
    data_line_stroke_color="#2563eb",
    data_line_stroke_width=6,
    data_point_radius=7,
    data_point_fill_color="#2563eb",
    data_point_stroke_color="#ffffff",
    show_data_area=False,
    show_vertical_guides=False,
    interactive_data_values=True,
    y_val_fmt_fn=lambda v: f"${v:,.4f}",
    y_axis_fmt_fn=lambda v: f"${v:,.4f}",
)


# great-tables names each column heading and row stub by an id (the column's name,
# `stub-1`, ...) and lists them in every cell's `headers`: a page of several tables repeats
# the ids (`spot` is a column and a section), and its `scope` attributes already tie each
# cell to its headings.
_HEADING_ID = re.compile(r'(<th\b[^>]*?) id="[^"]*"')
_CELL_HEADERS = re.compile(r'(<td\b[^>]*?) headers="[^"]*"')


def table_html(gt: GT) -> str:
    """The table's HTML for a page of many: no id of great-tables' on a heading or a stub,
    no `headers` list on a cell (the headings' `scope` says which cells they head)."""
    return _CELL_HEADERS.sub(r"\1", _HEADING_ID.sub(r"\1", gt.as_raw_html()))


def styled(gt: GT) -> GT:
    """The house look: compact, full width, system font."""
    return gt.tab_options(
        table_font_size="13px",
        table_width="100%",
        column_labels_font_weight="bold",
        row_group_font_weight="bold",
        row_group_background_color="#f3f4f6",
        data_row_padding="4px",
    ).opt_table_font(stack="system-ui")


def _day(column: str) -> pl.Expr:
    return pl.col(column).dt.strftime("%Y-%m-%d")


# A move's prices as alike_moves says them (a range where its offers' prices differ).
SAID_PRICES = ["was", "now", "change"]


def coloured(gt: GT, columns: list[str]) -> GT:
    """Price moves in green (cheaper) or red (dearer)."""
    for colour, direction in ((DOWN, pl.col("change_pct") < 0), (UP, pl.col("change_pct") > 0)):
        gt = gt.tab_style(style.text(color=colour, weight="bold"), loc.body(columns, direction))
    return gt


def marked_jumps(
    gt: GT, frame: pl.DataFrame, column: str = "change_pct", html: Callable[[str], str] = escape
) -> GT:
    """'×8.0 and back' instead of the net 0.0% of a price that went out and came back, and
    BACK ('back') for a price that moved and ended where it began (its range said beside it)."""
    if "back" in frame.columns:
        backs = frame.with_row_index("i").filter(pl.col("back"))["i"].to_list()
        if backs:
            gt = gt.fmt(lambda _: html(BACK), columns=column, rows=backs)
            gt = gt.tab_style(style.text(weight="bold"), loc.body(column, rows=backs))
    if "jump_back" not in frame.columns:
        return gt
    rows = frame.with_row_index("i").filter(pl.col("jump_back"))
    for row in rows.iter_rows(named=True):
        mark = jump_mark(row["jump_factor"], row["jump_up"], row["change_pct"])
        gt = gt.fmt(lambda _, mark=mark: html(mark), columns=column, rows=[row["i"]])
    if rows.height:
        bold = style.text(color=JUMP, weight="bold")
        gt = gt.tab_style(bold, loc.body(column, rows=rows["i"].to_list()))
    return gt


# The parts of a sentence never broken across lines: a price or range, a day.
_WHOLE = re.compile(r"\$[\d,.]+(?:\u00a0est\.)?(?:–\$[\d,.]+(?:\u00a0est\.)?)?|\d{4}-\d{2}-\d{2}")


def whole_parts(text: str) -> str:
    """`text` as HTML that may break between its words, never inside a price, a range of
    prices or a day ('back at $1.3900 (low $1.1900 on 2026-11-28, ...)')."""
    said, at = [], 0
    for found in _WHOLE.finditer(text):
        said += [escape(text[at : found.start()]), whole(found.group())]
        at = found.end()
    return "".join([*said, escape(text[at:])])


def swing_cell(text: str) -> str:
    """A price's range on its way back (moves.swing_words) in a cell kept on one line: it may
    wrap between its words, its prices and days whole."""
    return f"<span style='white-space:normal'>{whole_parts(text)}</span>"


def changes_table(moves: pl.DataFrame) -> GT:
    """Moved offers by chip: old and new per-chip price, change coloured, daily sparkline."""
    # A price back where it began: its range where the change would say +$0.0000.
    swung = (
        {"change": pl.when(pl.col("back")).then(pl.col("swing_range")).otherwise(pl.col("change"))}
        if "swing_range" in moves.columns
        else {}
    )
    frame = moves.with_columns(
        when=pl.when(pl.col("changes") > 1)
        .then(pl.concat_str([_day("changed_at"), pl.lit(" ("), pl.col("changes"), pl.lit("×)")]))
        .otherwise(_day("changed_at")),
        chip=_glitches_apart(moves),
        **swung,
    ).select(
        "chip", "where", "instance_type", "offer", *SAID_PRICES, "change_pct", "when", "trend",
        *[c for c in JUMP_COLUMNS if c in moves.columns],
    )  # fmt: skip
    gt = GT(frame, groupname_col="chip").cols_label(
        where="Where",
        instance_type="Instance",
        offer="Pricing",
        was="Was",
        now="Now",
        change="Change",
        change_pct="%",
        when="Changed",
        trend="Daily price",
    )
    gt = (
        gt.fmt(tenths_pct, columns="change_pct")
        .cols_align("right", columns=SAID_PRICES)
        .tab_spanner("USD per chip-hour", [*SAID_PRICES, "change_pct"])
        .fmt_nanoplot("trend", plot_type="line", options=TREND)
        .sub_missing("trend", missing_text="one day only")
    )
    # The widest table: where it needs room (the report page's .parts rule), where, the
    # instance, when and a jump's "×8.0 and back" wrap between their parts, never inside a code.
    gt = marked_jumps(gt, frame, html=lambda mark: parts(mark, " "))
    if swung:
        backs = frame.with_row_index("i").filter(pl.col("back"))["i"].to_list()
        if backs:
            gt = gt.fmt(swing_cell, columns="change", rows=backs)
    gt = gt.cols_hide([c for c in JUMP_COLUMNS if c in frame.columns])
    gt = gt.fmt(lambda v: parts(v, " · "), columns="where").fmt(lambda v: parts(v, " "), "when")
    gt = gt.fmt(lambda v: parts(v, " ("), columns="instance_type")  # "(2 offers)" under it
    # Each price, range and change whole: at 1280 px a range broke after its dash.
    kept = [*SAID_PRICES, "change_pct"]
    return styled(nowrap(coloured(gt, ["change", "change_pct"]), kept))


def whole(text: str) -> str:
    """A price, or a range of prices ('$0.4264–$1.0301'), as HTML no line breaks inside: a
    browser would break a range after its dash, and a price from its 'est.'."""
    return f"<span style='white-space:nowrap'>{escape(text)}</span>"


def _glitches_apart(moves: pl.DataFrame) -> pl.Expr:
    """The row's group: its chip, or for a jump out and back a group of its own after the
    real moves ('H100-SXM, jumped out and back'), where the rows place it (moves.with_jumps):
    a table grouped by chip lists a chip's rows together, and put the glitch among them."""
    if "jump_back" not in moves.columns:
        return pl.col("chip")
    apart = pl.col("chip") + pl.lit(", jumped out and back (likely a data glitch)")
    return pl.when(pl.col("jump_back")).then(apart).otherwise(pl.col("chip"))


def nowrap(gt: GT, columns: list[str]) -> GT:
    """Keep short codes (regions, instance types, dates) on one line."""
    return gt.tab_style(style.css("white-space: nowrap"), loc.body(columns))


def parts(text: str, separator: str) -> str:
    """'aws · ap-northeast-1 · ap-northeast-1d' as HTML that may break after a separator, never
    inside a code (a browser would break a region at its hyphens), and only where the page's
    CSS lets `.parts` wrap."""
    spans = (f"<span>{escape(p)}</span>" for p in str(text).split(separator))
    return f'<span class="parts">{escape(separator).join(spans)}</span>'


def offers_table(offers: pl.DataFrame, *, price: str, day: str) -> GT:
    """New or withdrawn offers, grouped by chip, with their (last) per-chip price, marked as
    `prices` marks it: 'est.' (an estimate), '(!)' (a doubtful spot price)."""
    marks = [
        (pl.col(c) if c in offers.columns else pl.lit(None, pl.String)).alias(c)
        for c in ("estimate", "spot_doubt")
    ]
    shown = pl.struct(pl.col(price).alias("price"), *marks).map_elements(
        lambda r: marked(money(r["price"]), r["estimate"], r["spot_doubt"]),
        return_dtype=pl.String,
    )
    frame = offers.with_columns(day=_day("changed_at"), **{price: shown}).select(
        "chip", "where", "instance_type", "offer", price, "day"
    )
    gt = GT(frame, groupname_col="chip").cols_label(
        where="Where", instance_type="Instance", offer="Pricing", day=day
    )
    gt = gt.cols_label(**{price: "USD per chip-hour"}).cols_align("right", columns=price)
    return styled(nowrap(gt, ["where", "instance_type", "day", price]))


def price_text(price: float, currency: str = "USD") -> str:
    """A per-chip price as the tables print it: '$6.8800', or 'EUR 6.3125'."""
    return money(price) if currency == "USD" else f"{money_sign(currency)}{price:,.4f}"


def _price_cell(cell: dict | None, currency: str = "USD", compact: bool = False) -> str:
    """'$6.8800' over 'aws · us-east-1 · p5.48xlarge' (and the commitment's terms; your
    discount where one applied); `compact`, over where only."""
    if cell is None:
        return "—"
    if compact:
        detail = escape(cell["where"])
    else:
        detail = escape(f"{cell['where']} · {cell['instance_type']}")
        if cell["bucket"].startswith("commit"):
            detail += f"<br>{escape(cell['offer'])}"
        if cell.get("discount"):
            detail += f"<br>your discount {escape(cell['discount'])}"
    price = price_text(cell["price_per_chip_hour"], currency)
    shown = marked(price, cell.get("estimate"), cell.get("spot_doubt"))
    return f"<b style='white-space:nowrap'>{shown}</b><br><span style='{SMALL}'>{detail}</span>"


def cheapest_table(
    cheapest: pl.DataFrame,
    currency: str = "USD",
    buckets: Sequence[str] = tuple(BUCKET_LABELS),
    *,
    compact: bool = False,
) -> GT:
    """One row per chip, one column per pricing model of `buckets` present, the cheapest
    per-chip price and where; `compact` (the e-mail, where every cell carries inline CSS):
    the price and where only. The page's and the e-mail's table."""
    cheapest = cheapest.filter(pl.col("bucket").is_in(list(buckets)))
    wide = cheapest.select("chip").unique().sort("chip")
    present = [b for b in buckets if b in set(cheapest["bucket"].to_list())]
    fields: list = ["price_per_chip_hour", "where", "instance_type", "offer", "bucket"]
    for optional in ("discount", "estimate", "spot_doubt"):  # "": none; null reads as missing
        if optional in cheapest.columns:
            fields.append(pl.col(optional).fill_null(""))
    for bucket in present:
        cells = cheapest.filter(pl.col("bucket") == bucket).select(
            "chip", pl.struct(*fields).alias(bucket)
        )
        wide = wide.join(cells, on="chip", how="left")
    gt = GT(wide, rowname_col="chip").cols_label(**{b: BUCKET_LABELS[b] for b in present})
    gt = gt.fmt(lambda cell: _price_cell(cell, currency, compact), columns=present)
    gt = gt.cols_align("left", columns=present)
    return styled(gt.tab_stubhead("Chip"))


def cost_table(
    costs: pl.DataFrame, rows: int = 3, currency: str = "USD", *, compact: bool = False
) -> GT:
    """Per model and workload, one row: its `rows` cheapest chips per million tokens, each
    with where, how and the throughput figure's kind and source (`compact`, the e-mail's:
    without its tokens/s); chips whose offers hold the model come before those that do not.
    The page's and the e-mail's table."""
    group = pl.concat_str([pl.col("model"), pl.lit(", "), pl.col("workload")])
    ranked = (
        costs.with_columns(group=group)
        .sort("group", CANNOT_HOLD, "usd_per_million_tokens")
        .group_by("group", maintain_order=True)
        .head(rows)
        .with_columns(rank=pl.int_range(pl.len()).over("group") + 1)
    )
    cell = pl.struct(
        "chip", "usd_per_million_tokens", "holds", "where", "instance_type", "offer",
        "tokens_per_second_per_chip", "throughput_kind", "throughput_source", *_basis(costs),
    )  # fmt: skip
    wide = ranked.select("group", "rank", cell.alias("cell")).pivot(
        on="rank", index="group", values="cell", sort_columns=True
    )
    places = [c for c in wide.columns if c != "group"]
    labels = {c: "Cheapest" if c == "1" else f"#{c}" for c in places}
    gt = GT(wide, rowname_col="group").cols_label(**labels).tab_stubhead("Model, workload")
    gt = gt.fmt(lambda cell: _cost_cell(cell, currency, compact), columns=places)
    gt = gt.cols_align("left", columns=places)
    return styled(gt)


def _basis(costs: pl.DataFrame) -> list[pl.Expr]:
    """A figure's basis and range as `cost` words them (reports/data.py _basis):
    `throughput_figure_kind` ('calibrated', 'derived', ...) and `throughput_range`
    ('7,541-41,643'), each '' where there is none (great-tables reads a null in a cell's
    struct as a missing cell)."""
    if "throughput_figure_kind" not in costs.columns:
        return [pl.lit("").alias("throughput_figure_kind"), pl.lit("").alias("throughput_range")]
    ranged = pl.struct(low="throughput_range_low", high="throughput_range_high").map_elements(
        lambda r: "" if None in r.values() else f"{r['low']:,.0f}-{r['high']:,.0f}",
        return_dtype=pl.String,
    )
    return [
        pl.col("throughput_figure_kind").fill_null(""),
        ranged.fill_null("").alias("throughput_range"),
    ]


def _cost_cell(cell: dict | None, currency: str = "USD", compact: bool = False) -> str:
    """'H200 $0.21/M' over 'aws · us-east-1 · p5e.48xlarge, on demand' and '4,156 tok/s per
    chip, benchmark: MLPerf Inference v5.1 Datacenter, closed division, llama3.1-70b' (the
    source's lead phrase whole; `chipcost cost` prints all of it), a derived figure with its
    range and its basis as `cost` words them ('18,410 (7,541-41,643) tok/s per chip,
    calibrated: chipcost roofline'); a chip whose instance does not hold the model says how
    many it needs, in words."""
    if not cell or cell.get("chip") is None:
        return ""
    cost = escape(cost_text(cell["usd_per_million_tokens"], currency))
    holds = "" if cell["holds"] == "yes" else f"<br>{escape(holds_words(cell['holds']))}"
    place = f"{escape(cell['where'])} · {escape(cell['instance_type'])}, {escape(cell['offer'])}"
    source = lead_phrase(cell["throughput_source"] or "")
    # the figure's basis, in the e-mail too, as `cost` words it: a derived figure is no
    # measurement, and one calibrated on the chip's own measurements says so
    kind = cell.get("throughput_figure_kind") or cell["throughput_kind"] or ""
    said = f"{escape(kind)}: {escape(source)}"
    if compact:
        return (
            f"<b>{escape(cell['chip'])}</b> <span style='white-space:nowrap'>{cost}</span> "
            f"per million tokens<br><span style='{SMALL}'>{place}{holds}<br>{said}</span>"
        )
    speed = cell["tokens_per_second_per_chip"]
    # a derived figure's range, as `cost` gives it beside the figure: '18,410 (7,541-41,643)'
    ranged = f" ({cell['throughput_range']})" if cell.get("throughput_range") else ""
    figure = f"{speed:,.0f}{ranged} tok/s per chip, " if speed is not None else ""
    return (  # '/M': per million tokens, as the answers write a cost (the heading has no unit)
        f"<b>{escape(cell['chip'])}</b> <span style='white-space:nowrap'>{cost}/M</span>"
        f"<span style='{SMALL}'>{holds}<br>{place}<br>{figure}{said}</span>"
    )


def lead_phrase(text: str) -> str:
    """A source's lead phrase, whole: up to its first ':', ' (' or ';' ('chipcost roofline',
    'MLPerf Inference v5.1 Datacenter, closed division, llama3.1-8b')."""
    return re.split(r": | \(|; ", text, maxsplit=1)[0]


def index_table(index: pl.DataFrame) -> GT:
    """Per chip: the index level at the period's end, its move over the period, providers."""
    frame = index.select(
        "chip",
        "level",
        "change",
        pl.concat_str(
            [
                pl.col("constituents").cast(pl.String),
                pl.when(pl.col("constituents_changed"))
                .then(pl.lit(" (changed)"))
                .otherwise(pl.lit("")),
            ]
        ).alias("providers"),
        # A line for the chips that moved; "flat" says the rest in four letters.
        *(
            [pl.when(pl.col("change").abs() >= 0.0005).then(pl.col("trend")).alias("trend")]
            if "trend" in index.columns
            else []
        ),
    )
    gt = GT(frame).cols_label(
        chip="Chip",
        level="USD per chip-hour",
        change="Move in the period",
        providers="Providers",
        trend="Each day",
    )
    gt = gt.fmt_currency(columns="level", decimals=4).fmt_percent(
        columns="change", decimals=1, force_sign=True
    )
    if "trend" in frame.columns:
        gt = gt.fmt_nanoplot("trend", plot_type="line", options=TREND).sub_missing(
            "trend", missing_text="flat"
        )
    # a chip's name whole (a phone broke "RTX-5090" after its hyphen): the table still fits
    # a 390 px phone (tests/reports/test_report_glance.py)
    return styled(nowrap(gt, ["chip"]))


def head_to_head_table(answers: pl.DataFrame) -> GT:
    """Per model and workload, each article pair: the answer, both costs and figures."""
    from chipcost.reports.answers import break_even_words, cost_where
    from chipcost.reports.labels import plain
    from chipcost.transform.change_words import change_words

    def ranged(row: dict) -> str:
        best, worst = row["best_case_change_pct"], row["worst_case_change_pct"]
        if row["answer"] is None or row["answer"].startswith("cannot say"):
            return ""
        if best is None or worst is None:
            return "one published figure each at this point"
        return f"{change_words(best / 100)} to {change_words(worst / 100)}"

    frame = answers.with_columns(
        group=pl.concat_str([pl.col("model"), pl.lit(", "), pl.col("workload")]),
        pricing=pl.struct("pricing_model", "term").map_elements(
            lambda row: model_label(row["pricing_model"], row["term"]) if row["term"] else "",
            return_dtype=pl.String,
        ),
        answer=pl.coalesce(
            pl.col("answer").map_elements(plain, return_dtype=pl.String),
            pl.lit("not answered: ") + pl.col("why_not"),
        ),
        **{
            f"{side}_cost": pl.struct(
                f"{side}_usd_per_million_tokens",
                f"{side}_where",
                f"{side}_discount",
                f"{side}_estimate",
            ).map_elements(lambda row, side=side: cost_where(row, side), return_dtype=pl.String)
            for side in "ab"
        },
        range=pl.struct("answer", "best_case_change_pct", "worst_case_change_pct").map_elements(
            ranged, return_dtype=pl.String
        ),
        needs=pl.struct(
            "chip_a",
            "chip_b",
            "break_even_for",
            "break_even_tokens_per_second_per_chip",
            "break_even_at_least",
            "break_even_share_pct",
            "break_even_share_of",
        ).map_elements(break_even_words, return_dtype=pl.String),
    )
    wanted = ["group", "answer", "pricing", "needs", "a_cost", "b_cost", "a_figure", "b_figure"]
    frame = frame.select(*wanted, "range", "caveats")
    labels = {
        "answer": "Answer",
        "pricing": "Pricing",
        "needs": "Break-even: who must do what (share of the figure each names)",
        "a_cost": "A: USD per million tokens",
        "b_cost": "B: USD per million tokens",
        "a_figure": "A's figure",
        "b_figure": "B's figure",
        "range": "Range over the figures held",
        "caveats": "Caveats",
    }
    gt = GT(frame, groupname_col="group").cols_label(**labels).sub_missing(missing_text="")
    return styled(nowrap(gt, ["pricing"]))


# How much of a failure's message the health table shows: its reason, not its whole story
# (the collect summary and the source_runs table keep every word).
FAILURE_CHARS = 120


def shortened(text: str | None, width: int = FAILURE_CHARS) -> str | None:
    """`text` cut at a word to `width` characters, '…' where it was cut."""
    if text is None or len(text) <= width:
        return text
    cut = text[: width - 1]
    return (cut.rsplit(" ", 1)[0] if " " in cut else cut).rstrip(" ,;:") + "…"


def failure_reason(message: str | None) -> str | None:
    """Why a run failed, shortened: where the collection found the provider's format changed
    (its drift notes follow the error, pipeline/collect.py), what changed ('format drift
    (hyperbolic, ...): new HourlyRate, Interconnect; missing Price'), else the error."""
    from chipcost.extract._formats import DRIFT

    found = -1 if message is None else message.find(DRIFT)
    return shortened(message[found:] if found > 0 else message)


def health_table(health: pl.DataFrame) -> GT:
    """Per source: last success, runs, rows loaded and rejected, stale or not, what its last
    run said, and its last failure in the period (the day and failure_reason): a week
    of '6 of 7 ok' whose last run succeeded still says which run failed and why."""
    failure = pl.when(pl.col("last_failed_at").is_not_null()).then(
        pl.concat_str(
            [
                pl.col("last_failed_at").dt.strftime("%Y-%m-%d"),
                pl.lit(": "),
                pl.col("last_failure").map_elements(failure_reason, return_dtype=pl.String),
            ],
            ignore_nulls=True,
        )
    )
    frame = health.with_columns(
        last_success=pl.col("last_success").dt.strftime("%Y-%m-%d %H:%M").fill_null("never"),
        runs=pl.concat_str([pl.col("ok_runs"), pl.lit(" of "), pl.col("runs"), pl.lit(" ok")]),
        state=pl.when(pl.col("stale")).then(pl.lit("stale")).otherwise(pl.lit("fresh")),
        last=pl.concat_str([pl.col("last_status"), pl.lit(": "), pl.col("last_message")]),
        failure=failure.fill_null(""),
    ).select(
        "source",
        "provider",
        "state",
        "last_success",
        "runs",
        "rows_loaded",
        "rows_rejected",
        "last",
        "failure",
    )
    gt = GT(frame).cols_label(
        source="Source",
        provider="Provider",
        state="State",
        last_success="Last success (UTC)",
        runs="Runs",
        rows_loaded="Rows loaded",
        rows_rejected="Rows rejected",
        last="Last run said",
        failure="Last failure in the period (UTC day: why)",
    )
    gt = gt.fmt_integer(columns=["rows_loaded", "rows_rejected"])
    gt = gt.tab_style(style.fill(color=STALE), loc.body(rows=pl.col("state") == "stale"))
    return styled(gt)


def disagreements_table(frame: pl.DataFrame) -> GT:
    """Offers two sources price differently: low and high price, which source, spread."""
    rows = frame.select(
        "chip",
        "where",
        "instance_type",
        "offer",
        "low_price_per_hour",
        "low_source",
        "high_price_per_hour",
        "high_source",
        "spread_pct",
    )
    gt = GT(rows, groupname_col="chip").cols_label(
        where="Where",
        instance_type="Instance",
        offer="Pricing",
        low_price_per_hour="Low",
        low_source="from",
        high_price_per_hour="High",
        high_source="from",
        spread_pct="Spread",
    )
    gt = gt.fmt_currency(columns=["low_price_per_hour", "high_price_per_hour"], decimals=4)
    gt = gt.fmt_percent(columns="spread_pct", decimals=1, scale_values=False)
    return styled(
        gt.tab_spanner(
            "USD per instance-hour",
            ["low_price_per_hour", "low_source", "high_price_per_hour", "high_source"],
        )
    )
