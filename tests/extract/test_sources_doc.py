"""docs/sources.md's variables and tables and the README's provider list are what the sources
declare: written by `python -m chipcost.extract.docs`, checked here."""

from __future__ import annotations

import dataclasses
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.extract import docs, registry
from chipcost.extract.base import read_by

FILES = ("docs/sources.md", "README.md")


def test_docs_are_what_the_sources_declare() -> None:
    try:
        lines = docs.stale()
    except ValueError as exc:  # a source that declares too little, or a marker line lost
        pytest.fail(str(exc), pytrace=False)
    if lines:
        pytest.fail("\n".join(lines), pytrace=False)


def test_the_command_says_so() -> None:
    done = subprocess.run(
        [sys.executable, "-m", "chipcost.extract.docs", "--check"],
        capture_output=True,
        text=True,
        check=False,
    )
    assert (done.returncode, done.stderr) == (0, "")


@pytest.fixture
def copy(tmp_path: Path) -> Path:
    for file in FILES:
        (tmp_path / file).parent.mkdir(parents=True, exist_ok=True)
        shutil.copy(docs.ROOT / file, tmp_path / file)
    return tmp_path


def test_a_row_edited_by_hand_is_found_and_written_back(copy: Path) -> None:
    sources_md = copy / "docs/sources.md"
    text = sources_md.read_text()
    row = "| lium | the public nodes feed |"
    assert row in text
    sources_md.write_text(text.replace(row, "| lium | a feed |"))
    assert docs.stale(copy) == [
        "docs/sources.md differs from what the sources declare: run "
        "`python -m chipcost.extract.docs`"
    ]
    assert docs.main(["--check", "--root", str(copy)]) == 1
    assert docs.main(["--root", str(copy)]) == 0
    assert sources_md.read_text() == text
    assert docs.stale(copy) == []


def test_a_declaration_changed_changes_the_docs() -> None:
    sources = list(registry().values())
    lium = next(s for s in sources if s.name == "lium")
    assert lium.checked is not None
    moved = dataclasses.replace(lium, checked=dataclasses.replace(lium.checked, when="2027-01-01"))
    table = docs.checked_table([moved if s is lium else s for s in sources])
    assert "| lium | the public nodes feed |" in table
    assert "| 2027-01-01 |" in table and table != docs.checked_table(sources)


def test_a_file_without_its_markers_is_named(copy: Path, capsys: pytest.CaptureFixture) -> None:
    readme = copy / "README.md"
    readme.write_text(readme.read_text().replace("<!-- /providers -->\n", ""))
    assert docs.main(["--check", "--root", str(copy)]) == 1
    assert capsys.readouterr().err == (
        "chipcost.extract.docs: README.md: no single pair of `<!-- providers -->` and "
        "`<!-- /providers -->` lines; put them where the generated part goes, then run "
        "`python -m chipcost.extract.docs`\n"
    )


@pytest.mark.parametrize("field", ["title", "checked"])
def test_a_source_that_does_not_declare_what_the_docs_need_is_named(field: str) -> None:
    sources = list(registry().values())
    sources[3] = dataclasses.replace(sources[3], **{field: None if field == "checked" else ""})
    with pytest.raises(ValueError, match=rf"^source {sources[3].name} declares no {field} "):
        for _, _, make in docs.PARTS:
            make(sources)


def test_a_source_without_json_formats_says_how_its_layout_is_checked() -> None:
    civo = registry()["civo"]
    assert not civo.formats
    with pytest.raises(ValueError, match="^source civo declares no layout "):
        docs.formats_table([dataclasses.replace(civo, layout="")])


@pytest.mark.parametrize(
    ("names", "said"),
    [
        (("Item",), "`Item`"),
        (("GPU model", "On-demand"), "`GPU model` and `On-demand`"),
        (("size", "on-demand", "commitment"), "`size`, `on-demand` and `commitment`"),
    ],
)
def test_a_page_read_by_its_headers_says_them(names: tuple[str, ...], said: str) -> None:
    assert read_by("headers", names) == (
        f"HTML page: the parser requires the headers {said} and fails naming a missing one"
    )


def test_the_page_sources_say_the_headers_their_parser_requires() -> None:
    from chipcost.extract import crusoe

    assert "`GPU model` and `On-demand`" in registry()["crusoe"].layout
    assert crusoe.EXPECTED == ("GPU model", "On-demand")
