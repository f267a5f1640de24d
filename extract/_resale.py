"""What a reseller's records say of the cloud that runs the machine (Shadeform, Prime
Intellect): the record's provider is the channel a user rents through and pays; the cloud is
the seller, named as chipcost names that cloud where it also collects it directly. And how
the part an offer states (interconnect, socket, form factor) decides its chip."""

from __future__ import annotations

import re

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip

# A reseller's spelling of a cloud -> the provider name of chipcost's own source for it, so a
# resold offer and the cloud's own can be found together (extra.seller).
DIRECT_NAMES = {"lambdalabs": "lambda", "datacrunch": "verda", "crusoecloud": "crusoe"}
# The parts a GPU is made in, as chip_aliases.csv spells them after the GPU's name ("H100
# PCIe", "H100 SXM", "H100 NVL"): a GPU listed with any of them is made in more than one.
PARTS = ("PCIe", "SXM", "NVL")
# What a stated part adds to "PCIe" without naming another part: its generation or lanes
# (Prime Intellect's socket "PCIe Gen5", "PCIe 4.0 x16").
PCIE_DETAIL = re.compile(r"^pcie(?:gen\d+|\d+|x\d+)*$")
SXM = re.compile(r"^sxm\d?$")
SXM_GENERATIONS = ("SXM2", "SXM4", "SXM5", "SXM6")


def seller(cloud: str, channel: str) -> dict[str, str]:
    """extra's seller (chipcost's name for the cloud), the reseller's own spelling of it, and
    the channel."""
    return {"seller": DIRECT_NAMES.get(cloud, cloud), "cloud": cloud, "channel": channel}


def with_part(gpu: str, part: object, memory: float | None) -> str:
    """The spelling of the chip an offer's GPU name and stated part name together.

    The stated part decides: "H100" over "PCIe Gen5" is the H100 PCIe, over "SXM5" the SXM
    part (resellers name both H100 alike). A part that adds nothing to a GPU made in one form
    leaves its name alone ("A40" over "PCIe"). A part chipcost cannot read, or a form the GPU
    is not made in ("H200" over "PCIe"), is kept in the spelling, which then names no chip:
    the record is `unknown` and the parse's notes name the spelling."""
    if not isinstance(part, str) or not part.strip():
        return gpu
    stated = " ".join(part.split())
    names = part_names(stated)
    for name in (stated, *names):
        if canonical_chip(f"{gpu} {name}", memory) != UNKNOWN_CHIP:
            return f"{gpu} {name}"
    if names and not _made_in_parts(gpu, memory):
        return gpu
    return f"{gpu} {stated}"


def part_names(stated: str) -> tuple[str, ...]:
    """The part a stated interconnect or socket names, as chip_aliases.csv spells it after a
    GPU ("SXM5" and then "SXM" for "sxm5"; "PCIe" for "PCIe Gen5"), or () when it names none
    chipcost knows."""
    word = re.sub(r"[\s_.-]+", "", stated.lower())
    if PCIE_DETAIL.match(word):
        return ("PCIe",)
    if SXM.match(word):
        # a bare "sxm" names the module of the GPU's one generation: "A100 80G SXM4"
        return (word.upper(), "SXM") if word != "sxm" else ("SXM", *SXM_GENERATIONS)
    if word in ("nvl", "oam"):
        return (word.upper(),)
    return ()


def _made_in_parts(gpu: str, memory: float | None) -> bool:
    return any(canonical_chip(f"{gpu} {part}", memory) != UNKNOWN_CHIP for part in PARTS)
