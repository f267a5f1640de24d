"""What a web source reads of its page is what a browser shows (extract/_html_tree.py): cents
raised in a <sup> are the price's, or refuse the cell where they cannot be told from a
footnote mark; a <noscript> copy of the page is not read. Each through the source's own parse
of its recorded page, changed in place.

Before, every <sup> was left out as a footnote: civo's "$10<sup>32</sup>" loaded 10.00 with no
reject, coreweave's "$68<sup>.80</sup>" 68.00; and the tree walks went into <noscript>, so a
stale copy of civo's price list there, before the real one, loaded 1x L40S Small at 9.99 (since
civo reads every copy of its list, a4ba6e13, the two disagreeing refused both).
"""

from __future__ import annotations

import importlib

import pytest

from chipcost.extract._html_tree import parse_html
from chipcost.extract._kit import PriceError, parse_price
from tests.paths import FIXTURES
from tests.sources import payloads_of

# Each source that reads an HTML page, its recorded page, and one price cell of it as the page
# writes it: its whole amount and its cents, and what follows them in the markup.
PRICED = {
    "civo": ("pricing.html", "$10", "32", "<span>per hour</span>"),
    "coreweave": ("pricing-2026-08-22.html", "$68", "80", "</span> / Hour"),
    "crusoe": ("pricing-2026-08-22.html", "$3", "90", "/GPU-hr"),
    "gmicloud": ("pricing.html", "$2", "60", "</span>"),
    "lambda_cloud": ("pricing-2026-08-22.html", "$3", "99", "</td>"),  # not its script's copy
    "modal": ("pricing.html", "$0", "001097", " / sec"),
    "nebius": ("prices.html", "$7", "85", ""),
    # its On-demand column's, not the first table's (not read)
    "together_clusters": ("pricing-2026-08-22.html", "$5", "99", "</p></div></td><td>"),
}
CANNOT_TELL = "cents or a footnote cannot be told apart"


def _page(name: str, html: str | None = None):
    module = importlib.import_module(f"chipcost.extract.{name}")
    url = getattr(module, "PAGE_URL", None) or module.PRICING_URL
    fixture = PRICED[name][0]
    if html is None:
        html = (FIXTURES / module.SOURCE.name / fixture).read_text(encoding="utf-8")
    return module.parse([payloads_of(module.SOURCE.name, url)(fixture, data=html.encode())])


def _said(result) -> tuple[list[str], list[str]]:
    return sorted(map(repr, result.records)), sorted(map(repr, result.rejects))


def _changed(name: str, cell: str) -> str:
    """The recorded page with its PRICED cell (the first so written) written as `cell`."""
    module = importlib.import_module(f"chipcost.extract.{name}")
    fixture, whole, cents, after = PRICED[name]
    page = (FIXTURES / module.SOURCE.name / fixture).read_text(encoding="utf-8")
    written = f"{whole}.{cents}{after}"
    assert written in page
    return page.replace(written, cell + after, 1)


@pytest.fixture(scope="module")
def recorded() -> dict[str, tuple[list[str], list[str]]]:
    return {name: _said(_page(name)) for name in PRICED}


@pytest.mark.parametrize("name", sorted(PRICED))
def test_cents_raised_after_a_point_are_the_prices_own(name, recorded):
    """A cell written "$68<sup>.80</sup>" is $68.80, every offer as the recorded page's
    (coreweave's loaded 68.00)."""
    _, whole, cents, _ = PRICED[name]
    assert _said(_page(name, _changed(name, f"{whole}<sup>.{cents}</sup>"))) == recorded[name]


@pytest.mark.parametrize("mark", ["1", "*", "1,2", "*†", "‡", "§", "¶", "#", "®", "™", "TM", "²"])
@pytest.mark.parametrize("name", sorted(PRICED))
def test_a_mark_raised_after_an_amount_with_its_cents_is_a_footnote(name, mark, recorded):
    _, whole, cents, _ = PRICED[name]
    changed = _changed(name, f"{whole}.{cents}<sup>{mark}</sup>")
    assert _said(_page(name, changed)) == recorded[name]


def _refused(name: str, cell: str, recorded, *why: str) -> str:
    """The page with its PRICED cell written `cell` loads every other offer and refuses that
    one, naming what it refuses and why; the reason."""
    result = _page(name, _changed(name, cell))
    records, rejects = _said(result)
    assert set(records) < set(recorded[name][0])
    assert len(records) == len(recorded[name][0]) - 1
    [refused] = [r for r in result.rejects if repr(r) not in recorded[name][1]]
    for said in why:
        assert said in refused.reason
    return refused.reason


@pytest.mark.parametrize("name", sorted(PRICED))
def test_digits_raised_after_a_whole_amount_refuse_the_cell(name, recorded):
    """A cell written "$10<sup>32</sup>" is $10.32 or $10 with footnote 32: it is refused naming
    it and why, never read as 10 (civo loaded 10.00 with no reject); the page's other offers
    load."""
    _, whole, cents, _ = PRICED[name]
    # modal reads its per-second price as a plain number, not a cell
    why = () if name == "modal" else (CANNOT_TELL,)
    _refused(name, f"{whole}<sup>{cents}</sup>", recorded, f"{whole}{_up(cents)}", *why)


