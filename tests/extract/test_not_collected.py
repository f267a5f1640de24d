"""scp and ibm, the providers registered only to say why their prices are not collected
(extract.base.not_collected): always skipped with the reason, never a request, 'not collected'
in the sources table, and no sample run."""

from __future__ import annotations

from datetime import UTC, datetime
from importlib import import_module

import httpx
import pytest

from chipcost.archive import ArchiveWriter
from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.extract import registry
from chipcost.extract.base import FetchContext
from chipcost.reads.sources import registered_sources

# source -> the start of its reason, a word of its description, and a URL its parse may be
# handed (an archive that claims to hold its answer).
CASES = {
    "scp": (
        "no price source yet: Samsung Cloud Platform",
        "Samsung Cloud Platform",
        "https://openapi.samsungsdscloud.com/product/v2/product-groups",
    ),
    "ibm": (
        "no price source yet: IBM's VPC API",
        "Gaudi 3",
        "https://globalcatalog.cloud.ibm.com/api/v1/x/pricing",
    ),
}


def refuse(request: httpx.Request) -> httpx.Response:
    raise AssertionError(f"a source not collected sent {request.url}")


@pytest.mark.parametrize("name", CASES)
def test_it_is_registered_and_says_it_is_not_collected(name):
    module = import_module(f"chipcost.extract.{name}")
    source = module.SOURCE
    assert registry()[name] is source and source.provider == name and not source.collected
    row = registered_sources().filter(source=name).to_dicts()[0]
    assert row["collected"] is False and CASES[name][1] in row["description"]


@pytest.mark.parametrize("name", CASES)
def test_fetch_is_skipped_with_the_reason_and_sends_nothing(name, tmp_path):
    fetch = import_module(f"chipcost.extract.{name}").fetch
    ctx = FetchContext(
        archive=ArchiveWriter(tmp_path, "2026-11-21T060000Z", name),
        transport=httpx.MockTransport(refuse),
    )
    with pytest.raises(SourceSkipped, match=f"^{CASES[name][0]}"):
        fetch(ctx)
    assert not (tmp_path / "2026-11-21T060000Z").exists()  # nothing archived


@pytest.mark.parametrize("name", CASES)
def test_parse_is_skipped_too(name):
    parse = import_module(f"chipcost.extract.{name}").parse
    payload = Payload(b"{}", CASES[name][2], datetime(2026, 11, 21, tzinfo=UTC), "0001.json.gz")
    with pytest.raises(SourceSkipped, match=f"^{CASES[name][0]}"):
        parse([payload])


@pytest.mark.parametrize("name", CASES)
def test_the_sample_builder_writes_nothing(name, tmp_path):
    sample = import_module(f"chipcost.sample.build.{name}")
    written = sample.write_run(tmp_path, 1, datetime(2026, 11, 14, 6, tzinfo=UTC))
    assert written.name == name and not written.exists()
