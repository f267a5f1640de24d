"""One settings object: where data lives and what sources use, from options and environment."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field, fields
from pathlib import Path

from chipcost.core.errors import ChipcostError

DEFAULT_DATA_DIR = Path("data")
DB_FILENAME = "chipcost.duckdb"
# A warehouse URL (docs/deploy.md): a DuckDB file path, or ducklake:postgres:<libpq conninfo>
# with the lake's data (Parquet files) under CHIPCOST_LAKE_DATA, a directory or s3://...
WAREHOUSE_ENV = "CHIPCOST_WAREHOUSE"
LAKE_DATA_ENV = "CHIPCOST_LAKE_DATA"
ARCHIVE_ENV = "CHIPCOST_ARCHIVE"
LAKE_PREFIX = "ducklake:"
# observations (every record of every run) are kept this many days back from the newest, so
# the file grows with price changes, not days x offers; price_history keeps every distinct
# price and the raw archive every payload for ever (docs/warehouse.md, "Retention").
DEFAULT_OBSERVATIONS_DAYS = 35
OBSERVATIONS_DAYS_ENV = "CHIPCOST_OBSERVATIONS_DAYS"
# The environment variables sources read, by SourceSettings field: read here once, so a source
# gets typed values and never looks at the environment itself (docs/sources.md).
SOURCE_ENV = {
    "runpod_api_key": "RUNPOD_API_KEY",
    "vast_api_key": "VAST_API_KEY",
    "spheron_api_key": "SPHERON_API_KEY",
    "lambda_api_key": "LAMBDA_API_KEY",
    "aws_price_list_url": "CHIPCOST_AWS_PRICE_LIST_URL",
    "aws_spot_feed_url": "CHIPCOST_AWS_SPOT_FEED_URL",
    "aws_regions": "CHIPCOST_AWS_REGIONS",
}
# Lower-case words joined by hyphens (us-east-1, us-gov-west-1, us-west-2-lax-1): catches a
# list written with spaces or semicolons instead of commas before any download starts.
REGION_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")


@dataclass(frozen=True)
class SourceSettings:
    """Credentials and endpoints of the sources; empty means none set (or the provider's own).

    Keys are kept out of repr so that a logged or printed settings object shows no secret.
    """

    runpod_api_key: str = field(default="", repr=False)
    vast_api_key: str = field(default="", repr=False)
    spheron_api_key: str = field(default="", repr=False)
    lambda_api_key: str = field(default="", repr=False)
    aws_price_list_url: str = ""
    aws_spot_feed_url: str = ""
    aws_regions: tuple[str, ...] | None = None  # None: every region AWS's index lists

    def secrets(self) -> tuple[str, ...]:
        """The credential values set: what the HTTP layer scrubs from anything it archives."""
        return tuple(
            value
            for f in fields(self)
            if f.name.endswith("_api_key") and (value := getattr(self, f.name))
        )


def source_settings(environ: Mapping[str, str]) -> SourceSettings:
    """SourceSettings from the variables of SOURCE_ENV; a malformed value is a ChipcostError."""
    values: dict[str, object] = {}
    for name, variable in SOURCE_ENV.items():
        text = environ.get(variable, "").strip()
        if not text:
            continue
        if name == "aws_regions":
            values[name] = _regions(variable, text)
        elif name.endswith("_url"):
            values[name] = _url(variable, text)
        else:
            values[name] = text
    return SourceSettings(**values)  # type: ignore[arg-type]


def _url(variable: str, text: str) -> str:
    if not text.startswith(("http://", "https://")):
        raise ChipcostError(f"{variable}={text!r}: give an http:// or https:// URL, or unset it")
    return text


def _regions(variable: str, text: str) -> tuple[str, ...] | None:
    regions = tuple(dict.fromkeys(r.strip() for r in text.split(",") if r.strip()))
    wrong = [r for r in regions if not REGION_NAME.match(r)]
    if wrong:
        raise ChipcostError(
            f"{variable}={text!r}: {', '.join(map(repr, wrong))} is not a region code; give "
            "codes separated by commas, e.g. us-east-1,us-west-2"
        )
    return regions or None


@dataclass(frozen=True)
class Warehouse:
    """Where the warehouse lives: a DuckDB file, or a DuckLake catalog and its data path."""

    url: str
    lake_data: str = ""

    @property
    def is_lake(self) -> bool:
        return self.url.startswith(LAKE_PREFIX)

    @property
    def path(self) -> Path:
        """The DuckDB file (file warehouses only)."""
        return Path(self.url)

    def __str__(self) -> str:
        # Shown in tables and errors: a password in the conninfo never is.
        return re.sub(r"(password\s*=\s*)('[^']*'|\S+)", r"\1***", self.url)


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_path: Path
    observations_days: int | None = DEFAULT_OBSERVATIONS_DAYS  # None keeps every observation
    sources: SourceSettings = field(default_factory=SourceSettings)
    warehouse_url: str = ""  # empty: the file at db_path
    lake_data: str = ""
    archive_url: str = ""  # empty: <data dir>/archive

    @property
    def warehouse(self) -> Warehouse:
        return Warehouse(self.warehouse_url or str(self.db_path), self.lake_data)

    @property
    def is_lake(self) -> bool:
        return self.warehouse.is_lake

    @property
    def archive_root(self) -> str | Path:
        """Where fetched payloads go: a directory, or an s3://bucket/prefix URL."""
        return self.archive_url or self.archive_dir

    @property
    def archive_dir(self) -> Path:
        return self.data_dir / "archive"

    @property
    def reports_dir(self) -> Path:
        return self.data_dir / "reports"


def load_settings(db: str | Path | None = None, data_dir: str | Path | None = None) -> Settings:
    """Options win over CHIPCOST_WAREHOUSE / CHIPCOST_DB / CHIPCOST_DATA_DIR, then ./data.

    `db` is a warehouse URL: a DuckDB file path or ducklake:postgres:<conninfo>.
    """
    data = Path(data_dir or os.environ.get("CHIPCOST_DATA_DIR") or DEFAULT_DATA_DIR)
    url = str(
        db
        or os.environ.get(WAREHOUSE_ENV, "").strip()
        or os.environ.get("CHIPCOST_DB")
        or data / DB_FILENAME
    )
    lake = url.startswith(LAKE_PREFIX)
    lake_data = os.environ.get(LAKE_DATA_ENV, "").strip()
    if lake:
        _check_lake(url, lake_data)
    days = observations_days(os.environ.get(OBSERVATIONS_DAYS_ENV))
    return Settings(
        data_dir=data,
        # A lake has no file: db_path names where a file warehouse would be, and is unused.
        db_path=data / DB_FILENAME if lake else Path(url),
        observations_days=days,
        sources=source_settings(os.environ),
        warehouse_url=url if lake else "",
        lake_data=lake_data,
        archive_url=os.environ.get(ARCHIVE_ENV, "").strip(),
    )


def _check_lake(url: str, lake_data: str) -> None:
    if not url.startswith(LAKE_PREFIX + "postgres:"):
        raise ChipcostError(
            f"warehouse {Warehouse(url)}: a lake is ducklake:postgres:<conninfo>, e.g. "
            "ducklake:postgres:dbname=chipcost host=db.internal user=chipcost"
        )
    if not lake_data:
        raise ChipcostError(
            f"warehouse {Warehouse(url)} needs {LAKE_DATA_ENV}: set it to the directory or "
            "s3://bucket/prefix where the lake keeps its Parquet files"
        )


def observations_days(text: str | None) -> int | None:
    """CHIPCOST_OBSERVATIONS_DAYS: a number of days (1 or more), or 'all' to keep them all."""
    if text is None or not text.strip():
        return DEFAULT_OBSERVATIONS_DAYS
    if text.strip().lower() == "all":
        return None
    days = int(text) if text.strip().isdigit() else 0
    if days < 1:
        raise ChipcostError(
            f"{OBSERVATIONS_DAYS_ENV}={text!r}: give a number of days (1 or more), or 'all' "
            "to keep every observation"
        )
    return days
