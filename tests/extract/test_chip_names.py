"""Every GPU name a source hands the catalog maps to a known chip, or is a deliberate 'unknown'.

The names are those each source's parser asks the catalog about over the fixtures its contract
declares (tests/fixtures/<source>/contract.toml: good files, each bad-rows file beside them, and
each recorded answer parsed alone) and over every run of the sample archive (sample/archive:
each source's payloads as archived), and those of the name lists kept from real answers
(tests/fixtures/<source>/gpu-names.csv, each with its origin). A name that maps to no chip fails
here naming the row to add to core/data/chip_aliases.csv, or the note to add to DELIBERATE.
"""

from __future__ import annotations

import csv
from functools import cache
from pathlib import Path

import pytest

from chipcost.archive import archived_sources, read_payloads
from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip, canonical_chips
from chipcost.core.errors import ChipcostError
from chipcost.extract import _kit, registry
from chipcost.sample import ARCHIVE
from tests.paths import FIXTURES
from tests.sources import contract

NAME_LISTS = "gpu-names.csv"
Name = tuple[str, str, float | None]  # source, spelling, memory stated beside it

# (source, spelling) -> why it is left `unknown` on purpose.
DELIBERATE = {
    ("cudo", "RTX 3080"): "Cudo names no memory, and the RTX 3080 was sold with 10 and 12 GB",
    ("daytona", "MI400X"): "bad-rows.json: a GPU type no one rents yet",
    ("digitalocean", "nvidia_x9000"): "bad-rows.json: a made-up GPU",
    ("seeweb", "Tenstorrent Grayskull e75"): "a card chips.csv does not list (no rental found)",
    ("shadeform", "A100"): "bad-availability.json: an A100 stated with 48 GB, which none has",
    ("gmicloud", "H100"): "the pricing page's 'NVIDIA H100 GPU' names no form factor (SXM, PCIe "
    "or NVL) and no memory: which H100 GMI Cloud rents is not stated",
}


def archived_runs() -> list[Path]:
    """The sample archive's runs, oldest first."""
    return sorted(path for path in ARCHIVE.iterdir() if path.is_dir())


@cache
def parsed_names() -> frozenset[Name]:
    """What every source's parser asks the catalog, over its contract's fixtures and every
    run of the sample archive."""
    asked: set[Name] = set()
    ask = _kit.ChipNames.chip

    def recording(self: _kit.ChipNames, spelling: str, memory_gb: float | None = None) -> str:
        asked.add((self.source, spelling, memory_gb))
        return ask(self, spelling, memory_gb)

    _kit.ChipNames.chip = recording  # type: ignore[method-assign]
    try:
        for name, source in registry().items():
            found = contract(name)
            if found is None:
                continue
            good = found.good_payloads()
            for bad in [[], *([case.payload(name)] for case in found.bad_rows)]:
                try:
                    source.parse([*good, *bad])
                except ChipcostError:
                    continue  # a fixture refused whole names nothing more than it asked
            for kept in found.recorded:  # real answers parsed alone (test_contract.py)
                source.parse([kept.payload(name)])
        for run in archived_runs():
            for name in archived_sources(run):
                registry()[name].parse(read_payloads(run, name))
    finally:
        _kit.ChipNames.chip = ask  # type: ignore[method-assign]
    return frozenset(asked)


@cache
def listed_names() -> frozenset[Name]:
    """The names of the lists kept from real answers, per source."""
    found: set[Name] = set()
    for path in sorted(FIXTURES.glob(f"*/{NAME_LISTS}")):
        with path.open(encoding="utf-8") as handle:
            rows = csv.DictReader(line for line in handle if not line.startswith("#"))
            for row in rows:
                memory = float(row["memory_gb"]) if row["memory_gb"] else None
                found.add((path.parent.name, row["spelling"], memory))
    return frozenset(found)


def every_name() -> list[Name]:
    return sorted(parsed_names() | listed_names(), key=lambda n: (n[0], n[1], n[2] or 0))


def test_every_archived_source_is_a_source_and_parses():
    """The sample archive's runs replay: each source directory is a registered source, and
    parsed_names() read them all (a parse that fails fails here, not quietly)."""
    runs = archived_runs()
    assert len(runs) >= 8
    archived = {name for run in runs for name in archived_sources(run)}
    assert archived <= set(registry()) and len(archived) >= 25
    assert parsed_names()


