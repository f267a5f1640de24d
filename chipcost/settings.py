"""One settings object: where data lives, read from options and environment variables."""

from __future__ import annotations

import os
from dataclasses import dataclass
from pathlib import Path

DEFAULT_DATA_DIR = Path("data")
DB_FILENAME = "chipcost.duckdb"


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_path: Path

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
    return Settings(data_dir=data, db_path=db_path)
