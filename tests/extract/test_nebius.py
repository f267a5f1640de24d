"""nebius: parse() on the prices page as recorded and as reconstructed, its changed layouts,
and fetch() over HTTP.

tests/fixtures/nebius/prices-2026-08-22.html is a recording of the page's table data (the
blocks the browser renders, escaped inside a script); prices.html reproduces the rendered
highlight-table blocks (a GPU table priced per GPU-hour with preemptible and on-demand
columns, a CPU table), trimmed, with the sample's prices.
"""

from __future__ import annotations

import re

import httpx
import pytest

from chipcost.archive import read_payloads
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.extract.nebius import PRICING_URL, SOURCE, columns, fetch, parse
from chipcost.transform.validate import validate_records
from tests.paths import FIXTURES
from tests.sources import STAMP, context, payload

FIXTURES = FIXTURES / "nebius"
HEADER_CELL = '<div class="pc-highlight-table-block__cell" role="columnheader">{}</div>'
CELL = '<div class="pc-highlight-table-block__cell" role="cell">'
ROW_CELL = '<div class="pc-highlight-table-block__row" role="row">' + CELL


def html() -> str:
    return (FIXTURES / "prices.html").read_text()


def page(text: str | None = None) -> Payload:
    return payload(
        "nebius", "prices.html", PRICING_URL, data=None if text is None else text.encode()
    )


def find(records, instance_type, model="on_demand", term="none"):
    found = [
        r
        for r in records
        if (r.instance_type, r.pricing_model, r.term) == (instance_type, model, term)
    ]
    assert len(found) == 1, f"{len(found)} records for {instance_type} {model} {term}"
    return found[0]


def test_per_gpu_hour_prices_are_one_gpu_instances():
    records = parse([page()]).records
    h200 = find(records, "NVIDIA HGX H200")
    assert (h200.chip, h200.chip_count, h200.price_per_hour) == ("H200", 1.0, 3.5)
    assert h200.region == "global" and h200.source_url == PRICING_URL
    assert h200.extra == {"price_basis": "per GPU-hour", "column": "On-demand, GPU-hour"}
    # The one-GPU preset's "vCPUs" 16 and "RAM, GB" 200; the page lists no disk.
    assert (h200.vcpus, h200.ram_gb, h200.disk_gb) == (16.0, 200.0, None)
    assert find(records, "NVIDIA HGX H100").chip == "H100-SXM"


def test_preemptible_is_spot():
    records = parse([page()]).records
    assert find(records, "NVIDIA HGX B200", "spot").price_per_hour == 2.6
    assert find(records, "NVIDIA HGX H100", "spot").price_per_hour == 1.25


def test_l40s_presets_keep_their_names_and_map_to_one_chip():
    records = parse([page()]).records
    amd, intel = (
        find(records, "NVIDIA L40S GPU with AMD"),
        find(records, "NVIDIA L40S GPU with Intel"),
    )
    assert (amd.chip, amd.price_per_hour, intel.chip, intel.price_per_hour) == (
        "L40S",
        1.82,
        "L40S",
        1.55,
    )


def test_dash_and_contact_us_cells_are_rejects_with_reasons():
    rejects = parse([page()]).rejects
    reasons = sorted(r.reason for r in rejects)
    assert reasons == [
        "NVIDIA GB200 NVL72 On-demand, GPU-hour: no price listed (Contact us)",
        "NVIDIA GB200 NVL72 Preemptible, GPU-hour: no price listed (—)",
        "NVIDIA L40S GPU with AMD Preemptible, GPU-hour: no price listed (—)",
        "NVIDIA L40S GPU with Intel Preemptible, GPU-hour: no price listed (—)",
    ]
    assert all(r.payload_ref.endswith("prices.html") for r in rejects)


def test_cpu_table_is_not_read_and_every_record_validates():
    records = parse([page()]).records
    assert not [r for r in records if "Ice Lake" in r.instance_type]
    validated = validate_records(records, {"nebius": "nebius"})
    assert validated.rejects == [] and len(validated.records) == len(records) == 10


def test_a_commitment_column_is_read_with_its_term():
    with_commitment = (
        html()
        .replace(
            HEADER_CELL.format("On-demand, GPU-hour"),
            HEADER_CELL.format("On-demand, GPU-hour")
            + HEADER_CELL.format("3-month commitment, GPU-hour"),
        )
        .replace(
            '<div class="pc-highlight-table-block__cell" role="cell">$3.50</div>',
            '<div class="pc-highlight-table-block__cell" role="cell">$3.50</div>'
            '<div class="pc-highlight-table-block__cell" role="cell">$2.80</div>',
        )
    )
    result = parse([page(with_commitment)])
    commitment = find(result.records, "NVIDIA HGX H200", "commitment", "3mo")
    assert commitment.price_per_hour == 2.8
    # Rows that lack the new cell no longer line up with the header: refused, not misread.
    assert any("5 cells for 6 columns" in r.reason for r in result.rejects)