def _up(digits: str) -> str:
    return digits.translate(str.maketrans("0123456789", "⁰¹²³⁴⁵⁶⁷⁸⁹"))


@pytest.mark.parametrize("name", sorted(PRICED))
def test_digits_raised_after_a_numbers_point_are_its_cents(name, recorded):
    """A cell written "$3.<sup>99</sup>" is $3.99, every offer as the recorded page's (lambda
    loaded 8x H100-SXM at 24.00 for 31.92, the whole dollars, with no reject)."""
    _, whole, cents, _ = PRICED[name]
    assert _said(_page(name, _changed(name, f"{whole}.<sup>{cents}</sup>"))) == recorded[name]


@pytest.mark.parametrize(
    "cell",
    [
        "{whole}<sup>{cents}*</sup>",
        "{whole}<sup>{cents}†</sup>",
        "{whole}<sup>{cents} /hr</sup>",
        "{number}<sup>{cents}</sup> USD",
        "{number}<sup>{cents}</sup>",
    ],
)
@pytest.mark.parametrize("name", sorted(PRICED))
def test_digits_raised_after_a_whole_number_with_more_or_no_currency_refuse_the_cell(
    name, cell, recorded
):
    """Digits raised after a whole amount with a footnote mark or a unit after them, after a
    whole number with its currency after it, or two of them after a whole number alone, are
    cents or a footnote all the same: refused, never read as the whole amount (each loaded
    3.00 of '$3<sup>50*</sup>', '3<sup>50</sup> USD', '3<sup>50</sup>' with no reject)."""
    _, whole, cents, _ = PRICED[name]
    written = cell.format(whole=whole, number=whole.lstrip("$"), cents=cents)
    why = () if name == "modal" else (CANNOT_TELL,)
    _refused(name, written, recorded, _up(cents), *why)


@pytest.mark.parametrize("cell", ["<sup>€</sup>{amount}", "${amount}<sup>/min</sup>"])
@pytest.mark.parametrize("name", sorted(PRICED))
def test_a_currency_or_unit_raised_is_read_as_the_page_shows_it(name, cell, recorded):
    """A currency or a unit written in a <sup> is text the page shows: the cell reads
    '€3.50' or '$0.058/min' and is refused as those are (nebius loaded '<sup>€</sup>3.50' as
    3.50 US dollars, '$0.058<sup>/min</sup>' as 0.058 an hour)."""
    _, whole, cents, _ = PRICED[name]
    amount = f"{whole.lstrip('$')}.{cents}"
    written = cell.format(amount=amount)
    _refused(name, written, recorded, written.replace("<sup>", "").replace("</sup>", ""))


def test_lambdas_price_raised_per_node_is_refused_as_an_instances():
    """lambda reads its price per GPU and multiplies it by the GPUs: '$31.92<sup>/node</sup>'
    loaded 8x H100-SXM at 255.36."""
    page = _lambda_page().replace(">$3.99<", ">$3.99<sup>/node</sup><", 1)
    [refused] = [r for r in _page("lambda_cloud", page).rejects if "/node" in r.reason]
    assert refused.reason.startswith("8x NVIDIA H100 SXM: price: price '$3.99/node' is per")


def _lambda_page() -> str:
    return (FIXTURES / "lambda" / PRICED["lambda_cloud"][0]).read_text(encoding="utf-8")


@pytest.mark.parametrize(
    ("name", "written", "raised"),
    [
        ("lambda_cloud", 'tab-button">8x</button>', 'tab-button">8<sup>1</sup>x</button>'),
        ("lambda_cloud", ">NVIDIA H100 SXM</th>", ">NVIDIA<sup>TM</sup> H100 SXM</th>"),
        ("civo", ">1 x NVIDIA L40S", ">1<sup>1</sup> x NVIDIA<sup>®</sup> L40S"),
    ],
)
def test_a_footnote_mark_on_a_count_or_a_name_is_left_out(name, written, raised, recorded):
    page = (FIXTURES / name.split("_")[0] / PRICED[name][0]).read_text(encoding="utf-8")
    assert written in page
    assert _said(_page(name, page.replace(written, raised))) == recorded[name]


def test_a_noscript_in_the_head_is_not_read():
    """gmicloud's recorded page with a changed H200 card in a <noscript> in its <head> loads
    the real H200 at 2.60: the parse runs as a browser running scripts does, the <noscript>
    one text (lexbor moved its markup into the body, so it refused the H200 as priced
    twice)."""
    page = (FIXTURES / "gmicloud" / PRICED["gmicloud"][0]).read_text(encoding="utf-8")
    stale = (
        "<noscript><div><h3>NVIDIA H200</h3><div><span>from $9.99</span><span>/GPU-hour</span>"
        '</div></div></noscript><meta charSet="utf-8"/>'
    )
    assert '<meta charSet="utf-8"/>' in page
    result = _page("gmicloud", page.replace('<meta charSet="utf-8"/>', stale, 1))
    assert _said(result) == _said(_page("gmicloud"))
    assert [r.price_per_hour for r in result.records if r.instance_type == "1x H200"] == [2.6]


