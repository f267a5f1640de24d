"""Reading a host's vCPUs, memory and disk as sources write them (extract/_kit.py): a spec
that cannot be read is left empty, never guessed, and never refuses the price."""

from __future__ import annotations

import pytest

from chipcost.extract._host_sizes import host_spec, size_gb


@pytest.mark.parametrize(
    ("value", "per", "expected"),
    [
        (192, 1, 192.0),
        ("208", 1, 208.0),
        ("2,048", 1, 2048.0),  # CoreWeave's "System RAM (GB)" cell
        (0, 1, 0.0),  # a disk of none is a fact, not a gap
        (1966080, 1024, 1920.0),  # DigitalOcean's memory in MiB
        (257698037760, 1024**3, 240.0),  # Hot Aisle's ram_capacity in bytes
        (None, 1, None),
        ("", 1, None),
        ("NA", 1, None),
        ("dynamic", 1, None),
        (-4, 1, None),
        (float("nan"), 1, None),
        (True, 1, None),  # a flag is not a count
    ],
)
def test_host_spec(value, per, expected):
    assert host_spec(value, per=per) == expected


@pytest.mark.parametrize(
    ("text", "expected"),
    [
        ("2900 GiB", 2900.0),
        ("22 TiB SSD", 22 * 1024.0),
        ("1.4 TiB SSD", pytest.approx(1.4 * 1024)),
        ("61.44 TB", pytest.approx(61440.0)),
        ("500 GB NVMe", 500.0),
        ("512 MiB", 0.5),
        ("250", 250.0),  # a bare number is GB
        ("EBS only", None),
        ("", None),
        (None, None),
    ],
)
def test_size_gb(text, expected):
    assert size_gb(text) == expected
