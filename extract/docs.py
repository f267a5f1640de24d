"""What the docs say of the sources, written from the registry: docs/sources.md's variables and
its two tables, and the README's provider list, each between its marker lines.

`python -m chipcost.extract.docs` rewrites them; `--check` only says which file differs
(tests/extract/test_sources_doc.py runs it). A source says what they need in its declaration
(`Source.title`, `Source.settings`, `Source.formats`, `Source.checked`, `Source.layout`).
"""

from __future__ import annotations

import argparse
import sys
import textwrap
from collections.abc import Callable, Iterable
from pathlib import Path

from chipcost.extract import registry
from chipcost.extract.base import Source

COMMAND = "python -m chipcost.extract.docs"
# The repository's root: the docs sit beside the product's folders.
ROOT = Path(__file__).resolve().parents[1]
WIDTH = 100


def env_paragraph(sources: Iterable[Source]) -> str:
    """Every variable a source reads, with the sources that read it, as one paragraph."""
    readers: dict[str, list[str]] = {}
    for source in sources:
        for variable in source.settings.values():
            readers.setdefault(variable, []).append(source.name)
    said = [f"`{variable}` ({', '.join(readers[variable])})" for variable in sorted(readers)]
    return _wrapped(", ".join(said) + ".")


def formats_table(sources: Iterable[Source]) -> str:
    """One row a source: the formats it declares, with their rows, or how its parser finds
    the layout of a payload that has no JSON fields changed."""
    rows = ["| source | how format drift is found |", "| --- | --- |"]
    for source in sorted(sources, key=lambda s: s.name):
        rows.append(f"| {source.name} | {_drift_found(source)} |")
    return "\n".join(rows)


def _drift_found(source: Source) -> str:
    if not source.formats:
        return _declared(source, "layout", source.layout)
    said = []
    for form in source.formats:
        places = ", ".join(f"`{rows.at}`" for rows in form.rows) or "no JSON rows"
        said.append(f"{form.name} (`{form.path}`): {places}")
    return "declared: " + "; ".join(said)


def checked_table(sources: Iterable[Source]) -> str:
    """One row a source: what it asks for and what its parser was checked against."""
    rows = [
        "| source | asks for | checked against | how old | the rest |",
        "|---|---|---|---|---|",
    ]
    for source in sorted(sources, key=lambda s: s.name):
        checked = _declared(source, "checked", source.checked)
        cells = (checked.asks, checked.against, checked.when, checked.rest)
        rows.append(f"| {source.name} | {' | '.join(cells)} |")
    return "\n".join(rows)


def providers_paragraph(sources: Iterable[Source]) -> str:
    """The README's list: every provider by its name in words, those with most sources first
    (AWS), then by name."""
    titles: dict[str, str] = {}
    of: dict[str, list[Source]] = {}
    for source in sources:
        title = _declared(source, "title", source.title)
        if titles.setdefault(source.provider, title) != title:
            raise ValueError(
                f"source {source.name} names provider {source.provider} {title!r}, another "
                f"source {titles[source.provider]!r}: one provider, one title"
            )
        of.setdefault(source.provider, []).append(source)
    groups: dict[str, list[str]] = {"prices": [], "reference": [], "not collected": []}
    for provider in sorted(titles, key=lambda p: (-len(of[p]), titles[p].lower())):
        groups[_group(of[provider])].append(titles[provider])
    text = (
        f"Prices from {len(groups['prices'])} providers (`chipcost sources` lists their "
        f"sources): {', '.join(groups['prices'])}."
    )
    if groups["reference"]:
        text += f" Exchange rates from {', '.join(groups['reference'])}."
    if groups["not collected"]:
        text += (
            " Registered to say why their prices are not collected: "
            f"{', '.join(groups['not collected'])}."
        )
    return _wrapped(text)


def _group(sources: list[Source]) -> str:
    if all(source.reference for source in sources):
        return "reference"
    if not any(source.collected for source in sources):
        return "not collected"
    return "prices"


def _declared(source: Source, name: str, value: object) -> object:
    if not value:
        raise ValueError(
            f"source {source.name} declares no {name} (Source.{name}, in its module): the "
            "docs are written from it"
        )
    return value


def _wrapped(text: str) -> str:
    return "\n".join(textwrap.wrap(text, WIDTH, break_long_words=False, break_on_hyphens=False))


# Each generated part: the file, the name on its marker lines, and what goes between them.
PARTS: tuple[tuple[str, str, Callable[[Iterable[Source]], str]], ...] = (
    ("docs/sources.md", "env", env_paragraph),
    ("docs/sources.md", "formats", formats_table),
    ("docs/sources.md", "checked", checked_table),
    ("README.md", "providers", providers_paragraph),
)


def between(text: str, marker: str, body: str, file: str) -> str:
    """`text` with the lines between `<!-- marker -->` and `<!-- /marker -->` made `body`."""
    start, end = f"<!-- {marker} -->\n", f"<!-- /{marker} -->\n"
    lines = text.splitlines(keepends=True)
    if lines.count(start) != 1 or lines.count(end) != 1 or lines.index(start) > lines.index(end):
        raise ValueError(
            f"{file}: no single pair of `<!-- {marker} -->` and `<!-- /{marker} -->` lines; "
            f"put them where the generated part goes, then run `{COMMAND}`"
        )
    head, tail = lines[: lines.index(start) + 1], lines[lines.index(end) :]
    return "".join(head) + body + "\n" + "".join(tail)


def written(root: Path = ROOT) -> dict[Path, tuple[str, str]]:
    """Each file's text now and as the registry writes it."""
    sources = list(registry().values())
    files: dict[Path, tuple[str, str]] = {}
    for file, marker, make in PARTS:
        path = root / file
        if path not in files:
            text = path.read_text(encoding="utf-8")
            files[path] = (text, text)
        now, new = files[path]
        files[path] = (now, between(new, marker, make(sources), file))
    return files


def stale(root: Path = ROOT) -> list[str]:
    """One line per file whose generated parts differ from what the registry writes."""
    return [
        f"{path.relative_to(root)} differs from what the sources declare: run `{COMMAND}`"
        for path, (now, new) in written(root).items()
        if now != new
    ]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(
        prog=COMMAND,
        description="Write docs/sources.md's tables and the README's provider list from the "
        "sources' declarations.",
    )
    parser.add_argument("--check", action="store_true", help="only say which file differs")
    parser.add_argument(
        "--root", type=Path, default=ROOT, help="the repository (default: this one)"
    )
    args = parser.parse_args(argv)
    try:
        if args.check:
            lines = stale(args.root)
            for line in lines:
                print(line, file=sys.stderr)
            return 1 if lines else 0
        for path, (now, new) in written(args.root).items():
            if now != new:
                path.write_text(new, encoding="utf-8")
                print(f"wrote {path.relative_to(args.root)}")
    except (OSError, ValueError) as exc:
        print(f"chipcost.extract.docs: {exc}", file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())
