"""`chipcost demo`: the bundled sample archive replayed, then what it gives, with no network."""

from __future__ import annotations

from chipcost.cli.commands.collect import collect
from chipcost.cli.commands.prices import prices
from chipcost.cli.options import DataDir, Db
from chipcost.cli.parser import command


def _demo(db: Db = None, data_dir: DataDir = None) -> None:
    """Replay the bundled SAMPLE archive (synthetic prices) into the warehouse and show them."""
    from chipcost.cli.consoles import out
    from chipcost.sample import ARCHIVE

    out.say([(f"collect --replay {ARCHIVE}", "bold"), ("  (SAMPLE DATA: synthetic prices)", "")])
    collect.callback(replay=str(ARCHIVE), db=db, data_dir=data_dir)
    out.line()
    out.say([("prices --chip H100-SXM --region us-east-1 --limit 12", "bold")])
    prices.callback(chip=["H100-SXM"], region=["us-east-1"], limit=12, db=db)
    out.say(
        "\nNext: chipcost cost --model llama-3-70b --workload inference, chipcost report "
        '--dry-run, chipcost sql "select * from price_changes limit 10"'
    )


demo = command(_demo, "demo")
