"""cudo: parse() on gpuhunt's machine type and catalog-derived ones, bad rows, and fetch()."""

from __future__ import annotations

import httpx

from chipcost.archive import read_payloads
from chipcost.extract.cudo import MACHINE_TYPES_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payloads_of

FIXTURES = FIXTURES / "cudo"
payload = payloads_of("cudo", MACHINE_TYPES_URL)


def offers(name: str = "machine-types.json") -> dict[tuple[str, str], object]:
    return {(r.sku, r.region): r for r in parse([payload(name)]).records}


def test_each_gpu_machine_type_is_a_per_gpu_price_per_data_centre():
    found = offers()
    h100 = found[("sapphire-rapids-h100", "no-kristiansand-1")]
    assert (h100.chip, h100.chip_count, h100.price_per_hour) == ("H100-SXM", 1.0, 1.79)
    assert h100.instance_type == "1x H100 SXM (sapphire-rapids-h100)"
    assert found[("epyc-genoa-h100-nvl-pcie", "au-melbourne-1")].chip == "H100-NVL"
    assert found[("epyc-genoa-a100-pcie", "no-kristiansand-1")].chip == "A100-80GB-PCIe"
    a40 = found[("ice-lake-a40-compute", "ca-montreal-3")]
    assert (a40.chip, a40.extra["max_gpus_free"]) == ("A40", 0)  # "(compute mode)" is no chip
    assert len(found) == 7  # the CPU-only type gives no record


def test_the_resources_billed_beside_the_gpu_are_kept_not_added():
    rtx = offers()[("cascade-lake", "br-saopaulo-1")]
    assert rtx.price_per_hour == 0.05  # gpuhunt's fixture: the GPU alone
    assert rtx.extra["resource_rates"] == {
        "vcpu": "0.002500", "memory_gib": "0.003800", "storage_gib": "0.00013", "ipv4": "0.005500",
    }  # fmt: skip
    assert "billed beside it" in rtx.extra["price_basis"]


def test_a_cpu_only_type_is_counted_and_an_unknown_gpu_named():
    result = parse([payload("machine-types.json")])
    assert any("CPU-only machine type" in n and "epyc-milan" in n for n in result.notes)
    # RTX 3080 is made with 10 and 12 GB: the aliases read it only at its memory, which the
    # machine type does not state, so it is loaded as unknown and the note says why
    said = "RTX 3080 (needs its memory: 10 GB RTX-3080; stated none)"
    assert any(said in n for n in result.notes), result.notes


def test_bad_rows_become_rejects_with_reasons():
    result = parse([payload("bad-rows.json")])
    reasons = " | ".join(r.reason for r in result.rejects)
    for words in ("'$1.79' is not a plain number", "price '0' is not a positive amount",
                  "gpuPriceHr: no price (None)", "has no machineType or dataCenterId"):  # fmt: skip
        assert words in reasons
    assert len(result.rejects) == 4
    assert [r.region for r in result.records] == ["us-carlsbad-1"]


def test_fetch_archives_the_machine_types_without_credentials(tmp_path):
    body = (FIXTURES / "machine-types.json").read_bytes()

    def handler(request: httpx.Request) -> httpx.Response:
        assert "Authorization" not in request.headers
        return httpx.Response(200, content=body, headers={"Content-Type": "application/json"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    assert fetched.url == MACHINE_TYPES_URL
    [archived] = read_payloads(tmp_path / STAMP, "cudo")
    assert archived.data == body and len(parse([archived]).records) == 7
