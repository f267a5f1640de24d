"""How deep a page nests and what building it will cost, read in one pass before the HTML5
parse, so a page whose tree would take the parse time growing with the square of its depth is
refused before lexbor builds it.

Building a tree the HTML5 way costs, for many start tags (`<div>`, `<section>`, `<p>`,
`<li>`), a look down the open elements for one to close: a page nested N deep costs N per such
tag, and 100 KB of `<div>` inside one another (20,000 levels) takes lexbor a second (200 KB,
four), where 100 KB of `<span>`, which looks for nothing, takes 2 ms. This pass reads the tags
once and keeps the elements a browser keeps open, closing them by the HTML5 rules that keep
ordinary pages shallow: an optional end tag closed by the next element that implies it
(`<li>`, `<p>`, `<dt>`, `<dd>`, `<option>`, table rows and cells), an `<a>` closing the last
`<a>`, a second `<form>` ignored, an end tag closing the elements opened after its own start;
void elements and raw text (`<script>`, `<style>`, comments) open nothing. Where it errs, it
errs shallow (it closes what a browser might keep open), so what it misses costs time, never
a wrong reading. Each step looks at the last element of a handful of names, never down the
whole stack.
"""

from __future__ import annotations

import re
from bisect import bisect_right
from collections.abc import Iterator

# Elements with no content and no end tag: they open nothing.
VOID = frozenset(
    "area base basefont bgsound br col embed frame hr img input keygen link meta param source "
    "track wbr".split()
)
# Elements the parser opens once whatever the page says (html, head, body) and the body's own
# level, counted apart.
IMPLIED = frozenset({"html", "head", "body"})
# Elements whose text runs to their own end tag, unread as markup.
RAW_TEXT = frozenset(
    "script style textarea title xmp iframe noembed noframes noscript plaintext".split()
)
# Where a start tag stops looking for an element to close (the HTML5 scopes, as far as they
# matter here): a list item's look stops at a list, a paragraph's at a table cell or button.
_LIST_SCOPE = frozenset(
    "ul ol menu dl table template td th caption button object applet marquee".split()
)
_BUTTON_SCOPE = frozenset("table template td th caption button object applet marquee".split())
_TABLE = frozenset({"table", "template"})
# Start tags that close a <p> left open (the HTML5 tree builder's "close a p element").
_CLOSES_P = frozenset(
    "address article aside blockquote center details dialog dir div dl fieldset figcaption "
    "figure footer header hgroup main menu nav ol p search section summary ul h1 h2 h3 h4 h5 h6 "
    "pre listing form plaintext table hr xmp li dd dt".split()
)
# A start tag -> (the open elements it closes, the elements its look stops at): it closes the
# first of them opened since the last of those it stops at, and every element opened after.
CLOSES: dict[str, tuple[frozenset[str], frozenset[str]]] = {
    "li": (frozenset({"li"}), _LIST_SCOPE),
    "dt": (frozenset({"dt", "dd"}), _LIST_SCOPE),
    "dd": (frozenset({"dt", "dd"}), _LIST_SCOPE),
    "option": (frozenset({"option"}), frozenset({"select", "datalist", "optgroup"})),
    "optgroup": (frozenset({"option", "optgroup"}), frozenset({"select", "datalist"})),
    "td": (frozenset({"td", "th"}), _TABLE),
    "th": (frozenset({"td", "th"}), _TABLE),
    "tr": (frozenset({"tr", "td", "th"}), _TABLE),
    "a": (frozenset({"a"}), _BUTTON_SCOPE),
    "nobr": (frozenset({"nobr"}), _BUTTON_SCOPE),
    **{
        name: (frozenset("tbody thead tfoot tr td th caption colgroup".split()), _TABLE)
        for name in ("tbody", "thead", "tfoot", "caption", "colgroup")
    },
    **{name: (frozenset({"p"}), _BUTTON_SCOPE) for name in _CLOSES_P - {"li", "dt", "dd"}},
}
# Elements the parser keeps one of at a time.
ONCE = frozenset({"form"})
# The next tag, comment or declaration: its kind, and a tag's '/' and name.
_TAG = re.compile(r"<(?:(!--)|[!?]|(/?)([a-z][^\s/>]*))")

# Each set of names above numbered once; a name's sets, and a start tag's (closes, stops).
_SETS = sorted({s for pair in CLOSES.values() for s in pair}, key=sorted)
_IN_SETS = {
    name: tuple(i for i, names in enumerate(_SETS) if name in names)
    for name in frozenset().union(*_SETS)
}
_IN_TABLE = _SETS.index(_TABLE)
_RULE = {tag: (_SETS.index(closes), _SETS.index(stops)) for tag, (closes, stops) in CLOSES.items()}


def depths(text: str) -> Iterator[tuple[int, bool]]:
    """Each element the page opens, by the rules above, in order: the levels below <html> it
    opens at (the <body> one of them), and whether its start tag looks down the open elements
    for one to close (CLOSES). Read once."""
    lowered = text.lower()
    stack: list[str] = []
    at: dict[str, list[int]] = {}  # each name's places in the stack
    marks: list[list[int]] = [[] for _ in _SETS]  # each set's members' places in the stack
    skip = VOID | IMPLIED

    def close_to(place: int) -> None:
        while len(stack) > place:
            tag = stack.pop()
            at[tag].pop()
            for i in _IN_SETS.get(tag, ()):
                marks[i].pop()

    pos = 0
    while found := _TAG.search(lowered, pos):
        comment, closing, tag = found.groups()
        end = lowered.find("-->" if comment else ">", found.end())
        if end < 0:  # an unterminated tag or comment runs to the page's end
            break
        pos = end + 1
        if comment or tag is None:
            continue
        if closing:
            if places := at.get(tag):
                close_to(places[-1])
        elif tag in RAW_TEXT:
            pos = lowered.find(f"</{tag}", pos)
            if pos < 0:
                break
        elif tag not in skip and not (tag in ONCE and at.get(tag)):
            if rule := _RULE.get(tag):
                closes, stops = marks[rule[0]], marks[rule[1]]
                if rule[1] == _IN_TABLE and not stops:
                    continue  # a row or cell outside any table: the parser ignores it
                first = bisect_right(closes, stops[-1] if stops else -1)
                if first < len(closes):  # the first of them open since the last stop
                    close_to(closes[first])
            place = len(stack)
            at.setdefault(tag, []).append(place)
            for i in _IN_SETS.get(tag, ()):
                marks[i].append(place)
            stack.append(tag)
            yield place + 2, rule is not None
