"""Azure GPU VM sizes read by rule: the size name says the family, vCPUs, accelerator and
version; core/data/azure_series.csv says only what the name does not (the series' chip and
vCPUs per GPU)."""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from fractions import Fraction
from functools import cache
from importlib import resources

SERIES_TABLE = "azure_series.csv"
# Standard_<family><vCPUs>[-<active vCPUs>]<feature letters>[_<accelerator words>][_v<version>]
# [_Promo]: "Standard_ND96isr_H100_v5", "Standard_ND128isr_NDR_GB200_v6",
# "Standard_NC128lds_xl_RTXPRO6000BSE_v6", "Standard_NC6s_v3", "Standard_NV6_Promo".
_NAME = re.compile(
    r"^Standard_(?P<family>N[A-Z]*)(?P<vcpus>\d+)(?:-\d+)?(?P<features>[a-z]*)"
    r"(?:_(?P<words>[A-Za-z0-9_]+?))??(?:_v(?P<version>\d+))?(?P<promo>_Promo)?$"
)


@dataclass(frozen=True)
class Size:
    """What a size name says, and the series it belongs to ("ND H100 v5", "NC - v3")."""

    name: str
    family: str
    vcpus: int
    accelerator: str
    version: str
    promo: bool
    features: str = ""

    @property
    def series(self) -> str:
        return f"{self.family} {self.accelerator or '-'} v{self.version or '1'}"

    @property
    def series_names(self) -> tuple[str, ...]:
        """The series it may belong to, most specific first: an "m" feature letter can name a
        series of its own with more memory per GPU (ND112amsr_A100_v4 is NDm A100 v4, 80 GB
        A100s; ND112asr_A100_v4 is ND A100 v4, 40 GB)."""
        accelerator, version = self.accelerator or "-", self.version or "1"
        memory = (f"{self.family}m {accelerator} v{version}",) if "m" in self.features else ()
        return (*memory, self.series)


@dataclass(frozen=True)
class Series:
    chip: str
    vcpus_per_gpu: int | None
    counts: dict[int, Fraction]
    source: str
    documented: tuple[str, ...]
    retired: str = ""  # the date Microsoft retired the series, where it did


@dataclass(frozen=True)
class Mapped:
    """A size mapped to its chip and GPUs (a Fraction: below 1 for a share of one GPU)."""

    chip: str
    count: Fraction
    series: str
    promo: bool


def read_name(name: str) -> Size | None:
    """The parts of an Azure GPU size name, or None where it does not read as one."""
    found = _NAME.match(name)
    if not found:
        return None
    words = [w for w in (found["words"] or "").split("_") if w]
    # The accelerator is the last word that names a part: "NDR_GB200" is GB200 (NDR is the
    # InfiniBand generation), "xl_RTXPRO6000BSE" is RTXPRO6000BSE.
    accelerator = next((w for w in reversed(words) if re.search(r"[A-Z]", w) and w != "NDR"), "")
    return Size(
        name=name,
        family=found["family"],
        vcpus=int(found["vcpus"]),
        accelerator=accelerator,
        version=found["version"] or "",
        promo=bool(found["promo"]),
        features=found["features"],
    )


def map_size(name: str) -> tuple[Mapped | None, str]:
    """(chip and GPU count of a size, '') or (None, why no rule maps it)."""
    size = read_name(name)
    if size is None:
        return None, "the name does not read as Standard_<family><vCPUs><features>_<GPU>_v<n>"
    table = series_table()
    name = next((n for n in size.series_names if n in table), size.series)
    series = table.get(name)
    if series is None:
        return None, f"no series {size.series!r}"
    count = series.counts.get(size.vcpus)
    if count is None and series.vcpus_per_gpu:
        count = Fraction(size.vcpus, series.vcpus_per_gpu)
    if count is None and series.retired:
        return None, (
            f"series {name!r} was retired on {series.retired} (Microsoft Learn): a size no "
            "longer sold, whose GPU count its pages no longer give"
        )
    if count is None:
        return None, f"series {name!r} gives no GPU count for the size"
    return Mapped(series.chip, count, name, size.promo), ""


@cache
def series_table() -> dict[str, Series]:
    """Series name -> Series, from core/data/azure_series.csv."""
    path = resources.files("chipcost.core").joinpath("data", SERIES_TABLE)
    with path.open(encoding="utf-8") as handle:
        rows = list(csv.DictReader(line for line in handle if not line.startswith("#")))
    return {
        row["series"]: Series(
            chip=row["chip"],
            vcpus_per_gpu=int(row["vcpus_per_gpu"]) if row["vcpus_per_gpu"] else None,
            counts={
                int(vcpus): Fraction(gpus)
                for vcpus, gpus in (pair.split("=") for pair in row["counts"].split())
            },
            source=row["source"],
            documented=tuple(row["documented"].split()),
            retired=row["retired"],
        )
        for row in rows
    }


def documented_sizes() -> dict[str, Mapped]:
    """Every size the series pages list, mapped by the rule (the instance_types rows)."""
    found = {}
    for series in series_table().values():
        for name in series.documented:
            mapped, _ = map_size(name)
            if mapped is not None:
                found[name] = mapped
    return found
