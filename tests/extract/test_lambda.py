"""lambda: the instance-types API (with a key) and the public pricing page (without one).

Fixtures in tests/fixtures/lambda/ (ORIGIN.md says where each comes from): instance-types.json
has the API's documented shape; pricing-2026-08-22.html is the live pricing page recorded on
2026-08-22 (an excerpt: the 1-Click Clusters and Instances tabs, and the scripts that repeat
them). bad-* are the failure cases (changed layout, renamed column, unparseable cells, odd API
entries), reconstructed in an older layout whose GPU cell carries the count ("8x NVIDIA H100
SXM"), which the parser still reads.
"""

from __future__ import annotations

import json
import re

import httpx
import pytest

from chipcost.archive import read_manifest
from chipcost.core.errors import ParseError, SourceError
from chipcost.core.payload import Payload
from chipcost.core.settings import SourceSettings
from chipcost.extract.lambda_cloud import API_URL, PAGE_URL, fetch, offer_name, parse
from tests.sources import FETCHED_AT, STAMP, assert_loadable
from tests.sources import context as fake_context
from tests.sources import payload as recorded


def api(name: str = "instance-types.json"):
    return recorded("lambda", name, API_URL)


def page(name: str = "pricing-2026-08-22.html"):
    return recorded("lambda", name, PAGE_URL)


def by_name(records):
    return {r.instance_type: r for r in records}


@pytest.fixture(scope="module")
def from_api():
    return parse([api()])


@pytest.fixture(scope="module")
def from_page():
    return parse([page()])


def test_the_api_prices_whole_instances_in_cents(from_api):
    records = by_name(from_api.records)
    h100 = records["8x H100-SXM"]
    assert (h100.price_per_hour, h100.chip, h100.chip_count) == (23.92, "H100-SXM", 8.0)
    assert h100.sku == "gpu_8x_h100_sxm5" and h100.region == "global"
    assert h100.extra["regions_with_capacity"] == ["us-east-1", "us-west-1", "us-south-1"]
    assert records["1x A100-40GB PCIe"].sku == "gpu_1x_a100"
    assert records["1x A100-40GB SXM"].sku == "gpu_1x_a100_sxm4"
    assert records["8x V100"].chip == "V100"
    # specs: vcpus 208, memory_gib 1800, storage_gib 22000.
    assert (h100.vcpus, h100.ram_gb, h100.disk_gb) == (208.0, 1800.0, 22000.0)
    assert "prices from the instance-types API (LAMBDA_API_KEY)" in from_api.notes
    assert len(from_api.records) == 9 and not from_api.rejects
    assert_loadable(from_api)


def test_the_page_prices_per_gpu_times_the_gpu_count_of_its_tab(from_page):
    """The recorded page: each GPU named in a "Plan" cell, its count the tab's label ("8x")."""
    records = by_name(from_page.records)
    b200 = records["8x B200 SXM"]  # "NVIDIA B200 SXM6" under "8x": $6.69 per GPU-hour
    assert (b200.price_per_hour, b200.chip, b200.chip_count) == (53.52, "B200", 8.0)
    assert b200.extra["listed"] == "$6.69 per GPU-hour" and b200.sku == "8x NVIDIA B200 SXM6"
    # The same plan is priced per tab: $6.79 under 4x, $6.89 under 2x, $6.99 under 1x.
    assert [records[f"{n}x B200 SXM"].price_per_hour for n in (4, 2, 1)] == [27.16, 13.78, 6.99]
    # The row's vCPUs "208", RAM "2900 GiB" and STORAGE "22 TiB SSD" (1,024 GiB a TiB).
    assert (b200.vcpus, b200.ram_gb, b200.disk_gb) == (208.0, 2900.0, 22 * 1024.0)
    # Two "NVIDIA A100 SXM" rows under 8x, told apart by VRAM/GPU: 80 GB $2.79, 40 GB $1.99.
    assert records["8x A100-80GB SXM"].price_per_hour == pytest.approx(22.32)
    assert records["8x A100-40GB SXM"].price_per_hour == pytest.approx(15.92)
    assert records["1x H100-PCIe"].price_per_hour == 3.29
    assert (records["1x GH200"].price_per_hour, records["1x GH200"].chip) == (2.29, "GH200")
    assert records["8x V100"].price_per_hour == pytest.approx(8 * 0.79)  # "NVIDIA Tesla V100"
    assert records["1x Quadro-RTX-6000"].price_per_hour == 0.69
    a10 = records["1x A10"]  # "1.3 TiB SSD"
    assert (a10.vcpus, a10.ram_gb, a10.disk_gb) == (30.0, 226.0, pytest.approx(1.3 * 1024))
    assert {r.region for r in from_page.records} == {"global"}
    assert "prices from the public pricing page (no LAMBDA_API_KEY)" in from_page.notes
    # 22 instance rows; the scripts' escaped copies of the same tables are not read twice.
    assert len(from_page.records) == 22 and not from_page.rejects
    assert "unknown" not in {r.chip for r in from_page.records}
    assert_loadable(from_page)


