"""The instance_types reference rows: every instance type or shape the catalog maps to a chip."""

from __future__ import annotations

from typing import Any

from chipcost.core.catalog import (
    ChipMatch,
    aws_family_rows,
    aws_instance_chip_counts,
    aws_ultraserver_types,
    chip_rows,
)
from chipcost.extract import azure, gcp, oci

DATA = "core/data"


def instance_type_rows() -> list[dict[str, Any]]:
    """One row per (provider, instance type): chip, chips or share, memory, mapping source."""
    memory = {row["chip"]: float(row["memory_gb"]) for row in chip_rows() if row["memory_gb"]}
    rows = [*_aws(), *_gcp(), *_azure(), *_oci()]
    for row in rows:
        row["memory_gb_per_chip"] = memory.get(row["chip"])
        row["share"] = ChipMatch(row["chip"], row["chip_count"], True).share_label().get("share")
    return rows


def _aws() -> list[dict[str, Any]]:
    families = {row["family"]: row for row in aws_family_rows()}
    rows = []
    for instance_type, count in aws_instance_chip_counts().items():
        family = families[instance_type.split(".", 1)[0]]
        source = f"{DATA}/aws_instance_types.csv and aws_families.csv; {family['source']}"
        rows.append(_row("aws", instance_type, family["chip"], count, family["family"], source))
    source = f"{DATA}/aws_ultraserver_types.csv; AWS Neuron and Amazon EKS documentation"
    for server in aws_ultraserver_types().values():
        family = server.instance_type.split(".", 1)[0]  # rented whole: all its instances' chips
        rows.append(_row("aws", server.name, server.chip, server.chip_count, family, source))
    return rows


def _gcp() -> list[dict[str, Any]]:
    source = f"{DATA}/gcp_machine_types.csv; Google Cloud accelerator-optimized machine family"
    rows = [
        _row("gcp", m.name, m.chip, m.chip_count, m.family, source) for m in gcp.machine_types()
    ]
    tpu_source = (
        f"{DATA}/gcp_tpus.csv and gcp_tpu_slices.csv; Google Cloud TPU pricing (per chip-hour)"
    )
    rows += [
        _row("gcp", name, chip, chips, accelerator, tpu_source)
        for name, (chip, accelerator, chips) in sorted(gcp.tpu_types().items())
    ]
    return rows


def _azure() -> list[dict[str, Any]]:
    source = (
        f"{DATA}/azure_series.csv (the sizes each series page documents, mapped by the rule of "
        "extract/_azure_sizes.py); Microsoft Learn, Sizes for virtual machines in Azure"
    )
    return [
        _row("azure", size, m.chip, float(m.count), m.series, source)
        for size, m in sorted(azure.documented_sizes().items())
    ]


def _oci() -> list[dict[str, Any]]:
    rows = []
    for part, shapes in sorted(oci.shape_table().items()):
        source = f"{DATA}/oci_gpu_shapes.csv (price-list part {part}); OCI Compute Shapes"
        rows += [_row("oci", shape, chip, gpus, "", source) for shape, chip, gpus in shapes]
    return rows


def _row(provider: str, name: str, chip: str, count: float, family: str, source: str) -> dict:
    return {
        "provider": provider,
        "instance_type": name,
        "chip": chip,
        "chip_count": float(count),
        "family": family,
        "mapping_source": source,
    }
