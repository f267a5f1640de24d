"""The house's layout rules (docs/layout.md), checked on every run so they do not drift: one
layout rule (`chipcost.X` is the folder `X/`), no product module over 600 lines, no DuckDB
session variable carrying a parameter, and no relation made with Python parameters."""

from __future__ import annotations

import re
import tomllib

from tests.paths import PRODUCT, ROOT

MOST_LINES = 600
# SET VARIABLE in SQL, or a read of one: a parameter passed through the session, not bound.
SESSION_VARIABLE = re.compile(r"(?i)\bset\s+variable\b|\bgetvariable\s*\(")


def test_every_subpackage_is_its_own_top_level_folder() -> None:
    with (ROOT / "pyproject.toml").open("rb") as handle:
        setuptools = tomllib.load(handle)["tool"]["setuptools"]
    mapping = setuptools["package-dir"]
    for package in setuptools["packages"]:
        parts = package.split(".")
        top = ".".join(parts[:2])
        folder = mapping.get(top)
        assert folder == (parts[1] if len(parts) > 1 else "chipcost"), (
            f"{package}: installed from {folder!r}; chipcost.X lives at X/ (docs/layout.md)"
        )
        path = ROOT.joinpath(folder, *parts[2:])
        assert (path / "__init__.py").is_file(), f"{package}: no {path.relative_to(ROOT)}/"
    assert sorted(p.name for p in (ROOT / "chipcost").iterdir() if p.suffix == ".py") == [
        "__init__.py"
    ], "chipcost/ holds only __init__.py: a module goes in its layer's folder"


def test_no_product_module_is_over_600_lines() -> None:
    files = [p for folder in PRODUCT for p in (ROOT / folder).rglob("*.py")]
    assert len(files) > 100, f"found only {len(files)} product modules: is PRODUCT right?"
    long = {
        str(p.relative_to(ROOT)): n
        for p in files
        if (n := len(p.read_text(encoding="utf-8").splitlines())) > MOST_LINES
    }
    assert not long, f"split these by what they do (at most {MOST_LINES} lines): {long}"


def test_no_parameter_rides_a_duckdb_session_variable() -> None:
    found = []
    for folder in PRODUCT:
        for path in (ROOT / folder).rglob("*"):
            if path.suffix not in {".py", ".sql"}:
                continue
            for number, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
                code = line.split("#", 1)[0] if path.suffix == ".py" else line.split("--", 1)[0]
                if SESSION_VARIABLE.search(code):
                    found.append(f"{path.relative_to(ROOT)}:{number}: {line.strip()}")
    assert not found, "bind the value as a parameter or a macro argument:\n" + "\n".join(found)


# A DuckDB relation made with Python parameters (`con.sql(sql, params=...)`) runs its query
# when it is made, and again when its rows are read: a read twice its cost (the weekly moves
# on a year of history, 0.74 s against 0.32 s). warehouse/bound.py `relation` writes the
# values in and makes it lazy; it alone falls back to the client's binding.
# The call may span lines: its arguments up to `params=`, parentheses one deep within them.
RELATION_WITH_PARAMS = re.compile(r"\.sql\((?:[^()]|\([^()]*\))*?\bparams\s*=")


def test_no_relation_runs_its_query_twice() -> None:
    assert RELATION_WITH_PARAMS.search("frame_of(con.sql(_MOVES, params=params))")
    assert not RELATION_WITH_PARAMS.search("frame_of(relation(con, _MOVES, params))")
    assert RELATION_WITH_PARAMS.search('con.sql(\n    f"SELECT {x}",\n    params=where.params,\n)')
    found = [
        f"{path.relative_to(ROOT)}:{text.count(chr(10), 0, call.start()) + 1}"
        for folder in PRODUCT
        for path in (ROOT / folder).rglob("*.py")
        if path != ROOT / "warehouse" / "bound.py"
        for text in [path.read_text(encoding="utf-8")]
        for call in RELATION_WITH_PARAMS.finditer(text)
    ]
    assert not found, "make it with warehouse.bound.relation:\n" + "\n".join(found)
