"""The explorer's page: its frame, filters and legend; the offers come from offers.js beside it
and reports/assets/explorer.js draws them."""

from __future__ import annotations

from html import escape
from importlib import resources

from chipcost.core.commands import RATES, UNKNOWN_OFFERS
from chipcost.core.counting import counted
from chipcost.core.vocabulary import ALONE_MARK, GPU_ALONE, GPU_ALONE_TYPES, PRICING_MODEL_TABLE
from chipcost.reports.fresh import marked
from chipcost.reports.labels import prose
from chipcost.reports.text import SAMPLE_NOTE
from chipcost.warehouse.fx import MAX_RATE_AGE_DAYS


def _asset(name: str) -> str:
    return resources.files("chipcost.reports").joinpath("assets", name).read_text("utf-8")


def _filters(currency: str) -> str:
    selects = [("chip", "Chip"), ("provider", "Provider"), ("region", "Region")]
    selects.append(("pricing_model", "Pricing model"))
    # What the table shows: each chip's cheapest offer (the page opens on it, as plain
    # `chipcost prices` does), or every offer.
    parts = [
        '<label>Show<select id="view"><option value="chip">each chip\'s cheapest offer</option>'
        '<option value="offer">every offer</option></select></label>'
    ]
    parts += [
        f'<label>{label}<select id="{key}"><option value="">all</option></select></label>'
        for key, label in selects
    ]
    parts += [
        '<label>GB / chip ≥<input id="memory" type="number" min="0" step="8"></label>',
        # One caption, "≤" kept beside its unit (a label's texts are stacked items each).
        f'<label><span class="caption"><span id="price-label">{escape(currency)} / chip-hour'
        '</span> ≤</span><input id="price" type="number" min="0" step="0.1"></label>',
        '<label>Search<input id="search" type="search" placeholder="instance, source…"></label>',
        '<label>Cost per token for<select id="model"></select></label>',
        # Filled by the script from offers.js: the hours of each unit, the currencies with a rate.
        '<label>Prices per<select id="per"></select></label>',
        '<label>Currency<select id="currency"></select></label>',
        '<button type="reset">Reset</button>',
    ]
    return f'<form id="filters" onsubmit="return false">{"".join(parts)}</form>'


def _toolbar() -> str:
    """The count and the order shown, the column picker (filled by the script), the CSV."""
    return (
        '<div class="toolbar"><p id="count"></p><p id="order"></p>'
        '<details id="picker"><summary>Columns</summary><fieldset id="columns">'
        "<legend>Columns shown</legend></fieldset></details>"
        '<button type="button" id="download">Download CSV</button></div>'
    )


def _priced_alone() -> str:
    """'cudo, daytona, modal, tensordock, and gcp's N1 GPUs': who prices the GPU alone."""
    some = [f"{source}'s {said}" for source, (said, *_) in GPU_ALONE_TYPES.items()]
    return f"{', '.join(GPU_ALONE)}, and {', '.join(some)}" if some else ", ".join(GPU_ALONE)


def legend() -> str:
    """The words the table uses that a visitor may not know, each said once."""
    models = "".join(
        f"<li><b>{escape(m.label)}</b>: {escape(m.meaning or m.label)}</li>"
        for m in PRICING_MODEL_TABLE
    )
    return (
        '<details id="legend" open><summary>What the marks and words mean</summary><dl>'
        f"<dt>Pricing</dt><dd><ul>{models}</ul></dd>"
        "<dt>(needs N)</dt><dd>The instance cannot hold the chosen model (its weights for "
        "inference, its training state for training): N such instances would. Its cost is grey "
        "and sorts after the offers that can hold it.</dd>"
        "<dt>(estimate)</dt><dd>No public page gives this price: it is an estimate; hover it "
        "for what it rests on.</dd>"
        "<dt>(derived)</dt><dd>Beside a cost per token: the throughput figure it rests on was "
        "derived by chipcost from other figures, not measured or published ((estimate): its "
        "author's estimate); hover it for the figure.</dd>"
        "<dt>interruption &lt;5% … &gt;20%</dt><dd>AWS spot only: the Spot Instance Advisor's "
        "frequency of interruption, how often AWS took back spot capacity of that instance "
        "type in that region over the last month (Linux). Other providers publish none.</dd>"
        "<dt>(!)</dt><dd>Beside a spot price's pricing: it is not below its offer's on-demand "
        "price, so no discount (stale or mislabelled at the source, as <code>chipcost "
        "prices</code> marks it); hover it for why.</dd>"
        f"<dt>{escape(ALONE_MARK.strip())}</dt><dd>Beside an offer's pricing: its price is the "
        "GPU's alone, the host's vCPUs, memory and disk billed beside it "
        f"({escape(_priced_alone())}), so an instance costs more than shown, as "
        "<code>chipcost prices</code> says.</dd>"
        "<dt>per chip-hour</dt><dd>The instance's price an hour divided by its chips (a slice "
        "of a GPU counts as its fraction: 0.125 of an L4).</dd>"
        "<dt>per M tokens</dt><dd>Per chip-hour ÷ (tokens/s per chip × 3600) × 10⁶, with the "
        "throughput figure chipcost picks for the chip and model; hover a cost for it.</dd>"
        "</dl></details>"
    )


