"""Every GPU spelling in the coreweave, spheron, nebius and verda fixtures maps to its chip.

A fixture that gains a spelling this table does not list fails here, so each new spelling is
decided (a row in core/data/chip_aliases.csv, or knowingly 'unknown') and tested.
"""

from __future__ import annotations

from datetime import UTC, datetime

import pytest

from chipcost.core.catalog import canonical_chip
from chipcost.core.payload import Payload
from chipcost.extract import coreweave, nebius, spheron, verda
from tests.paths import FIXTURES

AT = datetime(2026, 11, 21, 6, 0, tzinfo=UTC)

# (source, instance as the record names it) -> canonical chip.
EXPECTED = {
    ("coreweave", "NVIDIA GB200 NVL72"): "GB200",
    ("coreweave", "NVIDIA HGX B200"): "B200",
    ("coreweave", "NVIDIA RTX PRO 6000 Blackwell Server Edition"): "RTX-PRO-6000",
    ("coreweave", "NVIDIA HGX H200"): "H200",
    ("coreweave", "NVIDIA HGX H100"): "H100-SXM",
    ("coreweave", "NVIDIA GH200"): "GH200",
    ("coreweave", "NVIDIA L40S"): "L40S",
    ("coreweave", "NVIDIA L40"): "L40",  # not L40S
    ("coreweave", "NVIDIA A100"): "A100-80GB",  # by its 80 GB VRAM
    ("nebius", "NVIDIA HGX B300"): "B300",
    ("nebius", "NVIDIA HGX B200"): "B200",
    ("nebius", "NVIDIA HGX H200"): "H200",
    ("nebius", "NVIDIA HGX H100"): "H100-SXM",
    ("nebius", "NVIDIA L40S GPU with AMD"): "L40S",
    ("nebius", "NVIDIA L40S GPU with Intel"): "L40S",
    ("spheron", "1x H100 SXM5"): "H100-SXM",
    ("spheron", "8x H100 SXM5"): "H100-SXM",
    ("spheron", "1x H200 SXM5"): "H200",
    ("spheron", "8x H200 SXM5"): "H200",
    ("spheron", "1x B200 SXM6"): "B200",
    ("spheron", "8x B200 SXM6"): "B200",
    ("spheron", "1x A100 SXM4"): "A100-80GB",  # gpu_memory 80
    ("spheron", "1x RTX 4090"): "RTX-4090",
    ("verda", "1B300.30V"): "B300",
    ("verda", "8B300.240V"): "B300",
    ("verda", "1B200.30V"): "B200",
    ("verda", "8B200.240V"): "B200",
    ("verda", "1H200.141S.44V"): "H200",
    ("verda", "8H200.141S.176V"): "H200",
    ("verda", "1H100.80S.30V"): "H100-SXM",
    ("verda", "8H100.80S.176V"): "H100-SXM",
    ("verda", "1A100.80S.22V"): "A100-80GB",
    ("verda", "1A100.40S.22V"): "A100-40GB",
    ("verda", "1L40S.20V"): "L40S",
    ("verda", "1RTXPRO6000.30V"): "RTX-PRO-6000",
    ("verda", "1V100.6V"): "V100",
}
GOOD = {
    "coreweave": (coreweave, ["pricing.html"]),
    "nebius": (nebius, ["prices.html"]),
    "spheron": (spheron, ["gpu-offers-page-1.json", "gpu-offers-page-2.json"]),
    "verda": (verda, ["instance-types.json"]),
}


def parsed_chips(source: str) -> dict[tuple[str, str], str]:
    module, names = GOOD[source]
    url = getattr(module, "PRICING_URL", None) or getattr(module, "OFFERS_URL", None)
    url = url or verda.INSTANCE_TYPES_URL
    payloads = [Payload((FIXTURES / source / n).read_bytes(), url, AT, n, n) for n in names]
    return {(source, r.instance_type): r.chip for r in module.parse(payloads).records}


@pytest.mark.parametrize("source", sorted(GOOD))
def test_every_fixture_spelling_is_listed_and_maps_as_expected(source):
    found = parsed_chips(source)
    expected = {key: chip for key, chip in EXPECTED.items() if key[0] == source}
    assert found == expected


@pytest.mark.parametrize(
    ("spelling", "memory", "chip"),
    [
        ("NVIDIA HGX H100", None, "H100-SXM"),
        ("NVIDIA GB200 NVL72", None, "GB200"),
        ("A100 SXM4", 40.0, "A100-40GB"),
        ("A100 SXM4", 80.0, "A100-80GB"),
        ("A100 SXM4", None, "unknown"),  # without memory an A100 is not guessed
        ("H200 SXM5 141GB", None, "H200"),
        ("Tesla V100 16GB", None, "V100"),
        ("NVIDIA L40S GPU with Intel", None, "L40S"),
        ("NVIDIA GeForce RTX 4090", None, "RTX-4090"),
        ("RTX 6000Ada", None, "RTX-6000-Ada"),
        ("Tesla V100", 32.0, "V100-32GB"),
        ("Tesla V100", 16.0, "V100"),
        ("RTX 3080", 12.0, "unknown"),  # the 12 GB card is a different product
        ("AMD Instinct MI355X OAM", None, "MI355X"),
        ("Google TPU v6e", None, "TPU-v6e"),
        ("A100X", None, "A100-80GB"),
        ("H200 NVL", None, "H200-NVL"),
    ],
)
def test_alias_rows(spelling, memory, chip):
    assert canonical_chip(spelling, memory) == chip
