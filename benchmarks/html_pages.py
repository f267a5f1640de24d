"""Reading pricing pages grown with markup browsers take in their stride: seconds against size.

# python -m benchmarks.html_pages                        # 100, 200, 400 and 800 KB of each
# python -m benchmarks.html_pages --kb 100 1000 --repeat 5
# python -m benchmarks.html_pages --html5lib DIR         # html5lib's parse beside it

Each recorded page (CoreWeave's, the largest of the web sources' fixtures) is grown by one kind
of markup to each size, then read with chipcost's parse_html (extract/_html_tree.py): a footer
of `<li>` without their optional `</li>`, `<p>` never closed, `<![ ... ]>` and `<!CDATA[`
junk, an unterminated `<a<a<a...` run to the end of the page, and `<div>` nested inside one
another, which parse_html refuses as nested too deeply (the time is the time to refuse it).
The time per KB stays the same as the page grows when the read is linear. With --html5lib
DIR (a folder holding html5lib, `pip install --target DIR html5lib`), html5lib's parse of the
same pages is timed too. Prints the fastest of --repeat runs of each. Figures are in
docs/performance.md.
"""

from __future__ import annotations

import argparse
import os
import sys
from collections.abc import Callable

from benchmarks import fastest
from chipcost.extract._html_tree import NestedTooDeep, parse_html
from tests.paths import FIXTURES

PAGE = FIXTURES / "coreweave" / "pricing-2026-08-22.html"
# One unit of each kind of markup, repeated to the size asked.
GROWN_BY = {
    "unclosed <li>": "<li><a href='/x'>link</a>",
    "unclosed <p>": "<p>a paragraph",
    "<![ ... ]>": "<![ square brackets ]> <!CDATA[ junk ]> ",
    "<a<a<a": "<a",
    "nested <div>": "<div>",
}


def grown(page: str, unit: str, kb: int) -> str:
    """`page` with `unit` repeated to `kb` KB: in a footer list before </body>, or, for the
    unterminated tag, after the page's last character."""
    filler = unit * (kb * 1024 // len(unit))
    if unit == "<a":
        return page + filler
    at = page.rfind("</body>")
    return page[:at] + "<footer><ul>" + filler + "</ul></footer>" + page[at:]


def read_or_refuse(text: str) -> object:
    """parse_html's tree, or its refusal of a page nested too deeply."""
    try:
        return parse_html(text)
    except NestedTooDeep as refused:
        return refused


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--kb", type=int, nargs="+", default=[100, 200, 400, 800])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--html5lib", metavar="DIR", help="a folder holding html5lib")
    args = parser.parse_args()
    readers: dict[str, Callable[[str], object]] = {"parse_html": read_or_refuse}
    if args.html5lib:
        sys.path.insert(0, args.html5lib)
        import html5lib

        readers["html5lib"] = html5lib.parse
    page = PAGE.read_text()
    load = ", ".join(f"{x:.1f}" for x in os.getloadavg())
    print(f"{PAGE.name} ({len(page) / 1024:.0f} KB) grown by each kind of markup (load {load})")
    for name, read in readers.items():
        bare = fastest(lambda read=read: read(page), args.repeat)
        print(f"  {name}: the page alone {bare * 1000:.1f} ms")
        for kind, unit in GROWN_BY.items():
            for kb in args.kb:
                text = grown(page, unit, kb)
                took = fastest(lambda read=read, text=text: read(text), args.repeat)
                per_kb = (took - bare) / kb * 1e6
                added = f"({per_kb:7.1f} us per KB added)"
                print(f"    {kind:14} +{kb:>5,} KB {took * 1000:9.1f} ms  {added}", flush=True)


if __name__ == "__main__":
    main()
