"""Sources: one module per provider API or file, each registered here."""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from chipcost.extract.base import FetchContext, Source

SOURCE_MODULES = (
    "aws_pricing",
    "aws_savings_plans",
    "aws_spot",
    "aws_capacity_blocks",
    "aws_bulk",
    "aws_spot_feed",
    "coreweave",
    "spheron",
    "nebius",
    "verda",
    "runpod",
    "vastai",
    "azure",
    "oci",
    "lambda_cloud",
    "gcp",
    "vultr",
    "daytona",
    "lium",
    "cloudrift",
    "digitalocean",
    "hotaisle",
    "jarvislabs",
    "seeweb",
    "crusoe",
)


def registry() -> dict[str, Source]:
    """Every registered source by name, in a stable order."""
    from importlib import import_module

    sources = [import_module(f"chipcost.extract.{module}").SOURCE for module in SOURCE_MODULES]
    return {source.name: source for source in sources}


def __getattr__(name: str) -> object:
    # FetchContext and Source are imported when first asked for: a module of this package
    # that needs neither (the price-file filter) does not load the archive module.
    if name in ("FetchContext", "Source"):
        from chipcost.extract import base

        return getattr(base, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


__all__ = ["FetchContext", "Source", "registry", "SOURCE_MODULES"]
