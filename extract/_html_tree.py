"""Pricing pages read as a browser reads them: lexbor's HTML5 parse, kept as a small element tree.

The parse is the WHATWG algorithm every browser follows (lexbor, through selectolax): an
optional end tag (`</li>`, `</p>`, `</td>`) is closed where the next element implies it, `<![`
outside foreign content is a comment, an unterminated tag runs to the next `>` or is dropped
at the end, and the tokenizer reads each character once. selectolax rather than html5lib,
which follows the same algorithm in pure Python: lexbor is C, nine times faster on CoreWeave's
page, and linear in an unterminated `<a<a<a...` where html5lib 1.1 is quadratic (800 KB: 3 ms
against 7.9 s; benchmarks/html_pages.py); one wheel with no dependencies for Linux (x86-64
and ARM), macOS and Windows. lxml's HTML parser (libxml2's) does not build the tree by the
HTML5 rules, so it closes elements where browsers do not.

The tree is copied into plain elements once, so a source holds elements as dict keys and set
members and reads them without the parser's objects; every walk over it is a loop, not a
recursion.
"""

from __future__ import annotations

import re
from collections.abc import Iterator
from dataclasses import dataclass, field

from selectolax.lexbor import LexborHTMLParser, LexborNode

from chipcost.core.errors import ParseError
from chipcost.extract._html_depth import depths
from chipcost.extract._html_encoding import PageText

# What is never a visible cell value, neither its text nor its elements: scripts, styles, a
# template's content, and <noscript>, which a browser running scripts does not show. The page
# is parsed as such a browser parses it (scripting on), so a <noscript>'s content is one text:
# parsed as markup, a stale copy of a price list there would be read first, and one in <head>
# would be moved into the body outside the <noscript> (the head cannot hold it).
HIDDEN = frozenset({"script", "style", "noscript", "template"})
# Footnote markers (<sup>) are kept apart so "4<sup>1</sup>" reads as 4 with footnote 1, not
# as 41; but a <sup> right after a number may be its cents, raised as price tags print them,
# and parse_html makes such a <sup> the text it shows (_read_raised). Raised decimals
# ("$68<sup>.80</sup>") are the number's: "$68.80"; so are digits raised after a number ending
# in its decimal point ("$3.<sup>99</sup>": "$3.99").
RAISED_DECIMALS = re.compile(r"[.,][0-9]+")
AFTER_NUMBER = re.compile(r"[0-9]\s*$")
AFTER_POINT = re.compile(r"[0-9][.,]$")
# Raised digits after a whole amount of money ("$10<sup>32</sup>", "10<sup>32</sup> USD") are
# cents or a footnote mark, and no page says which: shown as superscript digits ("$10³²"),
# which the price-cell reader refuses, never dropped to read 10; so are they with more raised
# after them ("$3<sup>50*</sup>", "$3<sup>50 /hr</sup>"), and two or more after any whole
# number ("3<sup>50</sup>": cents are two digits, a footnote mark one). One digit after a count
# ("4<sup>1</sup>", "8<sup>1</sup>x") or any after an amount with its decimals
# ("$2.49<sup>1</sup>") is a footnote, left out.
RAISED_DIGITS = re.compile(r"[0-9]+")
WHOLE_AMOUNT = re.compile(r"(?i)(?:\$|\busd|€|£)\s*(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)\s*$")
WHOLE_NUMBER = re.compile(r"(?<![0-9.,])(?:[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)\s*$")
CURRENCY_AFTER = re.compile(r"(?i)\s*(?:\$|€|£|usd\b|us\$|eur\b|gbp\b)")
SUPERSCRIPT = str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹")
# What a page raises as a footnote mark, left out of the text: digits (superscript ones too),
# *, †, ‡, §, ¶, #, ®, ™ and "TM", alone or together ("1,2", "*†", "[3]"). Anything else
# raised (a currency, "/min", "/node", "per month") is text the page shows, kept in its place
# so the reader of the cell sees it and refuses what it cannot read, never dropped.
FOOTNOTE_MARK = re.compile(r"(?i)(?:[0-9⁰¹²³⁴⁵⁶⁷⁸⁹*†‡§¶#®™,;()\[\]\s]|tm)*")
# How much of the text before a <sup> is looked at: a currency mark and a whole amount.
_BEFORE = 40
_SUP = re.compile(r"(?i)<sup\b")
# Elements whose text is set apart from their neighbours', as a browser lays them out.
BLOCK = frozenset({"br", "p", "div", "li", "td", "th", "tr"})
# The deepest element a browser keeps inside its parent (Chromium's
# kMaximumHTMLParserDOMTreeDepth): past it the parser puts an element beside its parent
# instead, and so does parse_html, so every walk over the tree is bounded by this many levels.
# No pricing page nests a tenth as deep.
MAX_DEPTH = 512
# The most steps the HTML5 parse may take looking down the open elements (_html_depth's
# depths): about 0.1 s of lexbor's time, some 6,000 nested `<div>` (a pricing page takes
# a few hundred thousand). Past it the page is refused before the parse: its time grows with
# the square of its depth (20,000 nested `<div>`: a second; 40,000: four).
MOST_STEPS = 20_000_000
_TOO_DEEP = (
    "an HTML page whose elements nest so deep that building it would take the parse past "
    f"{MOST_STEPS:,} steps (its time grows with the square of the depth)"
)


