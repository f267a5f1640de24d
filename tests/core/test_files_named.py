"""Every file of this repository a message, a docstring, a comment or a page names exists: a
message that sends a user to docs/prices.md when the page is docs/your-prices.md, or a module
citing a DESIGN.md the repository does not hold, sends them nowhere."""

from __future__ import annotations

import re
from functools import cache
from pathlib import Path

from tests.paths import PRODUCT, ROOT

# The repository's own top-level folders: a path starting with one of them is a file of ours.
OWN = ("docs", *PRODUCT, "scripts")
OWN += ("sample", "benchmarks", "tests")
EXTENSIONS = "md|py|sql|csv|toml|yaml|yml|json|sh|txt|html"
NAMED = re.compile(
    rf"(?<![\w./:-])((?:{'|'.join(OWN)})/(?:[\w.-]+/)*[\w.-]+\.(?:{EXTENSIONS})"
    r"|[A-Z][A-Z_]+\.md)\b"
)
# Where the names are read: the code users run, its pages and the README.
CODE = (*PRODUCT, "benchmarks")
# docs/layout.md's worked example of adding a source, "acme": files a reader would create.
EXAMPLE = "acme"


def _read() -> list[Path]:
    files = [p for folder in CODE for p in sorted((ROOT / folder).rglob("*.py"))]
    return [*files, *sorted((ROOT / "docs").rglob("*.md")), ROOT / "README.md"]


@cache
def _bare_names() -> frozenset[str]:
    """Every page name in the repository's folders (tests/fixtures/*/ORIGIN.md)."""
    pages = {p.name for p in ROOT.glob("*.md")}
    for folder in OWN:
        pages |= {p.name for p in (ROOT / folder).rglob("*.md")}
    return frozenset(pages)


def _exists(name: str) -> bool:
    if "/" not in name:
        return name in _bare_names()
    # One layout rule: chipcost.warehouse.fx is warehouse/fx.py, never chipcost/warehouse/fx.py.
    return (ROOT / name).exists()


# Another repository's file, as the pages cite one: `path` @ commit, `path` at commit
# 067f987d, or a script's argument `path 067f987d` (owner/repo or the script beside it).
ELSEWHERE = re.compile(r"`?\s*(?:@|at\s+commit)?\s*[0-9a-f]{7,40}\b")


def named_files(path: Path) -> list[tuple[str, int]]:
    text = path.read_text(encoding="utf-8")
    return [
        (m[1], text.count("\n", 0, m.start()) + 1)
        for m in NAMED.finditer(text)
        if not ELSEWHERE.match(text, m.end())
    ]


def test_every_file_named_exists():
    missing = [
        f"{path.relative_to(ROOT)}:{line}: {name}"
        for path in _read()
        for name, line in named_files(path)
        if EXAMPLE not in name and not _exists(name)
    ]
    assert not missing, "\n".join(missing)


def test_the_walk_finds_what_it_looks_for(tmp_path):
    page = tmp_path / "page.md"
    page.write_text(
        "see docs/prices.md, DESIGN.md, chipcost/warehouse/fx.py and warehouse/fx.py; not "
        "https://github.com/o/r/blob/main/docs/x.md nor src/gpuhunt/providers/oci.py nor "
        "o/r `tests/data/x.json` @ a79151f nor `docs/y.md` at commit 067f987d\n"
    )
    names = [name for name, _ in named_files(page)]
    assert names == ["docs/prices.md", "DESIGN.md", "chipcost/warehouse/fx.py", "warehouse/fx.py"]
    assert [_exists(n) for n in names] == [False, False, False, True]
