"""A source's declared formats (extract/_formats.py): each payload compared with the format its
archived URL says it is, and what is new, missing or retyped named, while the prices load."""

from __future__ import annotations

import json

import pytest

from chipcost.archive import read_payloads
from chipcost.extract import registry
from chipcost.extract._formats import Format, Rows, drift
from chipcost.sample import ARCHIVE
from tests.paths import FIXTURES
from tests.sources import payload

SOURCES = registry()
GRAPHQL_URL = "https://api.runpod.io/graphql"
LOCATIONS_URL = "https://dashboard.tensordock.com/api/v2/locations"


def _edited(source: str, file: str, url: str, edit) -> object:
    body = json.loads((FIXTURES / source / file).read_bytes())
    edit(body)
    return payload(source, file, url, data=json.dumps(body).encode())


def test_a_graphql_answer_with_a_field_added_and_one_retyped_is_named_and_still_loads():
    def edit(body):
        for gpu in body["data"]["gpuTypes"]:
            gpu["pricingTier"] = "standard"
            gpu["memoryInGb"] = str(gpu["memoryInGb"])
            del gpu["manufacturer"]

    changed = _edited("runpod", "gpu-types.json", GRAPHQL_URL, edit)
    [said] = SOURCES["runpod"].drift([changed])
    rows = len(json.loads(changed.data)["data"]["gpuTypes"])
    assert said == (
        "format drift (runpod, GraphQL gpuTypes, data.gpuTypes[]): new pricingTier; missing "
        f"manufacturer; memoryInGb changed from integer to string in {rows} of {rows} rows"
    )
    assert SOURCES["runpod"].parse([changed]).records  # the prices still load


def test_the_recorded_answers_show_no_drift():
    runpod = SOURCES["runpod"]
    assert runpod.drift([payload("runpod", "gpu-types.json", GRAPHQL_URL)]) == []
    assert (
        SOURCES["tensordock"].drift([payload("tensordock", "locations.json", LOCATIONS_URL)]) == []
    )


def test_a_place_not_found_and_a_url_of_no_format_are_said():
    moved = payload("tensordock", "locations.json", LOCATIONS_URL, data=b'{"data": {"sites": []}}')
    elsewhere = payload("tensordock", "locations.json", "https://dashboard.tensordock.com/api/v3/x")
    said = SOURCES["tensordock"].drift([moved, elsewhere])
    assert (
        "format drift (tensordock, v2 locations, data.locations[]): no data.locations[] in 1 "
        "payload(s)"
    ) in said
    assert any(
        "1 payload(s) from /api/v3/x, a URL of no format the source declares" in s for s in said
    )


def test_a_value_of_a_type_declared_nullable_is_no_drift_and_a_null_elsewhere_is():
    shape = Format("t", "/t", (Rows("rows[]", {"a": "number|null", "b": "string"}, ("a",)),))
    body = {"rows": [{"a": None, "b": None}, {"a": 1, "b": "x"}]}
    said = drift(
        (shape,), [payload("runpod", "t", "https://x.test/t", data=json.dumps(body).encode())], "s"
    )
    assert said == ["format drift (s, t, rows[]): b changed from string to null in 1 of 2 rows"]


@pytest.mark.parametrize(("fields", "required"), [({"a": "text"}, ()), ({"a": "string"}, ("b",))])
def test_a_declaration_with_an_unknown_type_or_an_undeclared_required_field_is_refused(
    fields, required
):
    with pytest.raises(ValueError):
        Rows("rows[]", fields, required)


@pytest.mark.parametrize("name", [n for n, s in SOURCES.items() if s.formats])
def test_the_bundled_sample_shows_no_drift_from_what_each_source_declares(name):
    """Every run of the sample archive a source is in, compared as a live run compares it."""
    runs = [run for run in sorted(ARCHIVE.iterdir()) if (run / name).is_dir()]
    assert runs, (
        f"{name}: declares formats but is in no run of the sample archive: write its runs with "
        "python -m chipcost.sample.build"
    )
    for run in runs:
        assert SOURCES[name].drift(read_payloads(run, name)) == [], run.name