@pytest.mark.parametrize(
    ("header", "model", "term"),
    [
        ("Price per GPU-hour", "on_demand", "none"),
        ("Preemptible, GPU-hour", "spot", "none"),
        ("1-year commitment, GPU-hour", "commitment", "1yr"),
        ("Reserved 6 months, GPU-hour", "commitment", "6mo"),
        ("Commitment, GPU-hour", "commitment", ""),
        ("RAM, GB", "", "none"),
    ],
)
def test_columns_are_told_apart_by_their_headers(header, model, term):
    [column] = columns([header])
    assert (column.model, column.term) == (model, term)


def test_a_commitment_without_a_term_is_refused_not_guessed():
    unclear = html().replace(
        HEADER_CELL.format("Preemptible, GPU-hour"), HEADER_CELL.format("Commitment, GPU-hour")
    )
    result = parse([page(unclear)])
    assert not [r for r in result.records if r.pricing_model == "commitment"]
    assert any("names no commitment term" in r.reason for r in result.rejects)


def test_a_renamed_item_column_fails_the_source_naming_the_url():
    changed = html().replace(HEADER_CELL.format("Item"), HEADER_CELL.format("Configuration"))
    with pytest.raises(ParseError) as error:
        parse([page(changed)])
    assert str(error.value).startswith("nebius:") and PRICING_URL in str(error.value)
    assert "Item" in str(error.value)


def test_a_table_without_gpu_hour_prices_fails_the_source():
    changed = html().replace(", GPU-hour</div>", " per hour</div>")
    with pytest.raises(ParseError, match="On-demand, GPU-hour"):
        parse([page(changed)])


def test_a_page_without_the_tables_fails_instead_of_reporting_no_offers():
    with pytest.raises(ParseError, match="nebius"):
        parse([page("<html><body><div id='__next'></div></body></html>")])


def test_fetch_archives_the_page(tmp_path):
    def handler(request: httpx.Request) -> httpx.Response:
        assert str(request.url) == PRICING_URL
        return httpx.Response(200, text=html(), headers={"Content-Type": "text/html"})

    [fetched] = fetch(context(tmp_path, SOURCE.name, handler))
    [archived] = read_payloads(tmp_path / STAMP, "nebius")
    assert archived.data == fetched.data and archived.url == PRICING_URL
    assert len(parse([archived]).records) == 10


def test_the_recorded_table_data_loads_its_seven_presets_both_ways():
    recorded = payload("nebius", "prices-2026-08-22.html", PRICING_URL)
    result = parse([recorded])
    found = {(r.instance_type, r.pricing_model): (r.chip, r.price_per_hour) for r in result.records}
    assert found[("NVIDIA HGX H100", "on_demand")] == ("H100-SXM", 3.85)
    assert found[("NVIDIA HGX H100", "spot")] == ("H100-SXM", 2.15)
    assert found[("NVIDIA HGX B300", "on_demand")] == ("B300", 7.85)
    assert found[("NVIDIA RTX PRO 6000", "on_demand")] == ("RTX-PRO-6000", 1.8)
    assert len(found) == 14 and "unknown" not in {chip for chip, _ in found.values()}
    # "from $1.82": the lowest price of a preset sold in several sizes, and said so
    l40s = find(result.records, "NVIDIA L40S with Intel CPU")
    assert (l40s.price_per_hour, l40s.extra["price_listed"]) == (1.82, "from $1.82")
    assert (l40s.vcpus, l40s.ram_gb) == (None, None)  # "16-192": no one host
    # GB300 and GB200 NVL72: "––" and a "[Contact us](...)" link, no price
    reasons = sorted(r.reason for r in result.rejects)
    assert reasons == [
        "NVIDIA GB200 NVL72 On-demand, GPU-hour: no price listed (Contact us)",
        "NVIDIA GB200 NVL72 Preemptible, GPU-hour: no price listed (––)",
        "NVIDIA GB300 NVL72 On-demand, GPU-hour: no price listed (Contact us)",
        "NVIDIA GB300 NVL72 Preemptible, GPU-hour: no price listed (––)",
    ]
    assert "AMD EPYC Genoa" not in {r.instance_type for r in result.records}  # a CPU table
    # The page's word that it lists no price: its offer is not kept open (it is withdrawn).
    assert not [r.offer for r in result.rejects if r.offer]


