"""The options many commands share, as the `Annotated` types their keywords take (chipcost.cli.
parser makes click options of them): the read commands' own (chipcost.core.asks) and a few
more, and a --chip value read as a chip (resolve_chip, for measure and throughput). Nothing
heavy is imported here: every command module imports this to declare itself."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

from chipcost.core.asks import Currency, Db, Format, Limit, ListPrices, StaleDays, Wide
from chipcost.core.errors import UsageError
from chipcost.core.questions import Opt

__all__ = ["Currency", "DataDir", "Db", "Format", "Limit", "ListPrices", "StaleDays", "Wide"]

DataDir = Annotated[Path | None, Opt("Data directory (default: $CHIPCOST_DATA_DIR or ./data).")]


def settings_for(db: str | Path | None = None, stale_days: int | None = None, **more: object):
    """The settings, with --stale-days over $CHIPCOST_STALE_DAYS when given."""
    from dataclasses import replace

    from chipcost.core.settings import load_settings

    settings = load_settings(db=db, **more)  # type: ignore[arg-type]
    return settings if stale_days is None else replace(settings, stale_days=stale_days)


def widened(console: Any) -> None:
    """--wide on a table that wraps its cells to the terminal: laid out at its natural width
    instead, each cell on one line, however wide that is."""
    console.width = 10_000


def resolve_chip(spelling: str, option: str = "--chip") -> str:
    """A canonical chip name for what the user typed, or a message naming the close ones (and
    the option it was given to)."""
    from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip, canonical_chips
    from chipcost.core.names import CHIPS_LISTED, resolve_chip_name, shown, suggested
    from chipcost.reads.cost_asked import family_refused

    chip = canonical_chip(spelling)
    if chip != UNKNOWN_CHIP:
        return chip
    try:  # a family, an instance family or a spelling compare and cost take
        named = resolve_chip_name(spelling)
    except UsageError as exc:
        if not str(exc).startswith("unknown chip"):  # an instance family, 'unknown': as said
            raise UsageError(f"{option} {exc}") from None
        named = []
    if len(named) > 1:
        raise family_refused(option, spelling, named)
    if named:
        return named[0]
    names = sorted(canonical_chips() - {UNKNOWN_CHIP})
    raise UsageError(
        f"{option} {shown(spelling)}: unknown chip{suggested(spelling, names)}; {len(names)} "
        f"known: `{CHIPS_LISTED}` lists them"
    )
