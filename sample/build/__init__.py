"""Sample archive builders: one module per source module of chipcost.extract, named after it
('aws.pricing' -> aws_pricing)."""

from __future__ import annotations

from datetime import datetime
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Protocol, cast

from chipcost.core.errors import ChipcostError
from chipcost.extract import module_key, source_modules
from chipcost.sample.build._common import DAYS, FIRST_RUN, run_time


class Builder(Protocol):
    """What each chipcost.sample.build.<module> provides."""

    def write_run(self, out: Path, day: int, moment: datetime) -> Path:
        """Writes <out>/<run stamp>/<source>/ for run day 1..DAYS; returns that directory."""
        ...


class MissingBuilder(ChipcostError):
    """A registered source has no sample builder module."""


def builder(module: str) -> Builder:
    """The sample builder of chipcost.extract.<module>."""
    key = module_key(module)
    name = f"{__name__}.{key}"
    try:
        found: ModuleType = import_module(name)
    except ModuleNotFoundError as exc:
        if exc.name != name:
            raise
        raise MissingBuilder(
            f"source module {module!r} (chipcost.extract) has no sample "
            f"builder: add sample/build/{key}.py with write_run(out, day, moment)"
        ) from exc
    return cast(Builder, found)


def build(out: Path) -> list[Path]:
    """Every registered source's DAYS sample runs under out; the directories written."""
    # Every builder is imported first, so that a missing one fails before anything is written.
    builders = [builder(module) for module in source_modules()]
    return [
        each.write_run(out, day, run_time(day)) for day in range(1, DAYS + 1) for each in builders
    ]


__all__ = ["DAYS", "FIRST_RUN", "Builder", "MissingBuilder", "build", "builder", "run_time"]
