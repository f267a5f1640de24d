"""`chipcost demo`: the bundled sample archive replayed, then what it gives, with no network."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated

import typer

from chipcost.cli.commands.collect import collect
from chipcost.cli.commands.prices import prices
from chipcost.cli.options import DbOption, out


def demo(
    db: DbOption = None,
    data_dir: Annotated[
        Path | None, typer.Option(help="Data directory (default: $CHIPCOST_DATA_DIR or ./data).")
    ] = None,
) -> None:
    """Replay the bundled SAMPLE archive (synthetic prices) into the warehouse and show them."""
    from chipcost.sample import ARCHIVE

    out.print(f"[bold]collect --replay {ARCHIVE}[/]  (SAMPLE DATA: synthetic prices)")
    collect(replay=str(ARCHIVE), db=db, data_dir=data_dir, source=None)
    out.print("\n[bold]prices --chip H100-SXM --region us-east-1 --limit 12[/]")
    prices(chip=["H100-SXM"], region=["us-east-1"], model=None, provider=None, limit=12, db=db)
    out.print(
        "\nNext: chipcost cost --model llama-3-70b --workload inference, chipcost report "
        '--dry-run, chipcost sql "select * from price_changes limit 10"'
    )
