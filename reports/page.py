"""HTML documents: the full report page and the e-mail body (inline CSS, size-capped)."""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable
from html import escape

import css_inline

from chipcost.core.version import __version__
from chipcost.reports import digest, sections
from chipcost.reports.data import ReportData
from chipcost.reports.labels import prose
from chipcost.reports.sections import Section
from chipcost.reports.sparklines import compact_sparklines
from chipcost.reports.text import SAMPLE_NOTE, headline, health_line, lacks

# Gmail clips HTML bodies over about 100 KB (102 KB); stay clear of it.
EMAIL_BODY_LIMIT = 95_000

CSS = """
body { font-family: system-ui, -apple-system, 'Segoe UI', Roboto, sans-serif; color: #111827;
       margin: 0; background: #ffffff; }
.report { max-width: 1240px; margin: 0 auto; padding: 20px 24px 40px; }
.mail { max-width: 760px; margin: 0 auto; padding: 8px; }
h1 { font-size: 22px; margin: 0 0 4px; }
h2 { font-size: 17px; margin: 28px 0 4px; padding-bottom: 4px; border-bottom: 1px solid #e5e7eb; }
p { font-size: 14px; line-height: 1.45; margin: 6px 0; }
.meta { color: #6b7280; font-size: 13px; }
.sample { background: #fef3c7; border: 1px solid #f59e0b; border-radius: 4px;
          padding: 8px 12px; font-size: 13px; margin: 12px 0; }
.headline { font-size: 16px; font-weight: 600; }
.lacks { background: #f3f4f6; border-radius: 4px; padding: 8px 12px 8px 28px; font-size: 13px; }
.explain { color: #4b5563; font-size: 13px; margin: 2px 0 8px; }
.empty { color: #6b7280; font-style: italic; font-size: 13px; }
nav a { font-size: 13px; margin-right: 12px; color: #2563eb; }
footer { color: #6b7280; font-size: 12px; margin-top: 32px; }
.charts { display: flex; flex-wrap: wrap; gap: 8px 24px; }
.chart { margin: 8px 0; }
.chart figcaption { font-size: 13px; font-weight: 600; margin-bottom: 2px; }
/* A cell of parts wraps between them, never inside one, and only where its table needs room. */
.parts { white-space: normal; } .parts > span { white-space: nowrap; }
code { font-size: 12px; background: #f3f4f6; padding: 0 3px; border-radius: 3px;
       white-space: nowrap; }  /* a command whole, never broken at its spaces */
.fresh { font-size: 13px; color: #374151; }
details.fold { border-bottom: 1px solid #e5e7eb; }
details.fold > summary { cursor: pointer; padding: 10px 0 8px; }
details.fold > summary h2 { display: inline; border: 0; margin: 0; padding: 0; font-size: 16px; }
.gist { color: #6b7280; font-size: 13px; }
details.more > summary { cursor: pointer; color: #2563eb; font-size: 13px; margin: 6px 0; }
.versus-top { display: flex; flex-wrap: wrap; gap: 4px 24px; align-items: flex-start; }
.verdict-list { flex: 1 1 340px; min-width: 0; }
.versus-top .versus-charts { flex: 1 1 320px; max-width: 460px; min-width: 0; }
.versus-charts svg { max-width: 460px !important; }
ul.verdicts { margin: 2px 0 6px; padding-left: 18px; font-size: 14px; line-height: 1.4; }
.charts { gap: 8px 12px; }
@media (max-width: 640px) {
  .report { padding: 12px 10px 32px; } h1 { font-size: 19px; }
  .gt_table .gt_row, .gt_table .gt_col_heading { padding-left: 3px !important;
    padding-right: 3px !important; }
  svg[class^="gt-nanoplot"] { width: 64px !important; height: auto !important; }
  /* Cost per token: each model's cheapest chips one under the other (each cell names its
     chip, in rank order). */
  #cost table, #cost tbody, #cost tr, #cost th, #cost td { display: block; width: auto !important; }
  #cost thead { display: none; }
  #cost tbody th { border-top: 1px solid #d1d5db; font-weight: 600; }
}
"""


