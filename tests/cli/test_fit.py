"""The one table writer: columns kept by importance, cells wrapped within the width, numbers and
names never broken, provider text never read as markup."""

from __future__ import annotations

import io
import re
from collections import Counter
from dataclasses import replace

import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

from chipcost.cli.consoles import Screen, print_fitted, print_wrapped
from chipcost.cli.fit import FOLD_INDENT, GAP, Column, Styled, cell_len, fit_table, floor, wrapped

ANSI = re.compile(r"\x1b\[[0-9;]*m")

words = st.text(alphabet="abcxyz-_./$%,:0123456789 日本[]", max_size=30)
cells = st.one_of(
    words,
    st.sampled_from([":smile:", "[red]x[/]", "derived:B200:x", ""]),  # markup and emoji codes
    st.floats(0, 1e7, allow_nan=False).map(lambda v: f"{v:,.4f}"),
    words.map(lambda w: Styled(w, "yellow")),
    st.tuples(st.just(Styled("NO", "bold red")), words.map(lambda w: f" {w}")),
)


@st.composite
def tables(draw):
    count = draw(st.integers(1, 6))
    columns = [
        Column(f"c{i}", f"{draw(words)}c{i}", numeric=draw(st.booleans()),
               essential=draw(st.booleans()), prose=draw(st.booleans()))
        for i in range(count)
    ]  # fmt: skip
    rows = draw(st.lists(st.fixed_dictionaries({c.key: cells for c in columns}), max_size=10))
    return columns, rows


def _text(cell) -> str:
    if isinstance(cell, str):
        return cell
    if isinstance(cell, Styled):
        return cell.text
    return "".join(_text(piece) for piece in cell)


def _printed(fitted, *, colour: bool) -> str:
    console = Screen(io.StringIO(), 40, terminal=colour)
    print_fitted(console, fitted)
    return console.file.getvalue()


@settings(max_examples=100, deadline=None)
@given(tables(), st.integers(20, 200))
def test_a_table_fits_the_width_unless_its_numbers_and_names_alone_do_not(table, width):
    columns, rows = table
    order = [c.key for c in reversed(columns)]
    fitted = fit_table(width, columns, rows, keep_order=order)
    texts = {c.key: [_text(r[c.key]) for r in rows] for c in columns}
    # Each line holds some of the columns: where all of them fit at their floors (a number's
    # widest cell, a word a line), so does each line.
    least = sum(floor(c, c.header, texts[c.key], 2) for c in columns)
    if least + GAP * (len(columns) - 1) + FOLD_INDENT <= width:
        assert fitted.width <= width, fitted.text()
    # Every cell but prose is on one line, in full.
    lines = fitted.text().splitlines()
    for column in columns:
        if not column.prose:
            for value in texts[column.key]:
                assert not value.strip() or any(value.strip() in line for line in lines)


@settings(max_examples=100, deadline=None)
@given(tables(), st.integers(20, 200))
def test_no_column_with_a_value_is_left_out_whatever_the_width(table, width):
    """A column too wide for the row's line is folded onto a second line under each row,
    never dropped: every character of every cell shown (but the spaces a wrap takes), and the
    header of every column that has a value; one line a row where every column fits."""
    columns, rows = table
    fitted = fit_table(width, columns, rows)
    assert fitted.dropped == []
    if not rows:
        return
    valued = [c for c in columns if any(_text(r[c.key]).strip() for r in rows)]
    said = "".join(c.header + "".join(_text(r[c.key]) for r in rows) for c in valued)
    assert not _letters(said) - _letters(fitted.text())  # (a blank column may be kept)
    natural = sum(
        max(cell_len(c.header), *(cell_len(_text(r[c.key])) for r in rows)) for c in valued
    )
    if valued and natural + GAP * (len(valued) - 1) <= width:
        assert len(fitted.lines) == len(rows) + 2  # header, rule, one line a row


def _letters(text: str) -> Counter:
    return Counter(ch for ch in text if not ch.isspace() and ch != "─")