def test_civos_refused_cell_is_named_with_why():
    changed = _changed("civo", "$10<sup>32</sup>")
    [refused] = [r for r in _page("civo", changed).rejects if CANNOT_TELL in r.reason]
    assert refused.reason.startswith("8x L40S Extra Large none: price '$10³²'")
    assert refused.reason.endswith(
        "has 32 raised after the whole amount 10: cents or a footnote cannot be told apart, so "
        "it is read neither as 10 nor as 10.32"
    )


@pytest.mark.parametrize(
    ("html", "text"),
    [
        ("<p>$10<sup>32</sup>/hr</p>", "$10³²/hr"),
        ("<p><span>US$</span> 1,234<sup>50</sup></p>", "US$ 1,234⁵⁰"),
        ("<p>$68<sup>.80</sup> / Hour</p>", "$68.80 / Hour"),
        ("<p>$68 <sup>.80</sup></p>", "$68 .80"),  # refused as two numbers, not read as 68
        ("<p>$2.49<sup>1</sup></p>", "$2.49"),
        ("<p>$2,49<sup>1</sup></p>", "$2,49"),  # a decimal comma: its cents are there
        ("<p>$10<sup>*</sup></p>", "$10"),
        ("<p>4<sup>1</sup></p>", "4"),  # coreweave's GPU count with its footnote
        # two digits or more after a whole number: cents or a power, not a footnote mark
        ("<p>1 GB is 2<sup>30</sup> bytes</p>", "1 GB is 2³⁰ bytes"),
        ("<p>$3.<sup>99</sup></p>", "$3.99"),
        ("<p>$3<sup>50*</sup></p>", "$3⁵⁰"),
        ("<p>$3<sup>50 /hr</sup></p>", "$3⁵⁰ /hr"),
        ("<p>3<sup>50</sup> USD</p>", "3⁵⁰ USD"),
        ("<p>3<sup>50</sup></p>", "3⁵⁰"),
        ("<p>8<sup>1</sup>x</p>", "8x"),
        ("<p><sup>€</sup>3.50 <span>$0.058</span><sup>/min</sup></p>", "€3.50 $0.058/min"),
        ("<p>NVIDIA<sup>®</sup> H100<sup>TM</sup> <sup>[2]</sup></p>", "NVIDIA H100"),
        ("<p>$10<br><sup>32</sup></p>", "$10"),  # a block between: a footnote
    ],
)
def test_a_sup_after_a_number_reads_as_its_cents_or_a_footnote(html, text):
    assert parse_html(html).find("p").text() == text


def test_raised_cents_join_the_text_of_the_amount_wherever_it_is_read():
    """The amount's own element and its strings alone read them too (civo reads a price
    cell's strings, its unit the <span> after them)."""
    tree = parse_html("<p><span>$68</span><sup>.80</sup> / Hour</p><p>$10<sup>32</sup><i>/h</i>")
    assert tree.find("span").text() == "$68.80"
    [_, second] = tree.find_all("p")
    assert [c for c in second.children if isinstance(c, str)] == ["$10³²"]


def test_raised_digits_after_a_whole_amount_are_no_price():
    with pytest.raises(PriceError, match=CANNOT_TELL):
        parse_price("$10³²/hr")
    with pytest.raises(PriceError, match="not one USD amount"):
        parse_price("$68 .80")


def test_a_noscript_copy_of_the_price_list_is_not_read():
    """civo's recorded page with a changed copy of itself in <noscript> before the real
    list: the real prices load, as the recorded page's (it loaded 1x L40S Small at 9.99, then
    refused it as priced twice)."""
    page = (FIXTURES / "civo" / "pricing.html").read_text(encoding="utf-8")
    body = page[page.index("<body>") + len("<body>") : page.index("</body>")]
    stale = body.replace("$1.29<span>", "$9.99<span>")
    assert stale != body
    wrapped = page.replace("<body>", f"<body><noscript>{stale}</noscript>", 1)
    result = _page("civo", wrapped)
    small = [r for r in result.records if r.instance_type == "1x L40S Small"]
    assert {r.price_per_hour for r in small if r.pricing_model == "on_demand"} == {1.29}
    assert _said(result) == _said(_page("civo"))


def test_the_tree_walks_skip_what_a_browser_never_shows():
    tree = parse_html(
        "<body><noscript><div class='price'>9.99</div><sup>1</sup></noscript>"
        "<div class='price'>1.29</div><style>div{}</style><script>x</script></body>"
    )
    assert [e.text() for e in tree.find_all(None, "price")] == ["1.29"]
    assert not {"noscript", "style", "script", "sup"} & {e.tag for e in tree.iter()}
    assert tree.find("body").footnotes() == []