def _contents(with_versus: bool) -> str:
    """Links to the page's parts from its top: on a phone the comparison starts after every
    offer's card (18,337 px down a 29,336 px page on 697f5e5, with no way there but scrolling)."""
    # "Every offer" opens the table of every offer, of every pricing model (the page's script
    # keeps the other filters and scrolls to it).
    parts = [("view=offer&pricing_model=", "Every offer")]
    if with_versus:
        parts.append(("versus", "Is chip A cheaper than chip B?"))
    parts.append(("history", "Price history"))
    links = " · ".join(f'<a href="#{escape(key)}">{escape(title)}</a>' for key, title in parts)
    return f'<nav class="contents" aria-label="On this page">{links}</nav>'


def _unconverted(rows: list[dict]) -> str:
    """The offers no ECB rate converts, apart from the table and each marked, in its own
    currency: in the table they would be sorted, filtered and converted as US dollars."""
    if not rows:
        return ""
    items = "".join(f"<li><b>no rate</b>: {escape(row['said'])}</li>" for row in rows)
    return (
        '<section id="unconverted"><h2>Offers not in the table: no exchange rate</h2>'
        f'<p class="meta">{len(rows)} current offer{"s" if len(rows) != 1 else ""} in their '
        f"own currency, which no ECB rate within {MAX_RATE_AGE_DAYS} days of their day "
        f"converts to US dollars; <code>{escape(RATES)}</code> fetches the rates.</p>"
        f"<ul>{items}</ul></section>"
    )


def _left_out(said: str) -> str:
    """The prices the charts leave out of some days for want of an exchange rate, and those
    days ('' for none): as the report and `chipcost history` say them."""
    if not said:
        return ""
    return f'<p class="meta" id="history-left-out"><b>Not in these charts</b>: {escape(said)}.</p>'


def _freshness(lines: list[str]) -> str:
    """The sources whose latest attempt failed, dated ahead of the clock or stale, a line each
    under the page's first (chipcost.reports.fresh): '' where none is."""
    if not lines:
        return ""
    said = "".join(
        f"<li><b>{escape(head)}</b>{prose(rest)}</li>"
        for head, rest in (marked(line) for line in lines)
    )
    return f'<ul class="meta" id="freshness">{said}</ul>'


def _counting(data: dict) -> str:
    """What the count of offers counts, as every count of offers does (docs/warehouse.md):
    each offer once, a spot zone not again as its region's cheapest; and the offers of GPUs
    no known chip is named for, not in the table (`prices` and `export` count them). '' when
    the warehouse holds neither."""
    said = []
    if data.get("region_rows"):
        said.append("each spot zone once, not again as its region's cheapest")
    if unknown := data.get("unknown_offers"):
        said.append(
            f"not shown: {counted(unknown, 'offer')} whose GPU names no chip chipcost knows, "
            f"which <code>{escape(UNKNOWN_OFFERS)}</code> lists"
        )
    return f" ({'; '.join(said)})" if said else ""


def page_html(data: dict, figures: str, versus: str) -> str:
    """The page, without the data: offers.js beside it holds that."""
    offers = data["offers"]
    chips = len(offers["chip"]["dictionary"])
    providers = len(offers["provider"]["dictionary"])
    banner = f'<div class="sample"><b>{escape(SAMPLE_NOTE)}</b></div>' if data["sample"] else ""
    currency = data.get("currency") or "USD"
    yours = "".join(
        f'<p class="meta"><b>Your prices</b>: {escape(line)}.</p>'
        for line in data.get("yours") or []
    )
    said = data.get("freshness") or [f"prices as of {data['as_of']}"]
    if data["count"]:
        held = (
            f"{counted(data['count'], 'current offer')} of "
            f"{counted(chips, 'chip')} from "
            f"{counted(providers, 'provider')}{_counting(data)}, "
            f"{prose(said[0])}"
        )
    else:  # as the command line says it: the way to fill the page
        held = "The warehouse has no current prices yet: run <code>chipcost collect</code>"
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>Accelerator prices: every offer per chip</title><style>{_asset('explorer.css')}"
        f"</style></head><body><main><h1>Accelerator prices per chip</h1>"
        f'<p class="meta">{held}; made by '
        f"{escape(data['generator'])}. Per chip-hour is the instance price divided by its chips "
        "(commitments: upfront fees spread over the term); a month is "
        f"{data['per_hours']['month']:,} hours.</p>"
        f"{_freshness(said[1:])}"
        f'<p class="meta" id="money">Prices in {escape(currency)}.</p>'
        f"{_contents(bool(versus))}{yours}{banner}{_filters(currency)}{_toolbar()}"
        # The marks the script writes into the table's cells, as the command line writes them.
        f'<div class="scroll"><table id="offers" data-alone-mark="{escape(ALONE_MARK)}">'
        "<thead><tr></tr></thead>"
        '<tbody></tbody></table></div><button type="button" id="more" hidden></button>'
        f"{_unconverted(data.get('unconverted') or [])}{legend()}{versus}"
        '<section id="history"><h2>Price history</h2><p class="meta">Each chip\'s cheapest '
        "price per chip-hour at the end of each day, one line per pricing model, named at its end: "
        "list prices in US dollars an hour, whatever the table above is set to.</p>"
        f"{_left_out(data.get('history_left_out') or '')}"
        f'<div class="charts">{figures}</div></section>'
        "<footer>offers.json and offers.csv beside this page hold the same offers (offers.js "
        "is offers.json for this page, which a browser lets load from disk).</footer></main>"
        f'<script src="offers.js"></script><script>{_asset("explorer.js")}</script>'
        "</body></html>\n"
    )