@settings(max_examples=100, deadline=None)
@given(tables(), st.integers(20, 120))
@example(  # the one column is wider than the width and left out: nothing is printed
    ([Column("c0", "c0")], [{"c0": "0" * 21}, {"c0": Styled("0", "yellow")}]), 20
)
def test_the_terminal_prints_the_laid_out_characters_styled(table, width):
    columns, rows = table
    fitted = fit_table(width, columns, rows)
    plain = _printed(fitted, colour=False)
    assert plain == (fitted.text() + "\n" if fitted.lines else "")
    coloured = _printed(fitted, colour=True)
    assert ANSI.sub("", coloured) == plain
    shown = [c for c in columns if c.header not in fitted.dropped]
    if any(isinstance(r[c.key], Styled) and r[c.key].text.strip() for r in rows for c in shown):
        assert "\x1b[" in coloured


def test_provider_text_is_shown_as_it_is():
    columns = [Column("name", "name", essential=True)]
    rows = [{"name": "[red]x[/] :smile: [link=y]z"}]
    assert "[red]x[/] :smile: [link=y]z" in _printed(fit_table(80, columns, rows), colour=True)


def test_the_columns_named_first_are_kept_and_the_last_named_left_out_first():
    columns = [
        Column("chip", "chip", essential=True),
        Column("price", "$/chip-hr", numeric=True, essential=True),
        Column("upfront", "upfront $", numeric=True, essential=True),
        Column("risk", "interrupted", essential=True),
        Column("source", "source"),
    ]
    rows = [
        {"chip": "H100-SXM", "price": "2.5000", "upfront": "291,701.00", "risk": "5-10%",
         "source": "aws-pricing-api"},
    ]  # fmt: skip
    order = ("upfront", "risk", "source")
    wide = fit_table(80, columns, rows, keep_order=order)
    assert wide.dropped == [] and len(wide.lines) == 3
    narrow = fit_table(40, columns, rows, keep_order=order)
    # upfront is named before risk: it keeps the row's line; the rest fold under it
    assert narrow.text().splitlines() == [
        "chip       $/chip-hr    upfront $",
        "  interrupted   source",
        "─" * 33,
        "H100-SXM      2.5000   291,701.00",
        "  5-10%         aws-pricing-api",
    ]
    assert narrow.dropped == [] and narrow.width <= 40


def test_the_price_a_table_is_ranked_by_keeps_the_line_beside_an_id_too_long_for_more():
    """`COLUMNS=80 prices --chip H100-SXM` on the whole sample: a voltagepark zone is a UUID,
    the "where" 58 wide; its row's line showed the instance's 15.9200 and folded the per-chip
    1.9900 to a third line, beside runpod's 1.92 read as the same price. The price the table
    is read by stays on the row's line; the instance's price and chip count, optional, never
    take the room of an essential column folded under the row."""
    columns = [
        Column("where", "where", essential=True),
        Column("pricing", "pricing model", essential=True),
        Column("instance", "instance", essential=True),
        Column("count", "chip count", numeric=True),
        Column("price", "$/chip-hr", numeric=True, essential=True, primary=True),
        Column("per_instance", "$/instance-hr", numeric=True),
    ]
    rows = [
        {"where": "voltagepark global a3111bd4-550a-47d0-838a-0a52bff2ae3f",
         "pricing": "on demand", "instance": "8x h100-sxm5-80gb bare metal ethernet",
         "count": "8", "price": "1.9900", "per_instance": "15.9200"},
        {"where": "runpod global", "pricing": "spot, community", "instance": "1x H100 SXM",
         "count": "1", "price": "1.9200", "per_instance": "1.9200"},
    ]  # fmt: skip
    order = ("instance", "per_instance", "count")
    for width in (60, 80, 90, 100, 120, 150):
        fitted = fit_table(width, columns, rows, keep_order=order)
        assert "price" in fitted.first, (width, fitted.text())
        lines = fitted.text().splitlines()
        rule = next(i for i, line in enumerate(lines) if line.startswith("─"))
        starts = [i for i in range(rule + 1, len(lines)) if lines[i].strip() in ("1.9900", "1.9200")
                  or not lines[i].startswith(" ")]  # fmt: skip
        firsts = [lines[i].split() for i in starts]  # each row's line: its price on it
        assert len(firsts) == 2 and "1.9900" in firsts[0] and "1.9200" in firsts[1], fitted.text()
    # at 80 the UUID keeps the line beside the price, whole; the rest folds under it
    fitted = fit_table(80, columns, rows, keep_order=order)
    assert fitted.first == ("where", "price") and fitted.width <= 80
    lines = fitted.text().splitlines()
    row = lines[next(i for i, line in enumerate(lines) if line.startswith("─")) + 1]
    assert row.split() == [*rows[0]["where"].split(), "1.9900"]