def test_one_click_cluster_terms_are_counted_not_collected(from_page):
    """The 1-Click Clusters tables price a cluster for a term (DURATION "2 weeks – 1 year",
    "1 year+"), not an instance on demand: their 8 rows are counted in the notes, never loaded."""
    assert not [r for r in from_page.records if "HGX" in r.sku or r.sku == "NVIDIA H100"]
    [note] = [n for n in from_page.notes if "1-Click Cluster" in n]
    assert note.startswith("8 row(s) not loaded")
    assert "NVIDIA HGX B200 (2 weeks – 1 year)" in note and "NVIDIA H100 (1 year+)" in note


def test_a_gpu_cell_without_a_count_outside_a_tab_is_a_reject():
    """Without its tab, "NVIDIA H100 SXM" says nothing of how many GPUs the price is for."""
    data = page().data.replace(b'role="tab"', b'role="presentation"')
    result = parse([Payload(data, PAGE_URL, FETCHED_AT, "untabbed", "untabbed")])
    assert not result.records and len(result.rejects) == 22
    assert result.rejects[0].reason == (
        "GPU cell 'NVIDIA B200 SXM6' is not '<count>x <GPU>' and no tab gives its count"
    )


def test_both_paths_name_the_same_offers_alike(from_api, from_page):
    shared = set(by_name(from_api.records)) & set(by_name(from_page.records))
    assert {"8x B200 SXM", "8x H100-SXM", "1x H100-PCIe", "8x A100-80GB SXM", "1x GH200"} <= shared
    for name in shared:
        assert by_name(from_api.records)[name].chip == by_name(from_page.records)[name].chip


@pytest.mark.parametrize(
    ("count", "chip", "model", "form", "name"),
    [
        (8, "H100-SXM", "H100", "SXM5", "8x H100-SXM"),
        (1, "H100-PCIe", "H100", "PCIe", "1x H100-PCIe"),
        (8, "A100-80GB", "A100", "SXM4", "8x A100-80GB SXM"),
        (1, "GH200", "GH200", "", "1x GH200"),
        (1, "A10", "A10", "PCIe", "1x A10"),
        (1, "unknown", "GX900", "", "1x GX900"),
    ],
)
def test_offer_name(count, chip, model, form, name):
    assert offer_name(count, chip, model, form) == name


def test_unknown_gpus_are_loaded_and_reported():
    # Every GPU the page lists has a chip row: a name no alias lists (GH200 renamed) is unknown.
    data = page().data.replace(b"GH200", b"GX900")
    result = parse([Payload(data, PAGE_URL, FETCHED_AT, "renamed", "renamed")])
    assert by_name(result.records)["1x GX900"].chip == "unknown"
    assert any("GX900" in note and "chip_aliases.csv" in note for note in result.notes)


def test_cells_that_are_not_prices_or_counts_become_rejects():
    result = parse([page("bad-pricing-cells.html")])
    reasons = sorted(r.reason for r in result.rejects)
    assert reasons == [
        "1x NVIDIA H100 PCIe: price: no price listed (—)",
        "8x NVIDIA B300 SXM6: price: no price listed (Contact sales)",
        "GPU count '0' is below 1",
        "GPU count '1/2' is not a whole number of GPUs",
    ]
    records = by_name(result.records)
    assert records["1x GH200"].price_per_hour == 1.49  # "1,49": a decimal comma
    assert records["2x RTX-A6000"].price_per_hour == 3.2  # "$1.60/hr" per GPU
    assert_loadable(result)


