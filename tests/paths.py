"""Where the tests find the repository and its recorded payloads, from any test folder."""

import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent
FIXTURES = ROOT / "tests" / "fixtures"


def _product() -> tuple[str, ...]:
    """Every folder that installs as part of chipcost (pyproject's package-dir: chipcost.X is
    X/), the package's own `chipcost/` first."""
    with (ROOT / "pyproject.toml").open("rb") as handle:
        mapping = tomllib.load(handle)["tool"]["setuptools"]["package-dir"]
    return tuple(mapping.values())


# The product's code: what users run.
PRODUCT = _product()
