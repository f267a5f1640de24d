"""DescribeInstanceTypes names what the catalog does not know: GPUs, Neuron and inference chips."""

from __future__ import annotations

import json
from datetime import UTC, datetime

import pytest

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.extract.aws._instance_types import OPERATION, accelerator_names, name_unknown

AT = datetime(2026, 11, 14, 6, 0, tzinfo=UTC)


def described(*types: dict) -> Payload:
    body = json.dumps({"InstanceTypes": list(types)}).encode()
    return Payload(body, "https://ec2", AT, "d.json", "d.json", {"operation": OPERATION})


def device(name: str, maker: str, count: int, mib: int) -> dict:
    return {"Name": name, "Manufacturer": maker, "Count": count, "MemoryInfo": {"SizeInMiB": mib}}


@pytest.mark.parametrize(
    ("info", "expected"),
    [
        ({"GpuInfo": {"Gpus": [device("L4", "NVIDIA", 0, 3072)]}}, ("L4", 0.125)),
        ({"GpuInfo": {"Gpus": [device("Gaudi HL-205", "Habana", 8, 32768)]}}, ("Gaudi1", 8.0)),
        (
            {"InferenceAcceleratorInfo": {"Accelerators": [device("AI100", "Qualcomm", 8, 16384)]}},
            ("Cloud-AI-100", 8.0),
        ),
        (
            {"NeuronInfo": {"NeuronDevices": [device("Trainium2", "AWS", 16, 98304)]}},
            ("Trainium2", 16.0),
        ),
        ({"GpuInfo": {"Gpus": [device("X9", "NVIDIA", 0, 3072)]}}, ("unknown", 0.0)),
    ],
)
def test_every_accelerator_section_is_read(info, expected):
    names = accelerator_names([described({"InstanceType": "zz1.large", **info})])
    chip, _, count = names["zz1.large"]
    assert (chip, count) == expected


def test_a_named_fractional_type_gets_its_share_and_label():
    record = PriceRecord(
        observed_at=AT,
        provider="aws",
        source="aws-pricing-api",
        region="us-east-1",
        instance_type="g9f.large",
        chip="unknown",
        chip_count=1.0,
        pricing_model="on_demand",
        price_per_hour=0.2,
    )
    result = ParseResult(records=[record])
    gpus = {"GpuInfo": {"Gpus": [device("L4", "NVIDIA", 0, 3072)]}}
    name_unknown(result, accelerator_names([described({"InstanceType": "g9f.large", **gpus})]))
    [named] = result.records
    assert (named.chip, named.chip_count, named.extra["share"]) == ("L4", 0.125, "1/8 of one L4")
    assert "add its family to core/data/aws_families.csv" in result.notes[0]