def test_a_renamed_price_column_is_a_layout_change():
    with pytest.raises(ParseError, match="lacks price .found gpu, vram.: the layout changed"):
        parse([page("bad-pricing-renamed-column.html")])


def test_a_page_without_tables_is_a_layout_change():
    with pytest.raises(ParseError, match="lambda: the listing at .* gave no offer"):
        parse([page("bad-pricing-new-layout.html")])


def test_odd_api_entries_become_rejects():
    result = parse([api("bad-instance-types.json")])
    reasons = sorted(r.reason for r in result.rejects)
    assert reasons == [
        "GPU count 0 is below 1",
        "gpu_description 'Mystery accelerator' names no GPU and memory",
        "price_cents_per_hour 0 is not a positive price",
    ]
    assert [r.instance_type for r in result.records] == ["1x H100-PCIe"]


def test_fetch_uses_the_api_with_a_key_and_never_archives_it(tmp_path):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=api().data, headers={"Content-Type": "application/json"})

    settings = SourceSettings(lambda_api_key="secret_lambda_key")
    [fetched] = fetch(fake_context(tmp_path, "lambda", handler, settings=settings))
    assert str(seen[0].url) == API_URL
    assert seen[0].headers["Authorization"] == "Bearer secret_lambda_key"
    manifest = read_manifest(tmp_path / STAMP / "lambda")
    assert "secret_lambda_key" not in json.dumps(manifest)
    assert manifest["payloads"][0]["name"] == "0001.json.gz"
    assert len(parse([fetched]).records) == 9


def test_fetch_reads_the_public_page_without_a_key(tmp_path):
    seen: list[httpx.Request] = []

    def handler(request: httpx.Request) -> httpx.Response:
        seen.append(request)
        return httpx.Response(200, content=page().data, headers={"Content-Type": "text/html"})

    [fetched] = fetch(fake_context(tmp_path, "lambda", handler))
    assert str(seen[0].url) == PAGE_URL and "Authorization" not in seen[0].headers
    assert fetched.name == "0001.html.gz"
    assert len(parse([fetched]).records) == 22


