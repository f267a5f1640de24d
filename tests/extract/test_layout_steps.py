"""docs/layout.md's "Adding a provider" names every case a source's contract.toml can declare
(each field tests/sources.py reads into a Contract) and the tests that hold a new source to
them: on c96d2408 it left out `[[spoiled]]`, without which
tests/pipeline/test_refused_price_keeps_offer.py fails for the new source."""

from __future__ import annotations

import dataclasses
import re

from tests.paths import ROOT
from tests.sources import Contract


def _section() -> str:
    text = (ROOT / "docs" / "layout.md").read_text(encoding="utf-8")
    found = re.search(r"^Adding a provider.*?(?=^#|\Z)", text, flags=re.M | re.S)
    assert found, "docs/layout.md has no 'Adding a provider'"
    return " ".join(found[0].split())


def test_adding_a_provider_names_every_case_a_contract_declares():
    section = _section()
    cases = {f.name for f in dataclasses.fields(Contract)} - {"source", "extra"}
    unnamed = {case for case in cases if not re.search(rf"`\[\[?{case}\]\]?`|`{case} = ", section)}
    assert not unnamed, sorted(unnamed)


def test_adding_a_provider_names_the_tests_that_hold_it():
    section = _section()
    spoiled = ROOT / "tests" / "pipeline" / "test_refused_price_keeps_offer.py"
    assert "def test_every_source_that_lists_prices_spoils_one" in spoiled.read_text()
    for named in (
        "tests/extract/test_contract.py",
        "tests/pipeline/test_refused_price_keeps_offer.py",
        "test_every_source_that_lists_prices_spoils_one",
    ):
        assert named in section, named