def test_a_price_cell_that_cannot_be_read_names_its_offer():
    """The recorded page with H100's preemptible cell reading "ask us": a reject naming the
    offer (kept open, not withdrawn, while its price cannot be read)."""
    text = (FIXTURES / "prices-2026-08-22.html").read_text(encoding="utf-8")
    data = text.replace('\\"$2.15\\"', '\\"ask us\\"').encode()
    result = parse([payload("nebius", "prices-2026-08-22.html", PRICING_URL, data=data)])
    (refused,) = [r for r in result.rejects if "ask us" in r.reason]
    assert refused.offer == {
        "provider": "nebius", "region": "global", "zone": "", "instance_type": "NVIDIA HGX H100",
        "pricing_model": "spot", "term": "none", "payment": "none", "plan": "default",
    }  # fmt: skip
    assert len(result.records) == 13


def test_renamed_columns_in_the_table_data_fail_naming_them():
    text = (FIXTURES / "prices-2026-08-22.html").read_text(encoding="utf-8")
    renamed = text.replace("On-demand, GPU-hour", "Hourly").replace("Preemptible, GPU-hour", "x")
    with pytest.raises(ParseError, match="On-demand, GPU-hour"):
        parse([payload("nebius", "prices-2026-08-22.html", PRICING_URL, data=renamed.encode())])


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        # read as 4.3 on c96d2408: nebius read its cells without the unit and "from" checks
        ("starting at $4.30", "is a lowest price ('starting at')"),
        ("as low as $4.30", "is a lowest price ('as low as')"),
        ("$4.30 per instance", "is per instance, where this column is read as a price per GPU"),
        ("$-2.60", "is negative"),
        ("from $-2.60", "is negative"),
        ("from $2..15", "is not a number chipcost reads"),
    ],
)
def test_a_cell_is_read_through_the_checks_every_price_per_gpu_has(cell, said):
    text = (FIXTURES / "prices-2026-08-22.html").read_text(encoding="utf-8")
    data = text.replace('\\"$2.15\\"', f'\\"{cell}\\"').encode()
    result = parse([payload("nebius", "prices-2026-08-22.html", PRICING_URL, data=data)])
    assert ("NVIDIA HGX H100", "spot") not in {
        (r.instance_type, r.pricing_model) for r in result.records
    }
    [refused] = [r for r in result.rejects if "NVIDIA HGX H100 Preemptible" in r.reason]
    assert said in refused.reason
    assert refused.offer["pricing_model"] == "spot"  # kept open: a price it cannot read


def test_a_from_price_stays_read_as_the_presets_lowest_and_said_so():
    text = (FIXTURES / "prices-2026-08-22.html").read_text(encoding="utf-8")
    data = text.replace('\\"$2.15\\"', '\\"From $2.15/GPU-hour\\"').encode()
    result = parse([payload("nebius", "prices-2026-08-22.html", PRICING_URL, data=data)])
    h100 = find(result.records, "NVIDIA HGX H100", "spot")
    assert (h100.price_per_hour, h100.extra["price_listed"]) == (2.15, "From $2.15/GPU-hour")


def recorded() -> str:
    return (FIXTURES / "prices-2026-08-22.html").read_text(encoding="utf-8")


def parse_recorded(text: str):
    return parse([payload("nebius", "prices-2026-08-22.html", PRICING_URL, data=text.encode())])


@pytest.mark.parametrize(
    ("header", "renamed", "said"),
    [
        # each loaded no price of its column and said nothing on 9cdb87dd: the offers were
        # withdrawn on a run that reported ok
        ("On-demand, GPU-hour", "Pay-as-you-go, GPU-hour", "names no pricing model"),
        ("On-demand, GPU-hour", "Price, GPU-hour", "names no pricing model"),
        ("On-demand, GPU-hour", "On-demand, GPU-month", "unit is not written 'GPU-hour'"),
        ("Preemptible, GPU-hour", "Preemptible, GPU-minute", "unit is not written 'GPU-hour'"),
        ("Preemptible, GPU-hour", "Discounted", "names no pricing model"),  # its cells of money
    ],
)
def test_a_price_column_it_cannot_read_fails_the_source_naming_it(header, renamed, said):
    changed = html().replace(HEADER_CELL.format(header), HEADER_CELL.format(renamed))
    with pytest.raises(ParseError) as error:
        parse([page(changed)])
    message = str(error.value)
    assert message.startswith("nebius:") and PRICING_URL in message
    assert f"price column headed {renamed!r}" in message and said in message
    # the table data is read by the same rule
    with pytest.raises(ParseError, match=re.escape(repr(renamed))):
        parse_recorded(recorded().replace(f'\\"{header}\\"', f'\\"{renamed}\\"'))


