"""One rule for a slice of a GPU, whoever sells it: a MIG instance (RunPod's `... MIG 1g.24gb`),
a fractional VM (Azure's NC8ads_A10_v4, AWS's g6f, Google's g4 shares) or a shared card
(Vultr's vcg-a100-1c-6g-4vram). Its price is the offer's; its chip_count is its fraction of one
chip, so its price per chip-hour is a whole-chip equivalent; `extra` marks it ('share': '1/4 of
one RTX-PRO-6000'), and the reads keep it out of the price index and the cheapest-offer answers
(docs/sources.md, "Slices of a GPU")."""

from __future__ import annotations

import re
from fractions import Fraction

from chipcost.core.catalog import UNKNOWN_CHIP, ChipMatch, chip_memory_gb

# The largest denominator a share is written with: MIG cuts a card into at most 7 or 8, AWS's
# g6f into eighths, Azure's NV v4 into eighths, Vultr's A100 down to 4 GB of 80 (1/20).
MAX_DENOMINATOR = 64
# A MIG profile in an offer's name: 'MIG 1g.24gb' (compute slices 1, memory 24 GB).
MIG = re.compile(r"\bMIG\s+(?P<compute>\d+)g\.(?P<gb>\d+(?:\.\d+)?)gb\b", re.IGNORECASE)


class SliceError(ValueError):
    """A slice whose share of one chip cannot be told: its reason names what is missing."""


def share_of(chip: str, fraction: Fraction | float) -> tuple[float, dict[str, str]]:
    """(chip_count, the extra that marks it) of an offer renting `fraction` of one `chip`.
    A fraction of 1 or more is whole chips: no mark. SliceError for an unknown chip or a
    fraction that is not above 0 (a slice of nothing known is not priced per chip)."""
    share = Fraction(fraction).limit_denominator(MAX_DENOMINATOR)
    if share <= 0:
        raise SliceError(f"a share of {fraction} of one {chip} is not a share of a GPU")
    if share >= 1:
        return float(share), {}
    if chip == UNKNOWN_CHIP:
        raise SliceError(
            f"a {share} share of a GPU chipcost does not know: no whole chip to price it against"
        )
    return float(share), ChipMatch(chip, float(share), known_type=True).share_label()


def memory_share(chip: str, slice_gb: float, denominator: int = MAX_DENOMINATOR) -> Fraction:
    """The share of one `chip` a slice of `slice_gb` of its memory is (24 GB of a 96 GB card:
    1/4), as AWS states a g6f's and RunPod and Vultr name theirs. SliceError when the chip's
    memory is unknown."""
    if chip == UNKNOWN_CHIP:
        raise SliceError(
            f"a {slice_gb:g} GB share of a GPU chipcost does not know: no whole chip to price "
            "it against"
        )
    whole = chip_memory_gb().get(chip)
    if not whole:
        raise SliceError(f"{chip}'s memory is unknown (chips.csv): its {slice_gb:g} GB share")
    return Fraction(slice_gb / whole).limit_denominator(denominator)


def mig_profile(name: str) -> tuple[str, float] | None:
    """(the whole card's name, the slice's memory in GB) of a MIG offer's name, else None:
    'RTX PRO 6000 Blackwell Server Edition MIG 2g.48gb' -> ('RTX PRO 6000 ... Edition', 48.0)."""
    found = MIG.search(name)
    if found is None:
        return None
    return name[: found.start()].strip(), float(found["gb"])
