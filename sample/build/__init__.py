"""Sample archive builders: the scrambler for every source with a recorded fixture
(sample/build/_table.py), an encoder module named after the source module ('aws.pricing' ->
aws_pricing) for the others."""

from __future__ import annotations

from dataclasses import dataclass
from datetime import datetime
from importlib import import_module
from pathlib import Path
from types import ModuleType
from typing import Protocol, cast

from chipcost.core.errors import ChipcostError
from chipcost.extract import module_key, source_modules
from chipcost.sample.build import _scramble
from chipcost.sample.build._common import DAYS, FIRST_RUN, run_time
from chipcost.sample.build._table import SAMPLES


class Builder(Protocol):
    """What each chipcost.sample.build.<module> provides."""

    def write_run(self, out: Path, day: int, moment: datetime) -> Path:
        """Writes <out>/<run stamp>/<source>/ for run day 1..DAYS; returns that directory."""
        ...


class MissingBuilder(ChipcostError):
    """A registered source has no sample builder module."""


@dataclass(frozen=True)
class Scrambled:
    """The builder of a source whose sample is its recorded fixture, scrambled."""

    source: str
    spec: _scramble.Sample

    def write_run(self, out: Path, day: int, moment: datetime) -> Path:
        return _scramble.write_run(self.source, self.spec, out, day, moment)


def source_name(module: str) -> str | None:
    """The source chipcost.extract.<module> declares (None: no such module)."""
    try:
        return import_module(f"chipcost.extract.{module}").SOURCE.name
    except ModuleNotFoundError:
        return None


def builder(module: str) -> Builder:
    """The sample builder of chipcost.extract.<module>: its scrambler, else its encoder."""
    if (name := source_name(module)) in SAMPLES:
        return Scrambled(name, SAMPLES[name])
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


__all__ = [
    "DAYS",
    "FIRST_RUN",
    "Builder",
    "MissingBuilder",
    "Scrambled",
    "build",
    "builder",
    "run_time",
]
