"""Every source module in extract/ is registered and has recorded fixtures and a sample builder
(the scrambler's entry in sample/build/_table.py, or an encoder module)."""

from __future__ import annotations

import ast
import pkgutil
from importlib import import_module
from pathlib import Path

import pytest

import chipcost.extract as extract
import chipcost.sample.build as sample_build
from chipcost.extract import module_key, providers, registry, source_modules
from chipcost.sample.build._scramble import fixture_files
from chipcost.sample.build._table import SAMPLES
from tests.paths import FIXTURES, ROOT

# What reads the process environment: os.environ / os.getenv and their bytes forms.
ENVIRONMENT_READS = frozenset({"environ", "environb", "getenv", "getenvb"})


def test_every_source_module_is_discovered_and_declares_its_source():
    """A public module of extract/ (or extract/aws/) is a source: it declares SOURCE."""
    found = source_modules()
    assert "vultr" in found and "aws.pricing" in found and "base" not in found
    assert not [m for m in found if m.rsplit(".", 1)[-1].startswith("_")]
    for module in found:
        assert import_module(f"chipcost.extract.{module}").SOURCE.name in registry(), module
    assert len(registry()) == len(found)


def test_every_source_has_recorded_fixtures():
    for name in registry():
        folder = FIXTURES / name
        assert folder.is_dir() and any(folder.iterdir()), f"no fixtures for {name} in {folder}"


@pytest.mark.parametrize("module", source_modules())
def test_every_source_module_has_a_sample_builder_and_fixtures(module):
    """chipcost.sample.build.<module> writes its sample; tests/fixtures/<source name>/ exists."""
    builder = sample_build.builder(module)
    assert callable(builder.write_run), f"chipcost.sample.build.{module} has no write_run"
    name = import_module(f"chipcost.extract.{module}").SOURCE.name
    assert (FIXTURES / name).is_dir(), f"no tests/fixtures/{name}/ for chipcost.extract.{module}"


def test_a_source_is_scrambled_or_has_an_encoder_never_both():
    """One public encoder module per source the scrambler's table leaves out, and nothing else
    (helpers are private: _name)."""
    public = {m.name for m in pkgutil.iter_modules(sample_build.__path__)}
    encoded = {
        module_key(module)
        for module in source_modules()
        if import_module(f"chipcost.extract.{module}").SOURCE.name not in SAMPLES
    }
    assert {name for name in public if not name.startswith("_")} == encoded
    assert set(SAMPLES) <= set(registry()), "sample/build/_table.py names no such source"


@pytest.mark.parametrize("source", sorted(SAMPLES))
def test_every_scrambled_source_has_its_fixture_files(source):
    for file, _url, _request in fixture_files(source, SAMPLES[source]):
        assert (FIXTURES / source / file).is_file(), f"tests/fixtures/{source}/{file}"


def test_a_missing_builder_is_a_clear_error():
    with pytest.raises(sample_build.MissingBuilder, match="add sample/build/no_such_source.py"):
        sample_build.builder("no_such_source")


def test_providers_are_those_the_sources_declare():
    assert {"aws", "gcp", "vultr", "lambda"} <= providers()
    assert providers() == {source.provider for source in registry().values()}


def environment_reads(text: str) -> list[str]:
    """Where code reads the environment: `os.environ`, `os.getenv`, `from os import environ`."""
    found = []
    for node in ast.walk(ast.parse(text)):
        if isinstance(node, ast.Attribute) and node.attr in ENVIRONMENT_READS:
            found.append(f"line {node.lineno}: .{node.attr}")
        elif isinstance(node, ast.ImportFrom) and node.module == "os":
            names = [a.name for a in node.names if a.name in ENVIRONMENT_READS or a.name == "*"]
            found.extend(f"line {node.lineno}: from os import {name}" for name in names)
    return found


def test_no_module_in_extract_reads_the_environment():
    """Keys and endpoints reach sources as ctx.settings: each source declares its variables,
    a run reads them."""
    modules = sorted(Path(extract.__path__[0]).rglob("*.py"))
    assert modules
    reads = {
        path.name: found
        for path in modules
        if (found := environment_reads(path.read_text(encoding="utf-8")))
    }
    assert not reads, f"declare them in the source's Source(settings=...) instead: {reads}"


@pytest.mark.parametrize(
    "text",
    [
        "import os\nkey = os.environ.get('X')",
        "import os as o\nkey = o.getenv('X')",
        "from os import environ\nkey = environ['X']",
        "from os import *",
    ],
)
def test_the_environment_check_sees_every_form(text):
    assert environment_reads(text)


def test_the_environment_check_allows_other_uses_of_os():
    assert not environment_reads("import os\nos.replace('a.part', 'a')  # environment, in words")


def test_the_independence_contract_is_written_from_the_registry():
    """pyproject.toml lists no source: scripts/lint-imports.sh writes that contract from
    source_modules(), so a new source is under it without being listed anywhere."""
    import tomllib

    config = tomllib.loads((ROOT / "pyproject.toml").read_text())
    contracts = config["tool"]["importlinter"]["contracts"]
    assert not [c for c in contracts if c["type"] == "independence"]
    script = (ROOT / "scripts" / "lint-imports.sh").read_text()
    assert "source_modules()" in script and 'type = "independence"' in script


def settings_read(text: str) -> set[str]:
    """The names a module reads from a fetch context's settings: `ctx.settings.NAME`."""
    return {
        node.attr
        for node in ast.walk(ast.parse(text))
        if isinstance(node, ast.Attribute)
        and isinstance(node.value, ast.Attribute)
        and node.value.attr == "settings"
        and node.attr != "secrets"
    }


@pytest.mark.parametrize("module", source_modules())
def test_a_source_declares_every_setting_its_module_reads(module):
    """A keyed source lists its variables in Source(settings=...), nowhere else: what its
    module reads from ctx.settings is declared there, and the run reads exactly that."""
    source = import_module(f"chipcost.extract.{module}").SOURCE
    path = Path(extract.__path__[0], *module.split(".")).with_suffix(".py")
    read = settings_read(path.read_text(encoding="utf-8"))
    assert read <= set(source.settings), f"{module} reads {read - set(source.settings)}"


def test_each_setting_is_one_variable():
    declared = extract.source_env()
    assert declared["runpod_api_key"] == "RUNPOD_API_KEY"
    assert declared["aws_regions"] == "CHIPCOST_AWS_REGIONS"
    assert len(set(declared.values())) == len(declared)