# The most nodes (elements, texts and comments) a page may have: the recorded pages and
# excerpts in tests/fixtures/ have at most 3,084 (CoreWeave's: 1,272 elements, 1,812 texts), a
# whole pricing page well under 100,000. Each node built costs some 600 bytes in lexbor and
# here (a 40 MB page of 1,000,000 small `<div>` took 1.9 GB and 38 s), so a page past it is
# refused: before the parse its comments are counted at once and its elements in the pass
# that reads its depth (stopping at the bound), and its elements and texts as the tree is
# copied (the texts a count of tags cannot tell).
MOST_NODES = 200_000


class TooManyNodes(ParseError):
    """A page of more nodes than MOST_NODES: its source fails naming the page's URL and
    archived file and what it holds, before its tree is built whole."""


class NestedTooDeep(ParseError, RecursionError):
    """A page nested too deep to build in time (MOST_STEPS): its source fails naming the page's
    URL and archived file (a RecursionError still, as a payload nested past the reader's own
    recursion limit is, for those that catch that)."""


@dataclass(eq=False, slots=True)  # identity, not value: elements are dict keys and set members
class Element:
    """One element: tag, attributes, and children (elements or text, in document order)."""

    tag: str
    attrs: dict[str, str] = field(default_factory=dict)
    children: list[Element | str] = field(default_factory=list)

    @property
    def classes(self) -> frozenset[str]:
        return frozenset(self.attrs.get("class", "").split())

    def has_class(self, *names: str) -> bool:
        return all(name in self.classes for name in names)

    def iter(self) -> Iterator[Element]:
        """This element and every element below it that a browser shows, in document order:
        what HIDDEN names (a <noscript> copy of a price list, scripts, styles) is not walked,
        so find_all and find never find it."""
        stack: list[Element] = [self]
        while stack:
            element = stack.pop()
            yield element
            stack.extend(
                c
                for c in reversed(element.children)
                if isinstance(c, Element) and c.tag not in HIDDEN
            )

    def find_all(self, tag: str | None = None, *classes: str) -> list[Element]:
        return [
            e
            for e in self.iter()
            if e is not self and (tag is None or e.tag == tag) and e.has_class(*classes)
        ]

    def find(self, tag: str | None = None, *classes: str) -> Element | None:
        found = self.find_all(tag, *classes)
        return found[0] if found else None

    def text(self, *, footnotes: bool = False) -> str:
        """Visible text with whitespace collapsed; <sup> footnote markers left out unless asked
        (cents raised after a price are text in the tree, not a <sup>: parse_html)."""
        parts: list[str] = []
        stack: list[Element | str] = list(reversed(self.children))
        while stack:
            child = stack.pop()
            if isinstance(child, str):
                parts.append(child)
            elif child.tag in HIDDEN or (child.tag == "sup" and not footnotes):
                continue
            else:
                if child.tag in BLOCK:
                    parts.append(" ")
                stack.extend(reversed(child.children))
        return " ".join("".join(parts).split())

    def footnotes(self) -> list[str]:
        return [sup.text(footnotes=True) for sup in self.find_all("sup")]


