"""The accelerator catalog: every AWS accelerator family the issue names, fractional GPUs."""

from __future__ import annotations

import pytest

from chipcost.core.catalog import (
    aws_chip_for,
    aws_families,
    aws_family,
    aws_instance_chip_counts,
    canonical_chips,
    chip_rows,
)


@pytest.mark.parametrize(
    ("instance_type", "chip", "count"),
    [
        ("g4dn.xlarge", "T4", 1.0),
        ("g4dn.metal", "T4", 8.0),
        ("g5g.16xlarge", "T4", 2.0),  # NVIDIA T4G, the T4 on an Arm host
        ("p3.16xlarge", "V100", 8.0),
        ("p3dn.24xlarge", "V100-32GB", 8.0),
        ("dl1.24xlarge", "Gaudi1", 8.0),
        ("dl2q.24xlarge", "Cloud-AI-100", 8.0),
        ("g7.48xlarge", "RTX-PRO-4500", 8.0),
        ("g4ad.16xlarge", "Radeon-Pro-V520", 4.0),
        ("g6f.large", "L4", 0.125),
        ("g6f.2xlarge", "L4", 0.25),
        ("gr6f.4xlarge", "L4", 0.5),
    ],
)
def test_every_aws_accelerator_family_of_the_issue_is_in_the_catalog(instance_type, chip, count):
    match = aws_chip_for(instance_type)
    assert (match.chip, match.chip_count, match.known_type) == (chip, count, True)


def test_a_fractional_gpu_is_a_labelled_share_of_one_chip():
    share = aws_chip_for("g6f.xlarge")
    assert share.share == "1/8" and share.share_label() == {"share": "1/8 of one L4"}
    assert aws_chip_for("g6.xlarge").share_label() == {}


def test_an_unknown_family_stays_unknown_with_the_price_lists_count():
    match = aws_chip_for("g9x.48xlarge", 8)
    assert (match.chip, match.chip_count, match.known_type) == ("unknown", 8.0, False)


def test_the_family_and_type_tables_agree_with_the_chip_table():
    chips = canonical_chips()
    assert set(aws_families().values()) <= chips
    assert {aws_family(t) for t in aws_instance_chip_counts()} == set(aws_families())
    assert all(count > 0 for count in aws_instance_chip_counts().values())
    assert all(row["spec_source"] for row in chip_rows())
