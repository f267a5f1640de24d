"""What a reseller's records say of the cloud that runs the machine (Shadeform, Prime
Intellect): the record's provider is the channel a user rents through and pays; the cloud is
the seller, named as chipcost names that cloud where it also collects it directly."""

from __future__ import annotations

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip

# A reseller's spelling of a cloud -> the provider name of chipcost's own source for it, so a
# resold offer and the cloud's own can be found together (extra.seller).
DIRECT_NAMES = {"lambdalabs": "lambda", "datacrunch": "verda", "crusoecloud": "crusoe"}


def seller(cloud: str, channel: str) -> dict[str, str]:
    """extra's seller (chipcost's name for the cloud), the reseller's own spelling of it, and
    the channel."""
    return {"seller": DIRECT_NAMES.get(cloud, cloud), "cloud": cloud, "channel": channel}


def with_part(gpu: str, part: object, memory: float | None) -> str:
    """The GPU name with the interconnect or socket the offer states, where that names a chip
    ("H100" with "pcie" is the H100 PCIe, with "SXM5" the SXM part: resellers name both H100
    alike), else the name alone ("A100_80G", "RTX4090")."""
    if isinstance(part, str) and part.strip():
        joined = f"{gpu} {part.strip()}"
        if canonical_chip(joined, memory) != UNKNOWN_CHIP:
            return joined
    return gpu
