"""No DuckDB session variable carries a parameter: the point a read asks (--speed, --ttft,
--shape, --precision) reaches SQL as the arguments of throughput_at and cost_per_token_at
(warehouse/views/35_throughput_ranked.sql), never as state a session holds."""

from __future__ import annotations

import re

from tests.paths import PRODUCT, ROOT

# A session variable set, or read back: SET VARIABLE x = ..., getvariable('x').
SESSION_STATE = re.compile(r"\b(?:SET|RESET)\s+VARIABLE\b|\bgetvariable\s*\(", re.IGNORECASE)


def test_no_product_code_sets_or_reads_a_session_variable():
    found = [
        f"{path.relative_to(ROOT)}:{number}: {line.strip()}"
        for folder in PRODUCT
        for path in sorted((ROOT / folder).rglob("*"))
        if path.suffix in (".py", ".sql")
        for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if SESSION_STATE.search(line)
    ]
    said = "\n".join(found)
    assert not found, f"a parameter as session state; pass it as a macro's argument:\n{said}"


def test_the_pattern_finds_what_it_looks_for():
    assert SESSION_STATE.search('con.execute(f"SET VARIABLE {name} = {value}")')
    assert SESSION_STATE.search("TRY_CAST(getvariable('chipcost_ttft_ms') AS DOUBLE)")
    assert not SESSION_STATE.search('    "getvariable",  # refused in chipcost sql')


def test_a_lake_answers_at_an_asked_point_through_the_macros(lake, tmp_path):
    """The macros live in the lake beside its views (real PostgreSQL): cost at a speed, and
    the query its note gives, read them there."""
    import os

    from tests.cli_runner import chipcost
    from tests.helpers import loaded_warehouse, record

    loaded_warehouse(lake, [record()])
    env = {**os.environ, "CHIPCOST_LAKE_DATA": lake.lake_data, "CHIPCOST_DATA_DIR": str(tmp_path)}
    asked = ("--model", "llama-3-70b", "--workload", "inference", "--db", lake.url)
    ranked = chipcost("cost", *asked, "--speed", "25", env=env)
    assert ranked.returncode == 0, ranked.stderr
    query = "select count(*) as n from cost_per_token_at(speed := '25') where chip = 'H100-SXM'"
    counted = chipcost("sql", query, "--db", lake.url, "--format", "csv", env=env)
    assert counted.returncode == 0, counted.stderr
    assert counted.stdout.splitlines()[1] != "0"
