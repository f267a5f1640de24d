"""A collection in the test's process, as `chipcost collect` runs it: no Prefect, no server."""

from __future__ import annotations

from chipcost.core.settings import load_settings
from chipcost.pipeline import collection


def collect(
    *,
    replay: str | None = None,
    db: str | None = None,
    data_dir: str | None = None,
    sources: list[str] | None = None,
    pending: bool = False,
) -> list[collection.RunOutcome]:
    """chipcost.pipeline.collection.collect with the collect flow's parameters."""
    settings = load_settings(db=db, data_dir=data_dir)
    return collection.collect(settings, replay=replay, sources=sources, pending=pending)