def raised_shown(raised: str, before: str, after: str) -> tuple[str, bool]:
    """What a <sup> reading `raised` shows between the texts `before` and `after` it, and
    whether that joins the number ending `before` (True) or stands in the <sup>'s place: the
    number's decimals, its cents or a footnote (superscript digits), the page's own words (a
    currency, a unit), or "" for a footnote mark. A footnote mark raised after the digits is
    left out; anything else after them is shown."""
    if not (AFTER_NUMBER.search(before) or AFTER_POINT.search(before)):
        return ("" if FOOTNOTE_MARK.fullmatch(raised) else raised), False
    if head := RAISED_DECIMALS.match(raised) or (
        AFTER_POINT.search(before) and RAISED_DIGITS.match(raised)
    ):
        shown = head[0]  # "$68" ".80", "$3." "99"
    elif head := RAISED_DIGITS.match(raised):
        tail = raised[head.end() :]
        if WHOLE_NUMBER.search(before) and (
            WHOLE_AMOUNT.search(before)
            or CURRENCY_AFTER.match(after)
            or len(head[0]) > 1
            or not FOOTNOTE_MARK.fullmatch(tail)
        ):
            shown = head[0].translate(SUPERSCRIPT)  # "$10³²", "3⁵⁰ USD", "3⁵⁰", "$3⁵⁰ /hr"
        else:  # a count's footnote ("4<sup>1</sup>"), or an amount's with its decimals
            shown = ""
    else:
        return ("" if FOOTNOTE_MARK.fullmatch(raised) else raised), False
    tail = raised[head.end() :]
    return shown + ("" if FOOTNOTE_MARK.fullmatch(tail) else tail), True


def _read_raised(root: Element) -> None:
    """Each <sup> after a number that is no footnote mark (raised_shown) made part of the text that
    ends in the number, the <sup> gone: so whichever element a source reads the amount of, its
    text or its strings alone, it reads "$68.80" of "<span>$68</span><sup>.80</sup>" and
    "$10³²" of "$10<sup>32</sup>". Any other <sup> but a footnote mark is the text it holds, in
    its place ("<sup>€</sup>3.50", "$0.058<sup>/min</sup>"): what the page shows, for the
    reader of the cell to read or refuse. One pass in document order: the text before each
    <sup> is the page's, whichever elements hold it ("<span>$</span>10<sup>32</sup>"), a run of
    spaces ending a text one space; a block between the number and the <sup> parts them; the
    text after it is its next sibling's ("3<sup>50</sup> USD")."""
    before = ""
    last: tuple[list[Element | str], int] | None = None  # the last text, if no block since
    gone: list[tuple[list[Element | str], Element]] = []
    # each open element with where its children are read to, as text() reads them
    stack = [(root, iter(enumerate(root.children)))]
    while stack:
        element, children = stack[-1]
        for at, child in children:
            if isinstance(child, str):
                piece = child.rstrip()
                if len(piece) < len(child):
                    piece += " "
                before = (before + piece[-_BEFORE:])[-_BEFORE:]
                last = (element.children, at)
            elif child.tag == "sup":
                siblings = element.children
                after = siblings[at + 1] if at + 1 < len(siblings) else ""
                # after a block there is no number for it to join: its own text alone
                shown, joined = raised_shown(
                    child.text(footnotes=True),
                    before if last is not None else "",
                    after if isinstance(after, str) else "",
                )
                if shown and joined and last is not None:
                    texts, where = last
                    texts[where] = str(texts[where]) + shown
                    before = (before + shown)[-_BEFORE:]
                    gone.append((siblings, child))
                elif shown and not joined:  # the page's words, where the <sup> was
                    # (a footnote mark stays a <sup>: text() leaves it out, footnotes() reads it)
                    siblings[at] = shown
                    before, last = (before + shown)[-_BEFORE:], (siblings, at)
            elif child.tag not in HIDDEN:
                if child.tag in BLOCK:
                    before, last = (before + " ")[-_BEFORE:], None
                stack.append((child, iter(enumerate(child.children))))
                break  # its children before its next sibling
        else:
            stack.pop()
            if element.tag in BLOCK:  # its end parts it from what follows, as its start does
                before, last = (before + " ")[-_BEFORE:], None
    for siblings, sup in gone:
        siblings.remove(sup)  # by identity: elements compare so


