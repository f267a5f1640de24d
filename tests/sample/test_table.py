"""The sample's table takes a JSON source's offers and price keys from its formats: declared
once, in the source's module (Rows.prices)."""

from __future__ import annotations

import dataclasses

import pytest

from chipcost.extract import registry
from chipcost.sample.build._scramble import Sample
from chipcost.sample.build._table import SAMPLES, TABLE, declared, offers_path

DECLARING = sorted(
    name
    for name, source in registry().items()
    if any(rows.prices for form in source.formats for rows in form.rows)
)


def test_most_json_sources_declare_their_offers_in_their_formats() -> None:
    assert len(DECLARING) >= 28, DECLARING


@pytest.mark.parametrize("source", DECLARING)
def test_the_table_does_not_restate_what_the_formats_declare(source: str) -> None:
    given, made = TABLE.get(source, Sample()), SAMPLES[source]
    from_formats = declared(source, dataclasses.replace(given, offers="", prices=()))
    if given.offers:  # its own: the sample keeps the prices the formats declare (amddevcloud)
        assert (given.offers, given.prices) != (from_formats.offers, from_formats.prices), (
            f"sample/build/_table.py restates {source}'s offers and prices: its formats "
            "declare them"
        )
        assert made == given
    else:
        assert made == from_formats and made.offers and made.prices


@pytest.mark.parametrize(
    ("at", "path"),
    [
        ("[]", "*"),
        ("gpus[]", "gpus.*"),
        ("data[].offers[]", "data.*.offers.*"),
        ("data.instance_types[].variants[]", "data.instance_types.*.variants.*"),
        ("gpu_inventory.*", "gpu_inventory.*"),
    ],
)
def test_a_place_becomes_the_scramblers_path(at: str, path: str) -> None:
    assert offers_path(at) == path


def test_runpods_two_formats_give_two_paths_and_every_price_key() -> None:
    made = SAMPLES["runpod"]
    assert made.offers == "gpus.*|data.gpuTypes.*"
    assert made.prices[0] == "price" and "securePrice" in made.prices


def test_a_retired_format_is_no_sample() -> None:
    tensordock = registry()["tensordock"]
    assert any(form.retired for form in tensordock.formats)
    assert SAMPLES["tensordock"].offers == "data.locations.*"


def test_a_path_of_its_own_wins() -> None:
    own = Sample(offers="data.*", prices=("x",))
    assert declared("vultr", own) is own
    assert dataclasses.replace(declared("vultr", Sample()), moves=()).offers == (
        "plans_metal.*|plans.*"
    )


def test_a_source_whose_formats_declare_its_offers_needs_no_entry() -> None:
    bare = [name for name in DECLARING if name not in TABLE]
    assert "hyperbolic" in bare
    assert all(SAMPLES[name] == declared(name, Sample()) for name in bare)
