"""Every source module in extract/ is registered and has recorded fixtures."""

from __future__ import annotations

import pkgutil
from pathlib import Path

import chipcost.extract as extract
from chipcost.extract import SOURCE_MODULES, registry

FIXTURES = Path(__file__).parent / "fixtures"


def source_modules() -> set[str]:
    return {
        m.name
        for m in pkgutil.iter_modules(extract.__path__)
        if not m.name.startswith("_") and m.name != "base"
    }


def test_every_source_module_is_registered():
    assert source_modules() == set(SOURCE_MODULES)


def test_every_source_has_recorded_fixtures():
    for name in registry():
        folder = FIXTURES / name
        assert folder.is_dir() and any(folder.iterdir()), f"no fixtures for {name} in {folder}"


def test_every_source_has_a_known_provider():
    from chipcost.core.record import PROVIDERS

    for source in registry().values():
        assert source.provider in PROVIDERS, source.name
