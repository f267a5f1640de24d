"""The instance_types table: the catalog's mappings, queryable by SQL, reseeded from the files."""

from __future__ import annotations

from chipcost.core.catalog import aws_instance_chip_counts, aws_ultraserver_types
from chipcost.pipeline.instance_catalog import instance_type_rows
from chipcost.pipeline.seed import seed_reference

# The AWS types the issue found missing from the catalog.
ISSUE_TYPES = {
    "g4dn.xlarge": ("T4", 1.0),
    "g5g.xlarge": ("T4", 1.0),
    "p3dn.24xlarge": ("V100-32GB", 8.0),
    "dl2q.24xlarge": ("Cloud-AI-100", 8.0),
    "g7.2xlarge": ("RTX-PRO-4500", 1.0),
    "g6f.large": ("L4", 0.125),
    "gr6f.4xlarge": ("L4", 0.5),
}


def test_every_aws_accelerator_type_of_the_issue_is_in_the_table(con):
    found = dict(
        (name, (chip, count))
        for name, chip, count in con.execute(
            "SELECT instance_type, chip, chip_count FROM instance_types WHERE provider = 'aws'"
        ).fetchall()
    )
    assert {name: found[name] for name in ISSUE_TYPES} == ISSUE_TYPES
    # and every UltraServer, rented whole: all its instances' chips
    assert set(found) == set(aws_instance_chip_counts()) | set(aws_ultraserver_types())
    assert found["u-trn2x64"] == ("Trainium2", 64.0)


def test_a_share_is_labelled_and_memory_is_the_chips(con):
    share, memory, source = con.execute(
        "SELECT share, memory_gb_per_chip, mapping_source FROM instance_types "
        "WHERE instance_type = 'g6f.large'"
    ).fetchone()
    assert (share, memory) == ("1/8 of one L4", 24.0)
    assert "aws_instance_types.csv" in source and "aws.amazon.com/ec2/instance-types/g6" in source
    assert con.execute(
        "SELECT count(*) FROM instance_types WHERE share IS NOT NULL AND chip_count >= 1"
    ).fetchone() == (0,)


def test_every_provider_with_instance_types_is_listed(con):
    rows = dict(con.execute("SELECT provider, count(*) FROM instance_types GROUP BY 1").fetchall())
    assert set(rows) == {"aws", "gcp", "azure", "oci"}
    tpu = con.execute(
        "SELECT chip, chip_count, memory_gb_per_chip * chip_count FROM instance_types "
        "WHERE instance_type = 'ct6e-standard-8t'"
    ).fetchone()
    assert tpu == ("TPU-v6e", 8.0, 256.0)  # a v6e-8 slice: 8 chips of 32 GB
    assert con.execute(
        "SELECT chip_count FROM instance_types WHERE instance_type = 'tpu-v4'"
    ).fetchone() == (1.0,)  # a TPU without slices listed stays one chip
    assert con.execute(
        "SELECT chip_count FROM instance_types WHERE instance_type = 'a3-highgpu-8g'"
    ).fetchone() == (8.0,)
    assert sum(rows.values()) == len(instance_type_rows())


def test_the_table_is_reference_data_reseeded_on_demand(con):
    con.execute("DELETE FROM instance_types")
    assert not seed_reference(con)  # the files did not change: nothing to do
    assert seed_reference(con, force=True)
    assert con.execute("SELECT count(*) FROM instance_types").fetchone()[0] == len(
        instance_type_rows()
    )
