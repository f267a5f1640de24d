"""A source registered only to say why its prices are not collected (Source(collected=False)):
`chipcost sources` never calls it stale, since no run would make it fresh."""

from __future__ import annotations

from chipcost.core.errors import SourceSkipped
from chipcost.extract import registry
from chipcost.extract.base import Source
from chipcost.reads import sources


def _skipped(payloads):
    raise SourceSkipped("no price source")


NOT_COLLECTED = Source(
    name="no-prices",
    provider="no-prices",
    description="registered, not collected",
    fetch=_skipped,
    parse=_skipped,
    collected=False,
)


def test_a_source_that_is_not_collected_is_never_stale(con, monkeypatch):
    monkeypatch.setattr(sources, "registry", lambda: {**registry(), "no-prices": NOT_COLLECTED})
    table = {row["source"]: row for row in sources.source_table(con, stale_days=2).to_dicts()}
    assert table["no-prices"]["collected"] is False and table["no-prices"]["stale"] is False
    assert table["runpod"]["collected"] is True and table["runpod"]["stale"] is True