def test_no_archived_offer_loads_as_unknown_but_by_a_deliberate_name():
    """Every offer of every run of the sample archive has a chip, but those whose name is left
    `unknown` on purpose (DELIBERATE, each with its reason)."""
    unknown: dict[str, set[str]] = {}
    for run in archived_runs():
        for name in archived_sources(run):
            for record in registry()[name].parse(read_payloads(run, name)).records:
                if record.chip == UNKNOWN_CHIP:
                    unknown.setdefault(name, set()).add(record.instance_type)
    deliberate = {source for source, _ in DELIBERATE}
    assert set(unknown) <= deliberate, {s: sorted(t) for s, t in unknown.items()}


def test_the_names_come_from_every_source_and_every_list():
    sources = {source for source, _, _ in parsed_names()}
    collected = {n for n, s in registry().items() if s.collected and contract(n) is not None}
    assert len(sources) >= 25, sorted(collected - sources)
    assert {source for source, _, _ in listed_names()} >= {"fluidstack", "ovhcloud", "tensordock"}


@pytest.mark.parametrize("name", every_name(), ids=lambda n: f"{n[0]}:{n[1]}:{n[2] or ''}")
def test_each_name_maps_to_a_known_chip_or_is_deliberately_unknown(name):
    source, spelling, memory = name
    chip = canonical_chip(spelling, memory, source)
    if (source, spelling) in DELIBERATE:
        assert chip == UNKNOWN_CHIP, f"{spelling!r} maps to {chip} now: drop its DELIBERATE note"
        return
    assert chip in canonical_chips() and chip != UNKNOWN_CHIP, (
        f"{source} names {spelling!r} ({memory or 'no'} GB) and it maps to no chip: add a row "
        f"'{spelling},{memory or ''},<chip>,' to core/data/chip_aliases.csv (with {source} in "
        "the source column if it means another chip elsewhere), or a DELIBERATE note here"
    )


@pytest.mark.parametrize(
    ("source", "spelling", "memory", "chip"),
    [
        ("fluidstack", "Tesla_V100_PCIE_16GB", None, "V100"),  # the brand before an underscore
        ("fluidstack", "A100_PCIE_40GB", None, "A100-40GB"),  # the memory at the end of the name
        ("fluidstack", "RTX_3080_10GB", None, "RTX-3080"),
        ("ovhcloud", "Quadro-RTX5000", None, "Quadro-RTX-5000"),  # the Turing card, not Ada
        ("tensordock", "geforcertx3060tilhr-pcie-8gb", 8.0, "RTX-3060-Ti"),
        ("vultr", "l40", None, "L40S"),  # Vultr's bare-metal "l40" carries L40S cards
        ("coreweave", "l40", None, "L40"),  # ... a word read so for Vultr only
        ("daytona", "H100", None, "H100-SXM"),
        ("runpod", "H100", None, UNKNOWN_CHIP),  # which H100, elsewhere, its memory says
        ("seeweb", "MI300X 80GB", None, UNKNOWN_CHIP),  # a memory the chip does not have
        # Fluidstack names the 24 GB Quadro RTX 6000 "16GB": read by its name, for Fluidstack
        ("fluidstack", "Quadro_RTX_6000_16GB", None, "Quadro-RTX-6000"),
        ("shadeform", "Quadro_RTX_6000_16GB", None, UNKNOWN_CHIP),
        # Issue 75: a RunPod gpuTypes answer of 2026 (ids with their memoryInGb)
        ("runpod", "NVIDIA RTX PRO 5000 Blackwell", 48.0, "RTX-PRO-5000"),
        ("runpod", "RTX PRO 5000", 48.0, "RTX-PRO-5000"),
        ("runpod", "NVIDIA RTX PRO 5000 Blackwell", 72.0, "RTX-PRO-5000-72GB"),
        ("runpod", "NVIDIA RTX PRO 5000 Blackwell", None, UNKNOWN_CHIP),  # 48 or 72 GB
        ("runpod", "NVIDIA RTX PRO 4000 Blackwell", 24.0, "RTX-PRO-4000"),
        ("runpod", "RTX PRO 4000", 24.0, "RTX-PRO-4000"),
        ("runpod", "RTX PRO 4000 Blackwell SFF", 24.0, UNKNOWN_CHIP),  # another card (70 W)
        # RunPod's GPU types table (runpod/docs references/gpu-types.mdx): id, display name
        ("runpod", "NVIDIA RTX 4000 SFF Ada Generation", 20.0, "RTX-4000-SFF-Ada"),
        ("runpod", "RTX 4000 Ada SFF", 20.0, "RTX-4000-SFF-Ada"),
        ("runpod", "NVIDIA RTX 4000 Ada Generation", 20.0, "RTX-4000-Ada"),  # not the SFF card
    ],
)
def test_source_rows_and_memory_suffixes_read_as_the_table_says(source, spelling, memory, chip):
    assert canonical_chip(spelling, memory, source) == chip
