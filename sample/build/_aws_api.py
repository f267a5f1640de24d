"""What the AWS API samples share (savings plans, spot, Capacity Blocks): types, zones, labels."""

from __future__ import annotations

import hashlib
import json
from typing import Any

from chipcost.sample.build._aws_price_list import SAMPLE_KEY, SAMPLE_LABEL

# Where each sample type is sold: a subset of the Price List sample's regions.
TYPES_REGIONS = {
    "p4d.24xlarge": ("us-east-1", "us-west-2"),
    "p5.48xlarge": ("us-east-1", "us-east-2", "us-west-2", "ap-northeast-1"),
    "p5en.48xlarge": ("us-east-1", "us-east-2"),
    "g6e.xlarge": ("us-east-1", "us-west-2"),
    "g6e.48xlarge": ("us-east-1", "us-west-2"),
    "trn1.32xlarge": ("us-east-1", "us-east-2"),
    "trn2.48xlarge": ("us-east-2", "us-west-2"),
    "inf2.48xlarge": ("us-east-1", "us-west-2"),
}
ZONES = {
    "us-east-1": ("us-east-1a", "us-east-1b", "us-east-1c", "us-east-1d", "us-east-1f"),
    "us-east-2": ("us-east-2a", "us-east-2b", "us-east-2c"),
    "us-west-2": ("us-west-2a", "us-west-2b", "us-west-2c", "us-west-2d"),
    "ap-northeast-1": ("ap-northeast-1a", "ap-northeast-1c", "ap-northeast-1d"),
}


def unit(*parts: object) -> float:
    """A stable number in [0, 1) derived from its parts: the sample's only randomness."""
    digest = hashlib.sha256("|".join(map(str, parts)).encode()).digest()
    return int.from_bytes(digest[:6], "big") / 2**48


def token(*parts: object) -> str:
    """A stable page token in the API's alphabet."""
    return "AAEAA" + hashlib.sha256("|".join(map(str, parts)).encode()).hexdigest()[:40]


def labelled(body: dict[str, Any]) -> dict[str, Any]:
    return {**body, SAMPLE_KEY: SAMPLE_LABEL}


def response_bytes(body: dict[str, Any]) -> bytes:
    """A response body as the API sources archive it."""
    return json.dumps(body).encode("utf-8")
