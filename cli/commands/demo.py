"""`chipcost demo`: the bundled sample archive replayed, then what it gives, with no network."""

from __future__ import annotations

from chipcost.cli.commands.collect import collect
from chipcost.cli.commands.prices import prices
from chipcost.cli.options import DataDir, Db
from chipcost.cli.parser import command


def _demo(db: Db = None, data_dir: DataDir = None) -> None:
    """Replay the bundled SAMPLE archive (synthetic prices) into the warehouse and show them."""
    import shlex

    from chipcost.cli.consoles import out
    from chipcost.core.settings import load_settings
    from chipcost.sample import ARCHIVE

    out.say([(f"collect --replay {ARCHIVE}", "bold"), ("  (SAMPLE DATA: synthetic prices)", "")])
    collect.callback(replay=str(ARCHIVE), db=db, data_dir=data_dir)
    settings = load_settings(db=db, data_dir=data_dir)
    again = settings.again()  # the reads below and after read what was just loaded
    out.line()
    out.say([(f"prices --chip H100-SXM --region us-east-1 --limit 12{again}", "bold")])
    where = settings.warehouse.url if again else db  # where --data-dir put it, else as given
    prices.callback(chip=["H100-SXM"], region=["us-east-1"], limit=12, db=where)
    # The report's files go to the data directory given here too, not ./data's.
    report = again
    if again and data_dir is not None:
        report += f" --out {shlex.quote(str(settings.reports_dir))}"
    out.line()
    out.say("Next:")
    for step in (
        f"cost --model llama-3-70b --workload inference{again}",
        f"report --dry-run{report}",
        f'sql "select * from price_changes limit 10"{again}',
    ):
        out.command("  chipcost", step)


demo = command(_demo, "demo")
