"""Naming accelerator types the catalog does not know, from EC2 DescribeInstanceTypes.

The Price List's `gpu` attribute counts accelerators but names none; DescribeInstanceTypes
carries GpuInfo (NVIDIA, AMD, Habana Gaudi), NeuronInfo (Trainium, Inferentia) and
InferenceAcceleratorInfo with name, count and memory (a fractional GPU: count 0 and its
share's memory). Used only when credentials exist; its responses are archived like any payload.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from dataclasses import replace
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP, ChipMatch, canonical_chip
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract._kit import RowUnreadable, json_of, read_row
from chipcost.extract._slices import SliceError, memory_share
from chipcost.extract.base import FetchContext

OPERATION = "DescribeInstanceTypes"
# DescribeInstanceTypes takes at most 100 names per call.
BATCH = 100


def describe_unknown(
    ctx: FetchContext, unknown: dict[str, str], client_for: Any, url: str
) -> list[Payload]:
    """Archive DescribeInstanceTypes for the unknown types, each asked in a region it is sold in.

    Failures here never fail the source: the types stay 'unknown' and the note says so.
    """
    # imported when a source calls AWS: a replay only parses
    from botocore.exceptions import BotoCoreError, ClientError

    by_region: dict[str, list[str]] = {}
    for instance_type, region in sorted(unknown.items()):
        by_region.setdefault(region, []).append(instance_type)
    payloads = []
    for region, types in by_region.items():
        for start in range(0, len(types), BATCH):
            batch = types[start : start + BATCH]
            try:
                response = client_for(region).describe_instance_types(InstanceTypes=batch)
            except (ClientError, BotoCoreError) as exc:
                ctx.progress(
                    f"DescribeInstanceTypes in {region} failed ({exc}); types stay unknown"
                )
                continue
            body = {k: v for k, v in response.items() if k != "ResponseMetadata"}
            payloads.append(
                ctx.archive.write(
                    json.dumps(body, default=str).encode("utf-8"),
                    url.format(region=region),
                    request={"operation": OPERATION, "region": region, "InstanceTypes": batch},
                )
            )
    return payloads


def is_describe(payload: Payload) -> bool:
    return payload.request.get("operation") == OPERATION


def accelerator_names(payloads: Sequence[Payload]) -> dict[str, tuple[str, str, float]]:
    """instance type -> (canonical chip or 'unknown', provider's spelling, count)."""
    names: dict[str, tuple[str, str, float]] = {}
    for payload in payloads:
        try:
            body = json_of(payload.data)
        except (json.JSONDecodeError, UnicodeDecodeError):
            continue
        listed = body.get("InstanceTypes") if isinstance(body, dict) else None
        for info in listed if isinstance(listed, list) else []:
            # One entry of another shape names no chip: its instance type is read from the
            # catalog's table instead (the price list's own rows are refused or kept alone).
            try:
                named = read_row(_accelerator, info) if isinstance(info, dict) else None
            except RowUnreadable:
                continue
            if named and isinstance(info.get("InstanceType"), str):
                names[info["InstanceType"]] = named
    return names


# DescribeInstanceTypes sections that name accelerators, and the list inside each.
SECTIONS = (
    ("GpuInfo", "Gpus"),
    ("NeuronInfo", "NeuronDevices"),
    ("InferenceAcceleratorInfo", "Accelerators"),
)


def _accelerator(info: dict[str, Any]) -> tuple[str, str, float] | None:
    for section, devices in SECTIONS:
        listed = (info.get(section) or {}).get(devices) or []
        if listed and isinstance(listed[0], dict):
            device = listed[0]
            spelling = " ".join(
                str(part)
                for part in (device.get("Manufacturer", ""), device.get("Name", ""))
                if part
            )
            memory_mib = (device.get("MemoryInfo") or {}).get("SizeInMiB")
            memory_gb = memory_mib / 1024 if isinstance(memory_mib, int | float) else None
            count = sum(float(d.get("Count", 0) or 0) for d in listed if isinstance(d, dict))
            chip = canonical_chip(spelling, memory_gb)
            if not count:
                count = _share(chip, memory_gb)
            return chip, spelling, count
    return None


def _share(chip: str, memory_gb: float | None) -> float:
    """A fractional GPU (AWS g6f) reports 0 GPUs and its slice's memory: the share of one chip
    (the slice rule, extract/_slices.py). 0 when the chip or its memory is unknown, so the
    Price List's count stands."""
    if not memory_gb:
        return 0.0
    try:
        return float(memory_share(chip, memory_gb, denominator=16))
    except SliceError:
        return 0.0


def name_unknown(result: ParseResult, names: dict[str, tuple[str, str, float]]) -> None:
    """Give records of unknown chip the chip DescribeInstanceTypes names, with a note."""
    if not names:
        return
    named = set()
    for index, record in enumerate(result.records):
        found = names.get(record.instance_type)
        if record.chip != UNKNOWN_CHIP or not found:
            continue
        chip, spelling, count = found
        if chip == UNKNOWN_CHIP:
            continue
        match = ChipMatch(chip, count or record.chip_count, known_type=False)
        result.records[index] = replace(
            record,
            chip=chip,
            chip_count=match.chip_count,
            extra={
                **record.extra,
                "chip_from": f"DescribeInstanceTypes: {spelling}",
                **match.share_label(),
            },
        )
        named.add((record.instance_type, spelling, chip))
    for instance_type, spelling, chip in sorted(named):
        result.notes.append(
            f"{instance_type} named {chip} from DescribeInstanceTypes ({spelling!r}); "
            "add its family to core/data/aws_families.csv to make it permanent"
        )