def test_an_on_demand_header_without_its_hyphen_is_read_as_on_demand():
    changed = html().replace(
        HEADER_CELL.format("On-demand, GPU-hour"), HEADER_CELL.format("On demand, GPU-hour")
    )
    records = parse([page(changed)]).records
    assert find(records, "NVIDIA HGX H200").price_per_hour == 3.5 and len(records) == 10


def test_a_table_split_in_two_bodies_is_read_whole_under_its_header():
    """The GPU block's rows from H200 on in a second table of the block, without a header of
    its own: read under the block's header (on 9cdb87dd H200, H100 and the L40S presets were
    gone without a word)."""
    row = ROW_CELL + "NVIDIA HGX H200"
    split = html().replace(
        row,
        '</div></div><div class="pc-highlight-table-block__table" role="table">'
        '<div class="pc-highlight-table-block__body" role="rowgroup">' + row,
    )
    assert split != html()
    records = parse([page(split)]).records
    assert find(records, "NVIDIA HGX H200").price_per_hour == 3.5
    assert find(records, "NVIDIA L40S GPU with Intel").price_per_hour == 1.55
    assert len(records) == 10


def test_a_block_of_rows_without_a_header_fails_the_source_naming_it():
    headless = html().replace(
        '<div class="pc-block-base pc-content-block">',
        '<div class="pc-block-base pc-highlight-table-block" id="more">'
        '<div class="pc-highlight-table-block__title"><h2>More GPU Instances</h2></div>'
        '<div class="pc-highlight-table-block__body" role="rowgroup">'
        f"{ROW_CELL}NVIDIA HGX B200</div>{CELL}20</div>{CELL}224</div>{CELL}$1.00</div>"
        f"{CELL}$2.00</div></div></div></div>"
        '<div class="pc-block-base pc-content-block">',
    )
    with pytest.raises(ParseError) as error:
        parse([page(headless)])
    message = str(error.value)
    assert PRICING_URL in message and "'More GPU Instances'" in message
    assert "a row before any header row (NVIDIA HGX B200, 20, 224, $1.00, $2.00)" in message


def test_a_data_block_that_cannot_be_decoded_beside_others_fails_naming_it():
    broken = recorded().replace('\\"title\\":\\"Storage\\"', '\\"title\\":\\"GPU clusters\\"')
    broken = broken.replace('[\\"Shared Filesystem', '[\\"NVIDIA HGX H100\\",\\"$1.00\\"]x[\\"a')
    with pytest.raises(ParseError, match="'GPU clusters' whose data cannot be decoded"):
        parse_recorded(broken)


def test_the_data_footnote_marks_are_left_out_of_names_and_prices():
    """The page's data marks a footnote "^*^" ("Free^*^"): on 9cdb87dd "NVIDIA HGX H200^*^"
    was the instance type (the offer's history split) and "$4.50^1^" was refused."""
    marked = recorded().replace('NVIDIA HGX H200\\"', 'NVIDIA HGX H200^*^\\"')
    result = parse_recorded(marked.replace('\\"$4.50\\"', '\\"$4.50^1^\\"'))
    assert find(result.records, "NVIDIA HGX H200").price_per_hour == 4.5
    assert find(result.records, "NVIDIA HGX H200", "spot").price_per_hour == 2.45
    assert len(result.records) == 14 and len(result.rejects) == 4


@pytest.mark.parametrize(
    ("cell", "said"),
    [
        # digits raised after a whole amount: cents or a footnote, as "$10<sup>32</sup>" is
        ("$4^50^", "has 50 raised after the whole amount 4"),
        ("4^50^ USD", "has 50 raised after the whole amount 4"),
        ("$4.50^/hr^", "'$4.50^/hr^' is not one USD amount"),  # a raised unit is kept
        ("$4.50^EUR^", "'$4.50^EUR^' is not one USD amount"),
    ],
)
def test_a_raised_mark_that_is_no_footnote_is_refused_not_dropped(cell, said):
    result = parse_recorded(recorded().replace('\\"$4.50\\"', f'\\"{cell}\\"'))
    assert ("NVIDIA HGX H200", "on_demand") not in {
        (r.instance_type, r.pricing_model) for r in result.records
    }
    [refused] = [r for r in result.rejects if "NVIDIA HGX H200 On-demand" in r.reason]
    assert said in refused.reason


