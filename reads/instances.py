"""Instance types where a user names them: `--instance` in the warehouse's spelling, and an
instance name given as a chip (p5.48xlarge, a3-highgpu-8g) read as the instance it is."""

from __future__ import annotations

from dataclasses import replace
from typing import TYPE_CHECKING

import duckdb

from chipcost.core.errors import ChipcostError
from chipcost.core.names import resolve_chip_name, split_values
from chipcost.warehouse.prices import instance_spellings

if TYPE_CHECKING:
    from chipcost.reads.price_ask import PriceAsk


def instances_named_as_chips(con: duckdb.DuckDBPyConnection, ask: PriceAsk) -> PriceAsk:
    """The ask with each chip name that is no chip but a current offer's instance type
    (p5.48xlarge, a3-highgpu-8g) moved to the instance filter, with a hint saying so that
    keeps the refusal's words (which chip the type has, where it knows). The read spells each
    instance as the warehouse does (ND96isr_H100_v5 is Azure's Standard_ND96isr_H100_v5)."""
    chips: list[str] = []
    moved: list[str] = []
    hints: list[str] = []
    spellings: dict[str, str] | None = None  # read only when needed: usually never
    for name in split_values(ask["chip"], "chip name") or []:
        try:
            resolve_chip_name(name)
        except ChipcostError as refused:
            spellings = spellings or instance_spellings(con)
            if name.lower() not in spellings:
                raise
            moved.append(name)
            said = str(refused)
            if "not a chip" not in said:
                said = f"{name!r} is an instance type, not a chip"
            hints.append(f"{said}; answered as {ask.voice.said('instance', name)}")
            continue
        chips.append(name)
    if not moved:  # the instance filter is spelled where the prices are read (find_price_rows)
        return ask
    instances = [*(split_values(ask["instance"], "instance type") or []), *moved]
    given = {**ask.given, "chip": chips or None, "instance": instances}
    return replace(ask, given=given, hints=(*ask.hints, *hints))
