"""The accelerator catalog: canonical chips with specs, and AWS instance type -> chip.

All of it is data (core/data/*.csv): a new chip or instance type is a row, not code.
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from functools import cache, lru_cache
from importlib import resources

UNKNOWN_CHIP = "unknown"


def _rows(name: str) -> list[dict[str, str]]:
    with resources.files("chipcost.core").joinpath("data", name).open(encoding="utf-8") as handle:
        return list(csv.DictReader(line for line in handle if not line.startswith("#")))


@cache
def chip_rows() -> tuple[dict[str, str], ...]:
    """Canonical chips with their specs and where each spec came from (chips.csv)."""
    return tuple(_rows("chips.csv"))


@cache
def canonical_chips() -> frozenset[str]:
    return frozenset(row["chip"] for row in chip_rows())


@cache
def chip_memory_gb() -> dict[str, float]:
    """Memory per chip, GB (chips.csv), for the chips that state it."""
    return {r["chip"]: float(r["memory_gb"]) for r in chip_rows() if r["memory_gb"]}


@cache
def aws_families() -> dict[str, str]:
    """Accelerator instance family (the part before the dot) -> canonical chip."""
    return {row["family"]: row["chip"] for row in aws_family_rows()}


@cache
def aws_family_rows() -> tuple[dict[str, str], ...]:
    """aws_families.csv as rows: family, chip, vendor, note and the AWS page it comes from."""
    return tuple(_rows("aws_families.csv"))


@cache
def aws_instance_chip_counts() -> dict[str, float]:
    """Instance type -> chips per instance; below 1 for a fractional GPU ("1/8" of one L4)."""
    from fractions import Fraction  # not at import: a read that never asks pays nothing

    return {
        row["instance_type"]: float(Fraction(row["chip_count"]))
        for row in _rows("aws_instance_types.csv")
    }


def aws_accelerator_types() -> tuple[str, ...]:
    """Every accelerator instance type the catalog lists (aws_instance_types.csv), in order."""
    return tuple(aws_instance_chip_counts())


@cache
def aws_location_regions() -> dict[str, str]:
    """Price List `location` ("EU (Ireland)", "US East (Ohio)") -> region code."""
    return {row["location"]: row["region"] for row in _rows("aws_locations.csv")}


@cache
def unpublished_prices() -> dict[str, dict[str, str]]:
    """Chips whose rental price is not published -> status, source, date and the source's words
    (unpublished_prices.csv): what a price query says of a chip no source can price."""
    return {row["chip"]: row for row in _rows("unpublished_prices.csv")}


@cache
def aws_no_spot_families() -> dict[str, str]:
    """Families AWS runs no Spot market for -> where that is stated (aws_no_spot_families.csv)."""
    return {row["family"]: row["source"] for row in _rows("aws_no_spot_families.csv")}


@cache
def aws_capacity_block_types() -> tuple[str, ...]:
    """Instance types sold as EC2 Capacity Blocks for ML (aws_capacity_block_types.csv)."""
    return tuple(row["instance_type"] for row in _rows("aws_capacity_block_types.csv"))


@dataclass(frozen=True)
class UltraServer:
    """An EC2 UltraServer type (aws_ultraserver_types.csv): its member instances, and so its
    chips (the members' chip and chips per instance, aws_instance_types.csv)."""

    name: str
    instance_type: str
    instances: int
    chip: str
    chip_count: float


@cache
def aws_ultraserver_types() -> dict[str, UltraServer]:
    """UltraServer types sold as Capacity Blocks (aws_ultraserver_types.csv), by name."""
    found = {}
    for row in _rows("aws_ultraserver_types.csv"):
        member, instances = aws_chip_for(row["instance_type"]), int(row["instances"])
        name = row["ultraserver_type"]
        found[name] = UltraServer(
            name, row["instance_type"], instances, member.chip, member.chip_count * instances
        )
    return found


@cache
def largest_rental() -> tuple[float, str]:
    """(chips, what and where) of the largest set of chips the catalog knows rented as one:
    every AWS instance type and UltraServer, every Cloud TPU slice. A price of more chips
    than this is a misread count (10^9 GPUs at $2 an hour each), refused, not loaded: a
    larger set becomes priceable by adding its row to these files."""
    found = [(n, f"{t} (aws_instance_types.csv)") for t, n in aws_instance_chip_counts().items()]
    found += [
        (u.chip_count, f"{u.name} (aws_ultraserver_types.csv)")
        for u in aws_ultraserver_types().values()
    ]
    found += [
        (float(row["chips"]), f"{row['instance_type']} (gcp_tpu_slices.csv)")
        for row in _rows("gcp_tpu_slices.csv")
    ]
    return max(found)


# Vendor and brand words a provider may put first; removed in this order, each once.
_VENDORS = ("nvidia", "amd", "intel", "aws", "amazon", "habana", "google", "qualcomm")
_VENDORS += ("geforce", "tesla")  # NVIDIA brands: "NVIDIA GeForce RTX 4090", "Tesla T4"


# A registered or trade mark after a vendor's or product's name ("NVIDIA® H100", "Intel(R)
# Gaudi(R) 2", "H100™"): no part of the name, so a page that adds one names the same chip.
TRADEMARK = re.compile(r"®|™|\((?:R|TM)\)", re.IGNORECASE)


def without_marks(name: str) -> str:
    """'NVIDIA® H100™' -> 'NVIDIA H100': the name with its marks ('®', '™', '(R)', '(TM)') left
    out and its whitespace collapsed, as a source names the offer and the catalog reads it."""
    return " ".join(TRADEMARK.sub(" ", name).split())


def normalise_spelling(spelling: str) -> str:
    """'NVIDIA H100-SXM5 80GB' -> 'h100sxm580gb': case, separators, marks and vendor ignored
    ('Tesla_V100_SXM2_16GB' loses its brand as 'Tesla V100 SXM2 16GB' does, 'NVIDIA® H100' its
    mark and vendor as 'NVIDIA H100' does)."""
    text = without_marks(spelling.lower().replace("_", " ").replace("-", " "))
    for vendor in _VENDORS:
        if text.startswith(vendor + " "):
            text = text[len(vendor) + 1 :]
    return "".join(ch for ch in text if ch.isalnum())


@dataclass(frozen=True)
class Alias:
    """One row of chip_aliases.csv: a spelling (normalised), the memory it must state when
    listed with one, its chip, and the one source it is read for when the name means another
    chip elsewhere ('' for every source)."""

    spelling: str
    memory_gb: float | None
    chip: str
    source: str


@cache
def chip_aliases() -> tuple[Alias, ...]:
    return tuple(
        Alias(
            normalise_spelling(row["spelling"]),
            float(row["memory_gb"]) if row["memory_gb"] else None,
            row["chip"],
            row["source"] or "",
        )
        for row in _rows("chip_aliases.csv")
    )


@cache
def _aliases_by_spelling() -> dict[str, tuple[Alias, ...]]:
    """chip_aliases() by normalised spelling, each spelling's aliases in the file's order:
    a parse looks a spelling up per row, not through every alias."""
    found: dict[str, list[Alias]] = {}
    for alias in chip_aliases():
        found.setdefault(alias.spelling, []).append(alias)
    return {spelling: tuple(entries) for spelling, entries in found.items()}


@cache
def _listed_spellings() -> dict[str, str]:
    listed: dict[str, str] = {}
    for row in _rows("chip_aliases.csv"):
        listed.setdefault(normalise_spelling(row["spelling"]), row["spelling"])
    return listed


def listed_spelling(spelling: str) -> str:
    """The spelling as chip_aliases.csv writes it when the provider's spelling is the same but
    for case and separators ('RTX-PRO6000' -> 'RTX PRO 6000'), else the provider's own: one
    name for one card where a provider writes it two ways."""
    return _listed_spellings().get(normalise_spelling(spelling), spelling.strip())


# A name ending in its memory size ("A30_24GB", "Tesla V100S 32GB"): the size is the memory.
_MEMORY_SUFFIX = re.compile(r"^(?P<name>.*?[a-z0-9])[\s_-]*(?P<gb>\d+(\.\d+)?)\s*(g|gb|gib)$", re.I)


# Past this many characters a spelling names no chip (the aliases' longest is tens): it is
# answered unknown unread and uncached, whoever asks (a source's row naming one is refused).
LONGEST_SPELLING = 200


def canonical_chip(spelling: str, memory_gb: float | None = None, source: str = "") -> str:
    """The canonical chip a provider's spelling names, or 'unknown' (never a guess).

    A spelling listed with a memory size matches only when the stated memory is within 10%;
    a spelling listed for one source is read so for that source only, before the others. A
    name that ends in a memory size ("RTX_3080_10GB") and is not listed whole is read as the
    name before it with that memory, which must be the chip's (chips.csv) within 10%.
    """
    if len(spelling) > LONGEST_SPELLING:  # no chip's; not read through (a 60 MB "name")
        return UNKNOWN_CHIP
    return _canonical(spelling, memory_gb, source)


@lru_cache(maxsize=4096)  # a parse asks once per row, of a few dozen spellings
def _canonical(spelling: str, memory_gb: float | None, source: str) -> str:
    if spelling in canonical_chips():
        return spelling
    chip = _aliased(normalise_spelling(spelling), memory_gb, source)
    suffix = _MEMORY_SUFFIX.match(spelling.strip())
    if chip == UNKNOWN_CHIP and suffix:
        gb = float(suffix["gb"])
        chip = _aliased(normalise_spelling(suffix["name"]), gb, source)
        listed = chip_memory_gb().get(chip)
        if listed is not None and not _within(gb, listed):  # "MI300X 80GB" names no MI300X
            return UNKNOWN_CHIP
    return chip


def _aliased(spelling: str, memory_gb: float | None, source: str) -> str:
    """The chip of the aliases of one normalised spelling: this source's first, then every
    source's; one listed with a memory needs the stated memory within 10% of it."""
    aliases = _aliases_by_spelling().get(spelling, ())
    for wanted in (source, "") if source else ("",):
        plain = None
        for alias in (a for a in aliases if a.source == wanted):
            if alias.memory_gb is None:
                plain = plain or alias.chip
            elif _within(memory_gb, alias.memory_gb):
                return alias.chip
        if plain:
            return plain
    return UNKNOWN_CHIP


def read_at_memory(spelling: str, source: str = "") -> list[tuple[str, float]]:
    """(chip, memory) of each alias that reads `spelling` only at a stated memory ('A100' is
    A100-40GB at 40 GB, A100-80GB at 80 GB): what a spelling left unknown lacked."""
    aliases = _aliases_by_spelling().get(normalise_spelling(spelling), ())
    return [
        (a.chip, a.memory_gb)
        for a in aliases
        if a.memory_gb is not None and a.source in ("", source)
    ]


def _within(stated: float | None, listed: float) -> bool:
    return stated is not None and abs(stated - listed) <= 0.1 * listed


@dataclass(frozen=True)
class ChipMatch:
    chip: str
    chip_count: float
    known_type: bool  # False: found by its attributes, not listed in the catalog

    @property
    def is_unknown(self) -> bool:
        return self.chip == UNKNOWN_CHIP

    @property
    def share(self) -> str:
        """'1/8' when the instance rents a share of one chip, '' when it rents whole chips."""
        if not 0 < self.chip_count < 1:
            return ""
        from fractions import Fraction

        return str(Fraction(self.chip_count).limit_denominator(64))

    def share_label(self) -> dict[str, str]:
        """The record's `extra` entry naming a fractional chip, e.g. {'share': '1/8 of one L4'}."""
        return {"share": f"{self.share} of one {self.chip}"} if self.share else {}


def aws_family(instance_type: str) -> str:
    return instance_type.split(".", 1)[0]


def aws_chip_for(instance_type: str, accelerator_count: float | None = None) -> ChipMatch:
    """Canonical chip and chips per instance for an AWS instance type.

    The catalog's count wins; the Price List's `gpu` attribute (which counts Trainium and
    Inferentia chips too, but names nothing) fills in sizes the catalog does not list yet.
    """
    chip = aws_families().get(aws_family(instance_type), UNKNOWN_CHIP)
    listed = aws_instance_chip_counts().get(instance_type)
    if listed is not None:
        return ChipMatch(chip, float(listed), known_type=True)
    count = float(accelerator_count) if accelerator_count and accelerator_count > 0 else 0.0
    return ChipMatch(chip, count, known_type=False)
