"""What a collection stopped short says of its loads: the runs whose load committed, each
whole, and for a replay what loads the rest. One wording for `chipcost collect` (a stop
signal, a full disk) and for chipcost.pipeline.collection.collect called from Python (the
collect flow, a script): a replay's next step is its own, never a live collection's."""

from __future__ import annotations

from pathlib import Path

from chipcost.core.counting import counted
from chipcost.core.errors import WarehouseError
from chipcost.core.settings import Settings
from chipcost.warehouse.db_file import full_disk


def loaded_words(settings: Settings, runs: int | None, loaded: list[str]) -> str:
    """The runs whose load committed (of `runs`, a replay's), each whole, and nothing of the
    one under way."""
    if not loaded:
        return f"nothing was loaded: {settings.warehouse} is as it was"
    span = loaded[0] if len(loaded) == 1 else f"{loaded[0]} … {loaded[-1]}"
    count = f"{len(loaded):,} of {counted(runs, 'run')}" if runs else counted(len(loaded), "run")
    if runs and len(loaded) >= runs:  # it stopped after the last load committed
        return (
            f"every run was loaded: {count} ({span}) into {settings.warehouse}, each whole; "
            "nothing left to load"
        )
    return (
        f"{count} loaded ({span}) into {settings.warehouse}, each whole; nothing of the run "
        "under way"
    )


def replay_left(settings: Settings, runs: int, loaded: list[str], todo: str) -> str:
    """A replay stopped: the runs loaded, then `todo` (its first words: 'Run the same command
    again') to load those left, if any; a replay's runs are not pending runs, which only a
    live collection leaves."""
    done = loaded_words(settings, runs, loaded)
    if runs and len(loaded) >= runs:
        return done
    return f"{done}. {todo} to load {'the rest (loaded runs are skipped)' if loaded else 'them'}"


def replay_on_full_disk(
    settings: Settings, runs: int, loaded: list[str], error: BaseException
) -> WarehouseError | None:
    """A replay of `runs` runs stopped by a full disk under its warehouse, `loaded` those whose
    load committed, said as a signal's stop is (the runs loaded, each whole, and what is left)
    with its own next step: room, then the same command, not the live collection's "loaded by
    the next `chipcost collect`" (a replay leaves no pending run: `collect --pending` found
    none). None: no full disk."""
    if (disk := full_disk(error)) is None:
        return None
    wal = Path(f"{settings.db_path}.wal")
    # A replay checkpoints at its end (or past 256 MB of log): what it committed, a new file's
    # making too, is in the log alone, the big file on that disk, the one to keep.
    keep = f" (keep {wal}: it holds what is not yet written into the warehouse's file)"
    todo = f"Free some space on that disk{keep if wal.is_file() else ''}, then run the same "
    todo += "command again"
    return WarehouseError(f"{disk}: {replay_left(settings, runs, loaded, todo)}")
