"""One settings object: where data lives, read from options and environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

from chipcost.core.errors import ChipcostError

DEFAULT_DATA_DIR = Path("data")
DB_FILENAME = "chipcost.duckdb"
# observations (every record of every run) are kept this many days back from the newest, so
# the file grows with price changes, not days x offers; price_history keeps every distinct
# price and the raw archive every payload for ever (docs/warehouse.md, "Retention").
DEFAULT_OBSERVATIONS_DAYS = 35
OBSERVATIONS_DAYS_ENV = "CHIPCOST_OBSERVATIONS_DAYS"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_path: Path
    observations_days: int | None = DEFAULT_OBSERVATIONS_DAYS  # None keeps every observation

    @property
    def archive_dir(self) -> Path:
        return self.data_dir / "archive"

    @property
    def reports_dir(self) -> Path:
        return self.data_dir / "reports"


def load_settings(db: str | Path | None = None, data_dir: str | Path | None = None) -> Settings:
    """Options win over CHIPCOST_DB / CHIPCOST_DATA_DIR, which win over ./data."""
    data = Path(data_dir or os.environ.get("CHIPCOST_DATA_DIR") or DEFAULT_DATA_DIR)
    db_path = Path(db or os.environ.get("CHIPCOST_DB") or data / DB_FILENAME)
    days = observations_days(os.environ.get(OBSERVATIONS_DAYS_ENV))
    return Settings(data_dir=data, db_path=db_path, observations_days=days)


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