@st.composite
def ranked_tables(draw):
    """A table of tables(), one column of it the primary one."""
    columns, rows = draw(tables())
    at = draw(st.integers(0, len(columns) - 1))
    columns[at] = replace(columns[at], primary=True)
    return columns, rows


@settings(max_examples=200, deadline=None)
@given(ranked_tables(), st.integers(20, 200), st.booleans())
def test_the_rows_line_holds_the_primary_column_and_no_optional_one_ahead_of_an_essential(
    table, width, ordered
):
    """Whatever the width: the primary column (with a value) is on the row's line; and an
    optional column is there only where every essential column with a value is too."""
    columns, rows = table
    order = [c.key for c in reversed(columns)] if ordered else []
    fitted = fit_table(width, columns, rows, keep_order=order)
    valued = {c.key for c in columns if any(_text(r[c.key]).strip() for r in rows)}
    for column in columns:
        if column.primary and column.key in valued:
            assert column.key in fitted.first, fitted.text()
    folded = [c.key for c in columns if c.essential and c.key in valued - set(fitted.first)]
    ahead = [c.key for c in columns if not (c.essential or c.primary) and c.key in fitted.first]
    assert not (folded and ahead), (folded, ahead, fitted.text())


def test_a_row_whose_folded_cells_are_blank_has_no_second_line():
    columns = [Column("chip", "chip", essential=True), Column("risk", "interrupted")]
    rows = [{"chip": " ".join(["H100-SXM"] * 3), "risk": ""}, {"chip": "B200", "risk": "5-10%"}]
    lines = fit_table(30, columns, rows).text().splitlines()
    assert lines == [
        "chip",
        "  interrupted",
        "─" * 26,
        "H100-SXM H100-SXM H100-SXM",
        "B200",
        "  5-10%",
    ]


def test_a_prose_column_wraps_at_spaces_then_after_a_dash():
    columns = [
        Column("said", "said", essential=True, prose=True),
        Column("n", "n", numeric=True, essential=True),
    ]
    rows = [{"said": "mlperf-v5.1-gigacomputing-b200x8-deepseek-r1-offline", "n": "3,859"}]
    lines = fit_table(36, columns, rows).text().splitlines()
    first = "mlperf-v5.1-gigacomputing-".ljust(28 + GAP) + "3,859"
    assert lines[2:] == [first, "b200x8-deepseek-r1-offline"]


def test_an_id_too_wide_for_the_line_beside_a_number_keeps_the_line_and_the_number_folds():
    columns = [Column("id", "id", essential=True), Column("n", "n", numeric=True, essential=True)]
    rows = [{"id": "mlperf-v5.1-gigacomputing-b200x8-deepseek-r1-offline", "n": "3,859"}]
    lines = fit_table(56, columns, rows).text().splitlines()
    assert lines == [
        "id",
        "      n",
        "─" * 52,
        "mlperf-v5.1-gigacomputing-b200x8-deepseek-r1-offline",
        "  3,859",
    ]


def test_a_long_table_is_laid_out_without_rich():
    columns = [Column("chip", "chip", essential=True), Column("usd", "$/hr", numeric=True)]
    rows = [{"chip": f"H{n}", "usd": f"{n / 7:,.4f}"} for n in range(200)]
    fitted = fit_table(100, columns, rows)
    assert fitted.text().splitlines()[:3] == ["chip      $/hr", "──────────────", "H0      0.0000"]


