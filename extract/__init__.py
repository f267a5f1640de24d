"""Sources: one module per provider API or file, discovered here (the registry is the list).

A source module is a public module of this package or of a provider's subpackage (extract/aws/)
that declares SOURCE; private modules (`_kit`, `_http`, `aws/_price_list`, ...) and `base` are
the kit. Nothing else lists the sources: the import contract, the validator's providers and
`chipcost sources` are derived from this registry.
"""

from __future__ import annotations

import pkgutil
from functools import cache
from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chipcost.extract.base import FetchContext, Source

# Subpackages that hold the sources of one provider and the helpers only they share.
PROVIDER_PACKAGES = ("aws",)
KIT_MODULES = frozenset({"base", "docs"})


@cache
def source_modules() -> tuple[str, ...]:
    """Every source module, relative to this package ('vultr', 'aws.pricing'), found on disk
    without importing it: a provider's subpackage first, then the rest by name."""
    here = Path(__file__).parent
    found = [
        f"{package}.{m.name}"
        for package in PROVIDER_PACKAGES
        for m in pkgutil.iter_modules([str(here / package)])
        if _is_source(m.name, m.ispkg)
    ]
    found += sorted(
        m.name for m in pkgutil.iter_modules([str(here)]) if _is_source(m.name, m.ispkg)
    )
    return tuple(found)


def _is_source(name: str, package: bool) -> bool:
    return not package and not name.startswith("_") and name not in KIT_MODULES


def module_key(module: str) -> str:
    """'aws.pricing' -> 'aws_pricing': the sample builder's module name for a source module."""
    return module.replace(".", "_")


def registry() -> dict[str, Source]:
    """Every source by name, in a stable order."""
    from importlib import import_module

    sources = [import_module(f"chipcost.extract.{module}").SOURCE for module in source_modules()]
    return {source.name: source for source in sources}


def source_env() -> dict[str, str]:
    """Every variable the registered sources read, by the setting name they read it as
    (Source.settings): what a run reads from the environment (SourceSettings.read). Two
    sources that read one setting must name the same variable."""
    found: dict[str, str] = {}
    for source in registry().values():
        for name, variable in source.settings.items():
            if found.setdefault(name, variable) != variable:
                raise ValueError(
                    f"source {source.name} reads {name} from {variable}, another from "
                    f"{found[name]}: one setting, one variable"
                )
    return found


def source_providers() -> dict[str, str]:
    """Each registered source's provider: what the validator checks records against."""
    return {name: source.provider for name, source in registry().items()}


def providers() -> frozenset[str]:
    """The providers the registered sources collect (the record's `provider` values)."""
    return frozenset(source_providers().values())


def price_providers() -> list[str]:
    """The providers whose prices are collected (not those of reference facts), by name."""
    return sorted({s.provider for s in registry().values() if not s.reference})


def __getattr__(name: str) -> object:
    # FetchContext and Source are imported when first asked for: a module of this package
    # that needs neither (the price-file filter) does not load the archive module.
    if name in ("FetchContext", "Source"):
        from chipcost.extract import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = [
    "FetchContext",
    "Source",
    "module_key",
    "providers",
    "registry",
    "source_modules",
    "source_providers",
]