def test_a_timeout_storm_fails_with_advice(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        raise httpx.ConnectTimeout("timed out")

    with pytest.raises(SourceError, match=f"lambda: GET {PAGE_URL} timed out"):
        fetch(fake_context(tmp_path, "lambda", handler))


def _changed(*pairs: str) -> Payload:
    """The recorded page with each OLD replaced by NEW (pairs given in turn), every OLD in it."""
    data = page().data.decode()
    for old, new in zip(pairs[::2], pairs[1::2], strict=True):
        assert old in data, old
        data = data.replace(old, new)
    return Payload(data.encode(), PAGE_URL, FETCHED_AT, "changed", "changed")


@pytest.mark.parametrize(
    ("header", "says"),
    [
        ("PRICE/GPU/MIN*", "names 'min'"),
        ("PRICE/GPU/MO*", "names 'mo'"),
        ("PRICE PER GPU PER MONTH", "names 'month'"),
        ("PRICE/GPU*", "names no hour, nor does its table"),
    ],
)
def test_a_price_header_in_another_time_unit_fails_the_source_naming_it(header, says):
    """A header is the whole column's: $0.0665 a GPU-minute read per hour was 60 times too
    cheap (8x H100-SXM at 0.532, 'per GPU-hour'), so no price under it is read."""
    changed = _changed("PRICE/GPU/HR*</th>", f"{header}</th>", ">$3.99<", ">$0.0665<")
    with pytest.raises(ParseError) as failed:
        parse([changed])
    assert f"heads its price column {header!r}, which {says}: prices are read per hour" in str(
        failed.value
    )
    assert PAGE_URL in str(failed.value)


@pytest.mark.parametrize("header", ["PRICE/GPU/H", "Price per GPU per hour", "PRICE (USD/GPU/HR)"])
def test_a_price_header_in_hours_as_the_page_may_word_it_is_read(header, from_page):
    result = parse([_changed("PRICE/GPU/HR*</th>", f"{header}</th>")])
    assert [(r.instance_type, r.price_per_hour) for r in result.records] == [
        (r.instance_type, r.price_per_hour) for r in from_page.records
    ]
    assert not result.rejects


PRICE_HEADER = '<th scope="col">STORAGE</th><th scope="col">PRICE/GPU/HR*</th>'
PRICE_CELL = '<td data-label="PRICE/GPU/HR*">'


def test_the_on_demand_price_is_read_beside_a_reserved_terms(from_page):
    """A reserved term's column before the on-demand one: it loaded the reserved $1.11 a
    GPU-hour as on demand (8x H100-SXM at 8.88 for 31.92), with no reject."""
    headers = (
        '<th scope="col">1-YR RESERVED PRICE/GPU/HR</th><th scope="col">ON-DEMAND PRICE/GPU/HR*'
    )
    changed = _changed(
        PRICE_HEADER,
        PRICE_HEADER.replace('<th scope="col">PRICE/GPU/HR*', headers),
        PRICE_CELL,
        f'<td data-label="1-YR RESERVED">$1.11</td>{PRICE_CELL}',
    )
    result = parse([changed])
    assert by_name(result.records)["8x H100-SXM"].price_per_hour == 31.92
    assert [(r.instance_type, r.price_per_hour) for r in result.records] == [
        (r.instance_type, r.price_per_hour) for r in from_page.records
    ]
    assert not result.rejects


@pytest.mark.parametrize(
    ("headers", "says"),
    [
        (
            "1-YR RESERVED PRICE/GPU/HR</th><th>PRICE/GPU/HR*",
            "heads 2 price columns ('1-YR RESERVED PRICE/GPU/HR', 'PRICE/GPU/HR*'): which one "
            "is the on-demand price cannot be told, so none is read",
        ),
        (
            "ON-DEMAND PRICE/GPU/HR*</th><th>ON-DEMAND PRICE/GPU/HR (EU)",
            "heads 2 price columns ('ON-DEMAND PRICE/GPU/HR*', 'ON-DEMAND PRICE/GPU/HR (EU)')",
        ),
        (
            "1-YR RESERVED PRICE/GPU/HR",
            "heads its one price column '1-YR RESERVED PRICE/GPU/HR', a reserved term's, not an "
            "on-demand price",
        ),
    ],
)
def test_price_columns_not_told_apart_fail_the_source_naming_them(headers, says):
    changed = _changed(PRICE_HEADER, PRICE_HEADER.replace("PRICE/GPU/HR*", headers))
    with pytest.raises(ParseError) as failed:
        parse([changed])
    assert says in str(failed.value) and PAGE_URL in str(failed.value)


H100_ROW_END = '<td data-label="PRICE/GPU/HR*">$3.99</td></tr>'
SPLIT = "</tbody></table><table><tbody>"


def test_a_table_split_in_two_is_read_under_the_headers_of_its_first_part(from_page):
    """The 8x table ends after its H100 row and goes on in a table with no header row: its
    second part's first row was taken as its headers and the part skipped as no price table,
    so 8x A100-80GB, 8x A100-40GB and 8x V100 were gone (19 records, no reject)."""
    result = parse([_changed(H100_ROW_END, H100_ROW_END + SPLIT)])
    assert [(r.instance_type, r.price_per_hour, r.ram_gb) for r in result.records] == [
        (r.instance_type, r.price_per_hour, r.ram_gb) for r in from_page.records
    ]
    assert by_name(result.records)["8x V100"].sku == "8x NVIDIA Tesla V100"
    assert not result.rejects


def test_a_table_without_a_header_row_that_cannot_go_on_the_one_before_fails_naming_it():
    """Its rows one cell short of the headers before it (a STORAGE cell gone): which cell is
    which cannot be told, so the source fails naming the table, never its rows dropped."""
    changed = _changed(
        H100_ROW_END,
        H100_ROW_END + SPLIT,
        '<td data-label="STORAGE">5.8 TiB SSD</td><td data-label="PRICE/GPU/HR*">$1.99</td>',
        '<td data-label="PRICE/GPU/HR*">$1.99</td>',
    )
    with pytest.raises(ParseError) as failed:
        parse([changed])
    assert (
        "has a table (its table 4, first row 'NVIDIA A100 SXM | 80 GB | 240 | 1800 GiB | "
        "19.5 TiB SSD | $2.79') with no header row, and its rows have 5 or 6 cells, not the 6 "
        "of the headers of the table before it ('Plan', 'VRAM/GPU', 'vCPUs', 'RAM', 'STORAGE', "
        "'PRICE/GPU/HR*'): what its cells hold cannot be told, so none of its rows is read"
    ) in str(failed.value)
    assert PAGE_URL in str(failed.value)


B200_HOST = '<td data-label="RAM">2900 GiB</td><td data-label="STORAGE">22 TiB SSD</td>'


@pytest.mark.parametrize(
    ("ram", "storage", "host"),
    [
        # It read 2.0 (the size stopped at the space) and 230400 (every comma dropped).
        ("2&nbsp;900 GiB", "22,5 TiB SSD", (2900.0, 22.5 * 1024)),
        ("2&thinsp;900 GiB", "22&#8239;500 GB SSD", (2900.0, 22500.0)),
        ("2,900 GiB", "22.5 TiB SSD", (2900.0, 22.5 * 1024)),
        # Read two ways, so neither: the host is left empty, the price loaded as it is.
        ("2 90 GiB", "1.234,5 TB SSD", (None, None)),
    ],
)
def test_host_sizes_are_read_in_the_number_formats_a_page_writes(ram, storage, host):
    changed = _changed(
        B200_HOST, f'<td data-label="RAM">{ram}</td><td data-label="STORAGE">{storage}</td>'
    )
    b200 = by_name(parse([changed]).records)["8x B200 SXM"]
    assert (b200.ram_gb, b200.disk_gb) == host and b200.price_per_hour == 53.52


def _each_price_cell(written: str) -> Payload:
    """The recorded page with each price cell of its tables ("$3.99") written `written`
    ("{}/GPU/hr": "$3.99/GPU/hr"), its price header "PRICE*", a bare price."""
    data = page().data.decode().replace("PRICE/GPU/HR*</th>", "PRICE*</th>")
    cell = re.compile(r'(<td data-label="PRICE/GPU/HR\*">)(\$[0-9.]+)</td>')
    data = cell.sub(lambda m: m[1] + written.format(m[2]) + "</td>", data)
    return Payload(data.encode(), PAGE_URL, FETCHED_AT, "changed", "changed")


@pytest.mark.parametrize("written", ["{}/GPU/hr", "{} per GPU per hour", "{} / GPU / h"])
def test_a_bare_price_header_is_read_in_the_unit_its_table_states(written, from_page):
    """A header "PRICE*" naming no unit, each cell "$3.99/GPU/hr": the table says the hour, and
    the GPU, so it is read as the recorded page is (the source failed, 'names no hour')."""
    result = parse([_each_price_cell(written)])
    assert [(r.instance_type, r.price_per_hour) for r in result.records] == [
        (r.instance_type, r.price_per_hour) for r in from_page.records
    ]
    assert not result.rejects


def test_a_bare_price_header_whose_table_says_the_hour_alone_prices_the_instance():
    """ "$31.92/hr" under "PRICE*": the instance's hour, as nothing says a GPU's."""
    result = parse([_each_price_cell("{}/hr")])
    assert by_name(result.records)["8x H100-SXM"].price_per_hour == 3.99
    assert by_name(result.records)["8x H100-SXM"].extra["listed"] == "$3.99/hr per instance-hour"


@pytest.mark.parametrize(
    ("written", "says"),
    [
        ("{}/mo", "names no hour, and its table names 'mo'"),
        ("{}/hr", None),  # read: the hour alone
        ("{} monthly", "names no hour, and its table names 'monthly'"),
        ("{}", "names no hour, nor does its table"),
    ],
)
def test_a_bare_price_header_fails_where_its_table_names_no_hour_or_another_unit(written, says):
    if says is None:
        assert parse([_each_price_cell(written)]).records
        return
    with pytest.raises(ParseError) as failed:
        parse([_each_price_cell(written)])
    assert f"heads its price column 'PRICE*', which {says}: prices are read per hour" in str(
        failed.value
    )
