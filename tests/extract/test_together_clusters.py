"""together-clusters: parse() on the pricing page as recorded on 2026-08-22 (per-GPU-hour node
prices recorded per 8-GPU node, read from the GPU Clusters table alone), bad rows, an empty table
refused, and fetch() without a key. ORIGIN.md says where each fixture comes from."""

from __future__ import annotations

import httpx
import pytest

from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract.together_clusters import PAGE_URL, SOURCE, fetch, parse
from tests.paths import FIXTURES
from tests.sources import FETCHED_AT, context, payloads_of

payload = payloads_of("together-clusters", PAGE_URL)
RECORDED = "pricing-2026-08-22.html"


@pytest.fixture(scope="module")
def recorded():
    return parse([payload(RECORDED)])


def test_a_node_type_is_priced_per_8_gpu_node_hour(recorded):
    """The GPU Clusters table's ON-Demand column: HGX H100 $3.99, H200 $5.99, B200 $8.19 a
    GPU-hour, each an 8-GPU node."""
    nodes = {r.instance_type: r for r in recorded.records}
    h100 = nodes["8x HGX H100"]
    assert (h100.provider, h100.chip, h100.chip_count, h100.price_per_hour) == (
        "together", "H100-SXM", 8.0, 31.92,
    )  # fmt: skip
    assert (h100.extra["listed"], h100.sku, h100.region) == (
        "$3.99 per GPU-hour", "NVIDIA HGX H100", "global",
    )  # fmt: skip
    assert (nodes["8x HGX H200"].chip, nodes["8x HGX H200"].price_per_hour) == ("H200", 47.92)
    assert (nodes["8x HGX B200"].chip, nodes["8x HGX B200"].price_per_hour) == ("B200", 65.52)
    assert len(nodes) == 3
    # GB200 NVL72, GB300 NVL72 and HGX B300 list no on-demand price ("—"): rejects.
    assert sorted(r.reason for r in recorded.rejects) == [
        "NVIDIA GB200 NVL72: price: no price listed (—)",
        "NVIDIA GB300 NVL72: price: no price listed (—)",
        "NVIDIA HGX B300: price: no price listed (—)",
    ]


def test_only_the_gpu_clusters_table_the_page_shows_is_read(recorded):
    """The Dedicated Inference table before it prices an H100 GPU-hour at $5.49 and a B200 at
    $8.99, and a hidden table repeats the on-demand column: neither is read, so no node type is
    priced twice and none at a dedicated-inference price."""
    data = payload(RECORDED).data
    assert b"$5.49" in data and b"$8.99" in data and b'<div class="hide">' in data
    assert {r.price_per_hour / 8 for r in recorded.records} == {3.99, 5.99, 8.19}
    shown = data.replace(b'<div class="hide">', b'<div class="shown">')
    # Shown, its "Hourly" column is no On-demand header: the source fails naming the column,
    # not reading the price beside the node type as on-demand...
    with pytest.raises(ParseError, match="lacks On-demand"):
        parse([Payload(shown, PAGE_URL, FETCHED_AT, "shown", "shown")])
    # ...and headed so, its rows come again at equal prices: one record each.
    headed = shown.replace(b">Hourly<", b">On-demand<")
    again = parse([Payload(headed, PAGE_URL, FETCHED_AT, "shown", "shown")])
    assert len(again.records) == 3 and len(again.rejects) == 6  # its rows again, equal prices


def recorded_page(*edits: tuple[str, str]) -> Payload:
    """The recorded page with each (old, new) text replaced (each must be there)."""
    text = (FIXTURES / "together-clusters" / RECORDED).read_text(encoding="utf-8")
    for old, new in edits:
        assert old in text, old
        text = text.replace(old, new)
    return payload(RECORDED, data=text.encode("utf-8"))


def header(text: str) -> str:
    return f'<p class="caption-m">{text}</p>'


def cell(price: str) -> str:
    """What a priced cell of the GPU Clusters table holds, as the page writes it."""
    return f'<div class="opacity-70"><p data-batch="" class="body-m text-weight-medium">{price}</p>'