def parse_html(text: str) -> Element:
    """The document's element tree as a browser builds it; never raises on malformed markup,
    only NestedTooDeep on a page nested too deep to build in time (MOST_STEPS) and
    TooManyNodes on one of more nodes than MOST_NODES. An element past MAX_DEPTH is put
    beside its parent, its own children beside it, as Chromium does. Cents raised after a
    price are its text, not a <sup> (_read_raised)."""
    root = Element("#document")
    _check_size(text)
    html = LexborHTMLParser(text, scripting=True).root
    if html is None:
        return root
    top = Element(html.tag or "html", _attrs(html))
    root.children.append(top)
    nodes = 1
    # Depth first, in document order: (the next node to read, the element it goes into, that
    # element's depth), one entry for each open element.
    stack: list[tuple[LexborNode | None, Element, int]] = [(html.first_child, top, 1)]
    while stack:
        node, parent, depth = stack.pop()
        if node is None:
            continue
        stack.append((node.next, parent, depth))  # read once this node's children are
        if node.is_text_node:
            parent.children.append(node.text_content or "")
        elif node.is_element_node:
            element = Element(node.tag or "", _attrs(node))
            parent.children.append(element)
            if depth < MAX_DEPTH:
                stack.append((node.first_child, element, depth + 1))
            else:  # at a browser's depth: its children go beside it, into its parent
                stack.append((node.first_child, parent, depth))
        else:
            continue
        nodes += 1
        if nodes > MOST_NODES:  # with their texts, or elements the count above missed
            raise _too_many(_page(text), text, "its tree was built and not kept")
    if _SUP.search(text):  # no page without one pays for the pass
        _read_raised(root)
    return root


def _check_size(text: str) -> None:
    """NestedTooDeep or TooManyNodes for a page that is, found before lexbor builds it (200 KB
    of nested <div> took it 4 s, 40 MB of small ones 38 s and 1.9 GB with the copy), in one
    pass over its elements that stops at the first bound passed: the steps of
    _html_depth.depths, and the elements beside the comments, counted at once."""
    left = MOST_NODES - text.count("<!") - text.count("<?")
    steps = elements = 0
    for depth, looks in depths(text) if left >= 0 else ():
        steps += depth if looks else 1
        elements += 1
        if steps > MOST_STEPS:
            raise NestedTooDeep(
                f"{_page(text)} is nested too deeply to read: {_TOO_DEEP}; refused as malformed, "
                "no provider's page is; if it lasts, report it"
            )
        if elements > left:
            break
    if elements > left:
        raise _too_many(_page(text), text, "before it is read whole")


def _page(text: str) -> str:
    return f"the page from {text.where}" if isinstance(text, PageText) else "a page"


def _too_many(page: str, text: str, when: str) -> TooManyNodes:
    """The refusal of a page past MOST_NODES, with what it holds, counted at once; `when`:
    how far it was read (its elements and comments are counted before the parse, its texts
    only as its tree is copied)."""
    comments = text.count("<!") + text.count("<?")
    starts = text.count("<") - text.count("</") - comments
    return TooManyNodes(
        f"{page} has more than {MOST_NODES:,} nodes (elements, texts and comments; it holds "
        f"some {starts:,} start tags and {comments:,} comments in {len(text):,} characters, "
        f"where a pricing page has a few thousand): refused {when}, as no provider's page "
        "is; if it lasts, report it"
    )


def _attrs(node: LexborNode) -> dict[str, str]:
    return {name: value or "" for name, value in node.attributes.items()}
