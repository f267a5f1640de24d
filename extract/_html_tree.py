"""A small HTML element tree on the standard library's html.parser, for pricing pages."""

from __future__ import annotations

from collections.abc import Iterator
from dataclasses import dataclass, field
from html.parser import HTMLParser

# Elements that never hold children: the parser sees no end tag for them.
VOID = frozenset(
    {"area", "base", "br", "col", "embed", "hr", "img", "input", "link", "meta", "source", "wbr"}
)
# Text that is never a visible cell value: scripts and styles. Footnote markers (<sup>) are
# kept apart so "4<sup>1</sup>" reads as 4 with footnote 1, not as 41.
HIDDEN = frozenset({"script", "style", "noscript", "template"})


@dataclass(eq=False)  # identity, not value: elements are dict keys and set members
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
        """This element and every element below it, in document order."""
        yield self
        for child in self.children:
            if isinstance(child, Element):
                yield from child.iter()

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
        """Visible text with whitespace collapsed; <sup> footnote markers left out unless asked."""
        parts: list[str] = []
        self._collect(parts, footnotes)
        return " ".join("".join(parts).split())

    def footnotes(self) -> list[str]:
        return [sup.text(footnotes=True) for sup in self.find_all("sup")]

    def _collect(self, parts: list[str], footnotes: bool) -> None:
        for child in self.children:
            if isinstance(child, str):
                parts.append(child)
            elif child.tag in HIDDEN or (child.tag == "sup" and not footnotes):
                continue
            else:
                if child.tag in ("br", "p", "div", "li", "td", "th", "tr"):
                    parts.append(" ")
                child._collect(parts, footnotes)


class _TreeBuilder(HTMLParser):
    def __init__(self) -> None:
        super().__init__(convert_charrefs=True)
        self.root = Element("#document")
        self.stack = [self.root]

    def handle_starttag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        element = Element(tag, {name: value or "" for name, value in attrs})
        self.stack[-1].children.append(element)
        if tag not in VOID:
            self.stack.append(element)

    def handle_startendtag(self, tag: str, attrs: list[tuple[str, str | None]]) -> None:
        self.stack[-1].children.append(Element(tag, {n: v or "" for n, v in attrs}))

    def handle_endtag(self, tag: str) -> None:
        # Close up to the nearest open element of this tag; a stray end tag is ignored, as
        # browsers do, so one unbalanced tag does not swallow the rest of the page.
        for depth in range(len(self.stack) - 1, 0, -1):
            if self.stack[depth].tag == tag:
                del self.stack[depth:]
                return

    def handle_data(self, data: str) -> None:
        self.stack[-1].children.append(data)


def parse_html(text: str) -> Element:
    """The document's element tree; never raises on malformed markup."""
    builder = _TreeBuilder()
    builder.feed(text)
    builder.close()
    return builder.root