def test_the_on_demand_price_is_read_under_its_header_wherever_the_column_is():
    """The ON-Demand and 7-30 days columns swapped, headers and cells together: "7-30 days"
    heads the column beside the node type, "ON-Demand" the next (under "Reserved", as the
    headers' two rows lay out). The on-demand price is the ON-Demand column's, $3.99 an H100
    GPU-hour, not the $3.69 beside the node type (read as 29.52 a node when the first price
    cell was taken as on-demand)."""
    swapped = [(header("ON-Demand"), "@1"), (header("7-30 days"), header("ON-Demand"))]
    swapped.append(("@1", header("7-30 days")))
    for on_demand, days in (("$3.99", "$3.69"), ("$5.99", "$4.99"), ("$8.19", "$7.99")):
        pair = f"{cell(on_demand)}</div></td><td>{cell(days)}"
        swapped.append((pair, f"{cell(days)}</div></td><td>{cell(on_demand)}"))
    nodes = {r.instance_type: r for r in parse([recorded_page(*swapped)]).records}
    assert {name: r.price_per_hour for name, r in nodes.items()} == {
        "8x HGX H100": 31.92, "8x HGX H200": 47.92, "8x HGX B200": 65.52,
    }  # fmt: skip
    assert nodes["8x HGX H100"].extra["listed"] == "$3.99 per GPU-hour"


@pytest.mark.parametrize(
    ("edit", "said"),
    [
        (
            (header("ON-Demand"), header("Hourly")),
            "lacks On-demand (found hardware, hourly pay as you go, ",
        ),
        ((header("Hardware"), header("GPU")), "lacks Hardware (found gpu, on-demand, "),
        (
            (header("7-30 days"), header("On-demand, 7-30 days")),
            "heads more than one column alike (On-demand in 'ON-Demand Pay as you go', "
            "'Reserved On-demand, 7-30 days'): which one it means cannot be told",
        ),
    ],
    ids=["on-demand-missing", "hardware-missing", "on-demand-twice"],
)
def test_a_missing_or_doubled_header_fails_the_source_naming_it(edit, said):
    """Without its On-demand header, the GPU Clusters table's prices are no price the page says
    is on demand: the source fails naming the header, before any price is read; so it does
    when two columns are headed On-demand (loaded from the first before)."""
    with pytest.raises(ParseError) as error:
        parse([recorded_page(edit)])
    message = str(error.value)
    assert message.startswith("together: the pr") and said in message and "\n" not in message
    assert PAGE_URL in message and "chipcost collect --replay" in message


def test_bad_rows_become_rejects_with_reasons():
    result = parse([payload("bad-rows.html")])
    reasons = " | ".join(r.reason for r in result.rejects)
    assert "NVIDIA HGX B300: price: no price listed (Contact sales)" in reasons
    assert "'$3-4' is not one USD amount" in reasons
    assert {r.instance_type for r in result.records} == {"8x HGX H100 SXM", "8x HGX B200"}


def test_a_page_without_gpu_rows_is_refused():
    with pytest.raises(ParseError, match="together: the listing at https://www.together.ai"):
        parse([payload("empty.html")])


def test_fetch_reads_the_page_with_no_key(tmp_path):
    body = (FIXTURES / "together-clusters" / RECORDED).read_bytes()

    def answer(request: httpx.Request) -> httpx.Response:
        assert "Authorization" not in request.headers and str(request.url) == PAGE_URL
        return httpx.Response(200, content=body, headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, answer))
    assert len(parse([fetched]).records) == 3


@pytest.mark.parametrize("mark", ["®", "™", "(R)"])
def test_a_mark_after_the_vendor_names_the_same_node_type(mark, recorded):
    """'NVIDIA®' before each node type: the same offers, named as without it (the source
    failed, 'gave no offer')."""
    text = (FIXTURES / "together-clusters" / RECORDED).read_text(encoding="utf-8")
    assert "<span>NVIDIA</span>" in text
    data = text.replace("<span>NVIDIA</span>", f"<span>NVIDIA{mark}</span>").encode()
    result = parse([payload(RECORDED, data=data)])
    assert result.records == recorded.records
    assert [r.reason for r in result.rejects] == [r.reason for r in recorded.rejects]
