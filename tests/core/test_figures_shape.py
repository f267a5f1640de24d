"""`--shape` given back as chipcost prints a request shape: the headers' '1,024 in / 1,024 out
tokens' (core.figures.point_label) and '1,024/1,024' are the shape they say, as docs/cli.md
says of whatever chipcost prints; on b4f20479 both were refused ('give input/output tokens
such as 1k/1k'). Real DuckDB files; the command in process on the bundled sample week."""

from __future__ import annotations

import re
from pathlib import Path

import duckdb
import pytest

from chipcost.core.errors import UsageError
from chipcost.core.figures import point_label, shape_value
from tests import warehouses
from tests.cli_runner import chipcost


@pytest.fixture(scope="module")
def sample(tmp_path_factory) -> Path:
    return warehouses.sample(tmp_path_factory.mktemp("shape") / "w.duckdb")


def test_every_shape_the_figures_have_is_taken_back_as_printed(sample):
    con = duckdb.connect(str(sample), read_only=True)
    try:
        shapes = con.execute(
            "SELECT DISTINCT input_tokens, output_tokens FROM throughput "
            "WHERE input_tokens IS NOT NULL AND output_tokens IS NOT NULL ORDER BY ALL"
        ).fetchall()
    finally:
        con.close()
    assert any(i >= 1000 and o >= 1000 for i, o in shapes), shapes  # some print a comma
    for shape in shapes:
        printed = point_label(shape, None)  # ', 1,024 in / 8,192 out tokens'
        assert shape_value(printed) == shape, printed
        assert shape_value(printed.removeprefix(", ")) == shape, printed
        assert shape_value(f"{shape[0]:,}/{shape[1]:,}") == shape


@pytest.mark.parametrize("given", ["2,5/1k", "1,0245/1024", "1,024 in / 1,024 out tokens, FP8"])
def test_a_comma_that_groups_no_thousands_is_refused_not_guessed(given):
    with pytest.raises(UsageError, match="give input/output tokens such as 1k/1k"):
        shape_value(given)


def test_compare_takes_back_the_shape_its_header_prints(sample):
    asked = ("compare", "MI300X", "H100-SXM", "--model", "llama-3-70b", "--workload",
             "inference", "--speed", "25", "--db", str(sample))  # fmt: skip
    first = chipcost(*asked, "--shape", "1k/1k", env={"COLUMNS": "200"})
    assert first.returncode == 0, first.stderr
    printed = re.search(r"[\d,]+ in / [\d,]+ out tokens", first.stdout.splitlines()[0])
    assert printed and printed[0] == "1,024 in / 1,024 out tokens", first.stdout
    for given in (printed[0], "1,024/1,024"):
        again = chipcost(*asked, "--shape", given, env={"COLUMNS": "200"})
        assert (again.returncode, again.stdout) == (0, first.stdout), again.stderr
