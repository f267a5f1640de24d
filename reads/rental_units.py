"""What one offer rents when it is more than one machine: a TPU slice or an UltraServer.

"Fits" weighs the memory of what one offer rents, its chips x memory per chip; a TPU slice's
or an UltraServer's chips are all of its hosts', so a 70B model fits a v6e-8 (8 x 32 GB) and
training counts the slices or UltraServers it needs. Among the sizes of one chip offered at
one price in one place (a slice of 1, 4 or 8 chips at Google's per chip-hour rate), the
ranking shows the smallest that holds the model (chipcost.transform.cost_fit).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from functools import cache

from chipcost.core.catalog import aws_ultraserver_types
from chipcost.extract._gcp_tpus import slices


@dataclass(frozen=True)
class Unit:
    """A rental of several hosts: 'slice' or 'UltraServer', and the offer's name for it."""

    kind: str
    name: str

    @property
    def plural(self) -> str:
        return f"{self.kind}s"


@cache
def kinds() -> dict[tuple[str, str], str]:
    """(provider, instance type) -> 'slice' or 'UltraServer', for every such offer name."""
    found = {("aws", name): "UltraServer" for name in aws_ultraserver_types()}
    found |= {("gcp", shape.name): "slice" for shapes in slices().values() for shape in shapes}
    return found


def unit_of(row: Mapping[str, object]) -> Unit | None:
    """The TPU slice or UltraServer a cost row's offer rents; None for a plain instance."""
    name = str(row.get("instance_type") or "")
    kind = kinds().get((str(row.get("provider") or ""), name))
    return Unit(kind, name) if kind else None