def test_a_gpu_table_without_an_item_column_fails_naming_its_headers():
    """A GPU table headed "Instance" before the real one: on 9cdb87dd a reject "row of an
    unexpected shape: 'item' is not in list", naming no table, header or page."""
    old = (
        '{\\"type\\":\\"highlight-table-block\\",\\"title\\":\\"Old\\",\\"table\\":{\\"content'
        '\\":[[\\"Instance\\",\\"On-demand, GPU-hour\\"],[\\"NVIDIA HGX H100\\",\\"$9.99\\"]]}},'
    )
    first = '{\\"type\\":\\"highlight-table-block\\",\\"title\\":\\"NVIDIA GPU'
    with pytest.raises(ParseError) as error:
        parse_recorded(recorded().replace(first, old + first))
    message = str(error.value)
    assert PRICING_URL in message and "lacks Item (found instance, on-demand, gpu-hour)" in message


HEAD_ROW = '<div class="pc-highlight-table-block__row" role="row">'
HEADERS = ("Item", "vCPUs", "RAM, GB", "Preemptible, GPU-hour", "On-demand, GPU-hour")
ONE_HEADER_ROW = HEAD_ROW + "".join(HEADER_CELL.format(h) for h in HEADERS) + "</div>"


def _header(text: str, **spans: int) -> str:
    said = "".join(f' {name}="{span}"' for name, span in spans.items())
    return HEADER_CELL.format(text).replace('role="columnheader"', f'role="columnheader"{said}')


@pytest.mark.parametrize("down", ["rowspan", "aria-rowspan"])
def test_a_header_group_of_two_rows_names_each_column_by_both(down):
    """'Price per GPU-hour' spanning two columns over 'Preemptible' and 'On-demand', the other
    headers spanning both rows: each price column is read by both its names. The second row was
    ignored: the table's four names for five cells refused every row."""
    two_rows = (
        HEAD_ROW
        + "".join(_header(h, **{down: 2}) for h in HEADERS[:3])
        + _header("Price per GPU-hour", colspan=2)
        + "</div>"
        + HEAD_ROW
        + HEADER_CELL.format("Preemptible")
        + HEADER_CELL.format("On-demand")
        + "</div>"
    )
    assert ONE_HEADER_ROW in html()
    result = parse([page(html().replace(ONE_HEADER_ROW, two_rows))])
    h200 = find(result.records, "NVIDIA HGX H200")
    assert (h200.price_per_hour, h200.extra["column"]) == (3.5, "Price per GPU-hour, On-demand")
    assert find(result.records, "NVIDIA HGX H100", "spot").price_per_hour == 1.25
    assert (h200.vcpus, h200.ram_gb) == (16.0, 200.0)
    assert len(result.records) == 10 and len(result.rejects) == 4


def test_header_rows_that_do_not_line_up_fail_the_source_naming_them():
    """A second header row of two names under five columns, none spanning: whose names they are
    cannot be told."""
    two_rows = ONE_HEADER_ROW + HEAD_ROW + HEADER_CELL.format("a") + HEADER_CELL.format("b")
    with pytest.raises(ParseError) as error:
        parse([page(html().replace(ONE_HEADER_ROW, two_rows + "</div>"))])
    message = str(error.value)
    assert PRICING_URL in message and "'NVIDIA GPU Instances'" in message
    assert (
        "header rows (Item, vCPUs, RAM, GB, Preemptible, GPU-hour, On-demand, GPU-hour; a, b)"
        in (message)
    )


@pytest.mark.parametrize(
    ("on_demand", "preemptible"),
    [
        ("On-demand, per GPU per hour", "Preemptible, per GPU per hour"),
        ("On-demand, /GPU/hr", "Preemptible, GPU/hour"),
        ("Price per GPU per hour", "Preemptible, GPU hours"),
    ],
)
def test_a_gpu_hour_however_the_header_writes_it_is_read(on_demand, preemptible):
    """'per GPU per hour' is a GPU-hour: it failed the source, 'its unit is not written
    GPU-hour'. The table data is read by the same rule."""
    changed = (
        html()
        .replace(HEADER_CELL.format("On-demand, GPU-hour"), HEADER_CELL.format(on_demand))
        .replace(HEADER_CELL.format("Preemptible, GPU-hour"), HEADER_CELL.format(preemptible))
    )
    result = parse([page(changed)])
    assert find(result.records, "NVIDIA HGX H200").price_per_hour == 3.5
    assert find(result.records, "NVIDIA HGX H100", "spot").price_per_hour == 1.25
    assert len(result.records) == 10
    data = recorded().replace('\\"On-demand, GPU-hour\\"', f'\\"{on_demand}\\"')
    assert data != recorded()
    assert find(parse_recorded(data).records, "NVIDIA HGX H100").price_per_hour == 3.85