@given(st.text(alphabet="ab -/日\u0301", max_size=60), st.integers(1, 30))
def test_wrapped_lines_fit_and_lose_only_the_spaces_they_break_at(text, width):
    lines = wrapped(text, width)
    assert all(cell_len(text[s:e]) <= max(width, 2) for s, e in lines)
    assert "".join(text[s:e] for s, e in lines).replace(" ", "") == text.replace(" ", "")


def test_a_cell_of_millions_of_characters_is_cut_into_whole_width_lines():
    """`chipcost sql "select repeat('x', 10000000)"`: each line is measured on its own text
    (the whole rest of the cell was measured for each line: 51 s for that query's table)."""
    lines = wrapped("x" * 2_000_000, 200)
    assert len(lines) == 10_000 and lines[-1] == (1_999_800, 2_000_000)
    assert all(e - s == 200 for s, e in lines)
    wide = wrapped("日" * 300_000, 200)  # two columns each: 100 a line
    assert len(wide) == 3_000 and all(e - s == 100 for s, e in wide)


def test_a_message_keeps_a_url_whole_on_a_line_of_its_own():
    console = Screen(io.StringIO(), 40)
    url = "https://example.com/a/very/long/path/to/a/price/list/index.json"
    print_wrapped(console, f"failed: GET {url}: timed out after 10 s", indent="  ")
    lines = console.file.getvalue().splitlines()
    assert lines == ["failed: GET", f"  {url}:", "  timed out after 10 s"]
    assert "…" not in console.file.getvalue()


@pytest.mark.parametrize("width", [40, 60, 80, 160])
def test_a_command_too_long_for_the_screen_goes_on_over_lines_a_shell_joins(width):
    """A suggested command is broken between its arguments, never inside one (an option stays
    with its value, a quoted text whole), each line but the last ended by ' \\': the lines
    pasted into a shell are the command given."""
    import io
    import shlex

    from chipcost.cli.consoles import Screen
    from tests.helpers import pasted

    command = (
        "measure --endpoint URL --model llama-3-70b --software 'NAME VERSION' --chips N "
        '--db "/tmp/a folder/w.duckdb" --match H100-SXM'
    )
    stream = io.StringIO()
    Screen(stream, width).command("  to decide: chipcost", command)
    text = stream.getvalue()
    assert pasted(text, "to decide: ") == [["chipcost", *shlex.split(command)]]
    lines = text.splitlines()
    assert all(len(line) <= width for line in lines), lines
    assert all(line.endswith(" \\") for line in lines[:-1]) and not lines[-1].endswith("\\")
    if width >= 160:
        assert len(lines) == 1
    for line in lines[1:]:  # each goes on with an option and its value, or a word of its own
        assert not line.strip().startswith(("URL", "N ", "'NAME", '"/tmp')), line


@pytest.mark.parametrize("width", [60, 80])
def test_a_lead_wider_than_the_terminal_is_wrapped_and_the_command_goes_under_it(width):
    """compare's 'to decide (the ~ leaning rests on that estimate, at another point):' at 60
    columns: the lead and the command's first word were one line of 80, past the edge."""
    import io
    import shlex

    from chipcost.cli.consoles import Screen

    lead = "  to decide (the ~ leaning rests on that estimate, at another point, as noted):"
    command = "chipcost measure --endpoint URL --model llama-3-70b --chips N --match H100-SXM"
    stream = io.StringIO()
    Screen(stream, width).command(lead, command)
    lines = stream.getvalue().splitlines()
    assert all(len(line) <= width for line in lines), lines
    said = next(i for i, line in enumerate(lines) if line.endswith("noted):"))
    assert " ".join(line.strip() for line in lines[: said + 1]) == lead.strip()
    under = lines[said + 1 :]
    assert under[0].lstrip().startswith("chipcost ") and not under[-1].endswith("\\")
    assert all(line.endswith(" \\") for line in under[:-1])
    assert shlex.split(" ".join(line.removesuffix(" \\") for line in under)) == shlex.split(command)
