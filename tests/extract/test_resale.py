"""_resale.with_part: the part a reseller states (interconnect, socket) decides the chip."""

from __future__ import annotations

import pytest

from chipcost.core.catalog import canonical_chip
from chipcost.extract._resale import with_part


@pytest.mark.parametrize(
    ("gpu", "part", "memory", "chip"),
    [
        ("H100", "PCIe Gen5", 80, "H100-PCIe"),  # Prime Intellect's socket
        ("H100", "pcie", 80, "H100-PCIe"),  # Shadeform's interconnect
        ("H100", "sxm5", 80, "H100-SXM"),
        ("H100", None, 80, "H100-SXM"),  # nothing stated: the name and memory alone
        ("A100", "PCIe", 80, "A100-80GB-PCIe"),
        ("A100", "SXM4", 80, "A100-80GB"),
        ("A100", "PCIe", 40, "A100-40GB"),
        ("A40", "PCIe", 48, "A40"),  # made in one form: the part adds nothing
        ("RTX 4090", "pcie", 24, "RTX-4090"),
        ("H200", "PCIe", 141, "unknown"),  # no H200 PCIe card (the PCIe part is the NVL)
        ("H100", "OAM", 80, "unknown"),
        ("A40", "infiniband", 48, "unknown"),  # a part chipcost cannot read
    ],
)
def test_the_stated_part_decides_the_chip(gpu, part, memory, chip):
    assert canonical_chip(with_part(gpu, part, memory), memory) == chip
