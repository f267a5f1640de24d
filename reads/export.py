"""`chipcost export --focus DIR`: the whole price history under FOCUS's names, CSV and Parquet."""

from __future__ import annotations

import io
from dataclasses import dataclass
from datetime import date
from pathlib import Path

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.core.frames import spreadsheet_safe
from chipcost.core.names import resolve_chip_names
from chipcost.core.outputs import written_whole
from chipcost.core.questions import COMMAND_LINE
from chipcost.reads.your_prices import YourPrices
from chipcost.transform.focus import focus_frame, focus_text_times
from chipcost.warehouse.export import history_rows

FOCUS_FILE = "sku_prices"  # .csv and .parquet: the SKU Price dataset's rows


@dataclass(frozen=True)
class Exported:
    files: tuple[Path, ...]
    rows: int
    current: int  # rows of prices that still hold (no SkuPriceEffectiveEnd)
    discounted: int  # rows your discounts applied to
    # the spot offers x_SpotDoubt marks (a row of each), and every offer's source and
    # instance type (those x_GpuAlone marks among them): what the notes say, as `prices` does
    doubted: tuple[dict[str, object], ...] = ()
    offers: tuple[tuple[object, object], ...] = ()


def export_focus(
    con: duckdb.DuckDBPyConnection,
    directory: Path,
    *,
    since: date | None = None,
    chips: list[str] | str | None = None,
    mine: YourPrices | None = None,
) -> Exported:
    """Write <directory>/sku_prices.csv and .parquet: one FOCUS row per price and the span it
    held (SkuPriceEffectiveStart/End), your discounts as ContractedUnitPrice; each price in the
    currency its provider states (PricingCurrency), as the history keeps it."""

    chosen = resolve_chip_names(chips)
    rows = history_rows(con, since, chosen)  # each in its provider's currency: none left out
    if not rows:
        raise ChipcostError(
            "no price in the history to export"
            + (f" that still held on or after {since}" if since else "")
            + f": run `chipcost collect` first, or widen {COMMAND_LINE.either('since', 'chip')}"
        )
    mine = mine or YourPrices()
    if mine.discounts is not None:  # per offer; a span's currency would need a rate per day
        mine = YourPrices(discounts=mine.discounts)
        mine.rows(rows)
    frame = focus_frame(rows)
    try:
        directory.mkdir(parents=True, exist_ok=True)
    except OSError as exc:
        what = "a file is there, not a folder: " if directory.is_file() else ""
        raise ChipcostError(
            f"cannot create the folder {directory}: {what}{exc.strerror or exc}; give "
            f"{COMMAND_LINE.option('out')} a folder, new or existing"
        ) from None
    csv_path, parquet_path = (directory / f"{FOCUS_FILE}.{ext}" for ext in ("csv", "parquet"))
    # Both files or neither: a full disk leaves the previous export whole.
    # Made in memory, written by Python: a full disk is then an OSError naming the file, not a
    # parquet writer's "transport error".
    parquet = io.BytesIO()
    frame.write_parquet(parquet)
    with written_whole([csv_path, parquet_path]) as (csv_file, parquet_file):
        parquet_file.write_bytes(parquet.getvalue())
        csv_file.write_text(spreadsheet_safe(focus_text_times(frame)).write_csv(), "utf-8")
    return Exported(
        files=(csv_path, parquet_path),
        rows=frame.height,
        current=frame["SkuPriceEffectiveEnd"].null_count(),
        discounted=sum(1 for r in rows if r.get("discount")),
        doubted=tuple(
            {
                (r["provider"], r["region"], r["instance_type"]): r
                for r in rows
                if r.get("spot_doubt")
            }.values()
        ),  # fmt: skip
        offers=tuple(dict.fromkeys((r["source"], r["instance_type"]) for r in rows)),
    )