def _section(section: Section) -> str:
    """A section: folded whole under its title and gist, or its table open and the rest
    folded under `more_label` (the whole explanation with it when a gist leads)."""
    body = (
        section.table
        if section.table is not None
        else f'<p class="empty">{prose(section.empty)}</p>'
    )
    explain = f'<p class="explain">{prose(section.explain)}</p>'
    if section.folded:
        gist = f' <span class="gist">{prose(section.gist)}</span>' if section.gist else ""
        return (
            f'<section id="{section.key}"><details class="fold"><summary>'
            f"<h2>{escape(section.title)}</h2>{gist}</summary>{explain}{body}</details></section>"
        )
    more = ""
    lead = explain
    if section.more:
        told = explain if section.gist else ""
        lead = f'<p class="explain">{prose(section.gist)}</p>' if section.gist else explain
        more = (
            f'<details class="more"><summary>{escape(section.more_label)}</summary>'
            f"{told}{section.more}</details>"
        )
    title = f"<h2>{escape(section.title)}</h2>"
    return f'<section id="{section.key}">{title}{lead}{body}{more}</section>'


def _intro(data: ReportData) -> str:
    period = data.period
    parts = [
        f"<h1>Accelerator prices: {escape(period.label)}</h1>",
        f'<p class="meta">{period.since} to {period.until} (UTC days) · generated '
        f"{data.generated_at:%Y-%m-%d %H:%M} UTC by chipcost {__version__}</p>",
    ]
    if data.sample:
        parts.append(f'<div class="sample"><b>{escape(SAMPLE_NOTE)}</b></div>')
    parts.append(f'<p class="headline">{escape(headline(data))}</p>')
    parts.append(f'<p class="fresh">{prose(health_line(data))}</p>')
    notes = lacks(data)
    if notes:
        items = "".join(f"<li>{prose(n)}</li>" for n in notes)
        parts.append(f'<ul class="lacks">{items}</ul>')
    return "".join(parts)


def _document(title: str, body: str) -> str:
    return (
        '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">'
        '<meta name="viewport" content="width=device-width, initial-scale=1">'
        f"<title>{escape(title)}</title><style>{CSS}</style></head><body>{body}</body></html>\n"
    )


# great-tables scopes each table's stylesheet (about 9 KB) by the table's own id, and each
# sparkline repeats its own: one copy of each serves every table of the page.
_TABLE_STYLE = re.compile(
    r'<div id="(?P<id>[a-z]+)"(?P<attrs>[^>]*)>\s*<style>(?P<css>.*?)</style>', re.S
)
_ANY_STYLE = re.compile(r"<style>.*?</style>", re.S)


def shared_styles(html: str) -> str:
    """The page with one copy of each table stylesheet: a table's `#id` rules become a class
    shared by the tables whose rules were the same, and a repeated <style> is dropped."""

    def shared(match: re.Match) -> str:
        table_id, css = match["id"], match["css"]
        name = "gts-" + hashlib.sha256(css.replace(table_id, "ID").encode()).hexdigest()[:8]
        css = css.replace(f"#{table_id}", f".{name}")
        return f'<div id="{table_id}" class="{name}"{match["attrs"]}><style>{css}</style>'

    seen: set[str] = set()

    def once(match: re.Match) -> str:
        block = match.group(0)
        if block in seen:
            return ""
        seen.add(block)
        return block

    return _ANY_STYLE.sub(once, _TABLE_STYLE.sub(shared, html))


def csv_name(data: ReportData) -> str:
    """The CSV of the period's changes, written next to the page."""
    return f"chipcost-changes_{data.period.slug}.csv"


def report_html(data: ReportData, title: str) -> str:
    """The full report: every section, sparklines, for a browser."""
    parts = sections.full_report(data)
    nav = " ".join(f'<a href="#{s.key}">{escape(s.title)}</a>' for s in parts)
    yours = (
        f" (Cheapest now and Cost per token in {escape(data.currency)})"
        if data.currency != "USD"
        else ""
    )
    body = (
        f'<main class="report">{_intro(data)}<nav>{nav}</nav>'
        + "".join(_section(s) for s in parts)
        + f"<footer>USD{yours}. Per chip-hour prices are instance prices divided by the chips "
        "in the instance. Every change of the period is in "
        f'<a href="{escape(csv_name(data))}">the CSV next to this file</a> (list prices in US '
        "dollars, as the moves; a move out and back marked in its glitch column); every offer, "
        "filterable, in the price explorer (<code>chipcost site DIR</code>).</footer></main>"
    )
    return compact_sparklines(shared_styles(_document(title, body)))


def _email_variants(data: ReportData) -> list[Callable[[], list[Section]]]:
    """From richest to plainest: the first that fits the size limit is sent."""
    top = data.options.top_movers
    # What changed opens the e-mail, a line a move; then the answers to the question chipcost
    # exists for, each a dense line of figures (the attached report opens with them, charted).
    answer = [s for s in [digest.head_to_head(data)] if s is not None]

    def rich() -> list[Section]:
        extra = [digest.cheapest_per_token(data), digest.cheapest_now(data)]
        return [*digest.movers(data, top), *answer, *[s for s in extra if s is not None]]

    def lean() -> list[Section]:
        cheapest = filter(None, [digest.cheapest_per_token(data)])
        return [*digest.movers(data, top), *answer, *cheapest]

    return [
        rich,
        lean,
        lambda: [*digest.movers(data, top), *answer],
        lambda: [*digest.movers(data, min(top, 5)), *answer],
        lambda: [],
    ]


def email_html(data: ReportData, title: str) -> str:
    """The e-mail body: summary, top movers, the head-to-head answers, cheapest; CSS inlined;
    under the size limit."""
    closing = (
        "<p class='meta'>The full report (every change with its daily prices, new and "
        "withdrawn offers, cheapest prices, each chip's price history chart, source health) "
        "and a CSV of every change are attached.</p>"
    )
    html, everything = "", None
    for variant in _email_variants(data):
        sections = variant()
        everything = everything or [s.title for s in sections]  # the richest comes first
        shown = {s.title for s in sections}
        left_out = [title for title in everything if title not in shown]
        note = (
            f"<p class='meta'>Left out to keep this e-mail under {EMAIL_BODY_LIMIT // 1000} KB "
            f"(mail clients clip longer ones): {escape(', '.join(left_out))}. The attached "
            "report has everything.</p>"
            if left_out
            else ""
        )
        body = (
            f'<div class="mail">{_intro(data)}'
            + "".join(_section(s) for s in sections)
            + note
            + closing
            + "</div>"
        )
        html = compact_styles(css_inline.inline(_document(title, body)))
        if len(html.encode("utf-8")) <= EMAIL_BODY_LIMIT:
            return html
    return html


_STYLE = re.compile(r'style="([^"]*)"')
_SIDES = ("top", "right", "bottom", "left")
_BORDER = ("width", "style", "color")


def _compact(style: str) -> str:
    """One inline style without what draws nothing (borders whose style is none), and
    shorter: four paddings as one, a side's border width, style and colour as one. Inlined
    table CSS is most of an e-mail's weight."""
    decls: dict[str, str] = {}
    for part in style.split(";"):
        name, _, value = part.partition(":")
        if name.strip():
            decls[name.strip()] = value.strip()
    for side in ("left", "right"):
        if decls.get(f"border-{side}-style") == "none":
            for key in ("style", "width", "color"):
                decls.pop(f"border-{side}-{key}", None)
    if all(f"padding-{s}" in decls for s in _SIDES):
        decls["padding"] = " ".join(decls.pop(f"padding-{s}") for s in _SIDES)
    merged = {side for side in _SIDES if all(f"border-{side}-{k}" in decls for k in _BORDER)}
    out, done = [], set()
    for name, value in decls.items():
        side = name.split("-")[1] if name.count("-") == 2 and name.startswith("border-") else ""
        if side not in merged:
            out.append(f"{name}:{value}")
        elif side not in done:  # border-top-width, -style and -color as one, where they stood
            out.append(f"border-{side}:{' '.join(decls[f'border-{side}-{k}'] for k in _BORDER)}")
            done.add(side)
    return ";".join(out)


# Class names of the inlined tables: their rules are in the style attributes now.
_GT_CLASS = re.compile(r' class="gt_[^"]*"')


def compact_styles(html: str) -> str:
    html = _STYLE.sub(lambda m: f'style="{_compact(m.group(1))}"', html)
    return _GT_CLASS.sub("", html)
