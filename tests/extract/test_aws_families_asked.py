"""Every AWS instance family the catalog prices (core/data/aws_instance_types.csv) is asked
for by the AWS sources' filters: the bulk files' marks by construction, the Price List API's two
instanceFamily values where a payload shows which one AWS files the family under.

No public source maps every family to its instanceFamily: the recorded attribute values
(tests/fixtures/aws-pricing-api/recorded-instance-families.json, copied from AWS's offer files)
cover seven families, the reconstructed fixtures and the sample more. The rest are named in
UNSEEN: for them the API's filter is an assumption only a live run can check, and aws-bulk,
which selects by instance type, still prices them.
"""

from __future__ import annotations

import gzip
import json
from collections import defaultdict
from collections.abc import Iterator
from pathlib import Path
from typing import Any

from chipcost.core.catalog import aws_accelerator_types
from chipcost.extract.aws._bulk_parse import ec2_selection
from chipcost.extract.aws._price_list import INSTANCE_FAMILIES
from chipcost.sample import ARCHIVE
from tests.paths import FIXTURES

PRICING_FIXTURES = FIXTURES / "aws-pricing-api"
RECORDED = PRICING_FIXTURES / "recorded-instance-families.json"
# Catalog families no recorded, reconstructed or sample Price List item shows: older GPUs (p2,
# p3, g3, g4ad), Gaudi and Qualcomm (dl1, dl2q), Graviton GPU (g5g), the fractional and newer
# types (g6f, gr6f, g7, g7e, gr6, p5e, p6-b300, p6e-gb200, trn2u, trn3).
UNSEEN = frozenset(
    {"dl1", "dl2q", "g3", "g3s", "g4ad", "g5g", "g6f", "g7", "g7e", "gr6", "gr6f", "p2", "p3",
     "p3dn", "p5e", "p6-b300", "p6e-gb200", "trn2u", "trn3"}
)  # fmt: skip


def family(instance_type: str) -> str:
    return instance_type.partition(".")[0]


def catalog_families() -> set[str]:
    return {family(name) for name in aws_accelerator_types()}


def _page_attributes(page: Any) -> Iterator[dict[str, Any]]:
    if not isinstance(page, dict):
        return
    for entry in page.get("PriceList") or []:
        try:
            item = json.loads(entry) if isinstance(entry, str) else entry
        except json.JSONDecodeError:
            continue  # the bad-* fixtures hold broken items on purpose
        attributes = item.get("product", {}).get("attributes", {}) if isinstance(item, dict) else {}
        if isinstance(attributes, dict) and "instanceType" in attributes:
            yield attributes


def _pages() -> Iterator[Any]:
    for path in sorted(PRICING_FIXTURES.glob("*.json")):
        try:
            yield json.loads(path.read_text(encoding="utf-8"))
        except json.JSONDecodeError:
            continue
    for path in sorted(Path(ARCHIVE).glob("*/aws-pricing-api/*.json.gz")):
        yield json.loads(gzip.decompress(path.read_bytes()))


def seen() -> dict[str, set[str]]:
    """Family -> the instanceFamily values the payloads file it under."""
    found: dict[str, set[str]] = defaultdict(set)
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))["attributes"]
    for attributes in [*recorded, *(a for page in _pages() for a in _page_attributes(page))]:
        found[family(attributes["instanceType"])].add(attributes["instanceFamily"])
    return found


def test_the_recorded_families_are_filed_under_the_values_the_api_asks_for():
    recorded = json.loads(RECORDED.read_text(encoding="utf-8"))["attributes"]
    assert {family(a["instanceType"]) for a in recorded} == {
        "g4dn", "g5", "g6", "inf2", "p4d", "p5", "trn1"
    }  # fmt: skip
    assert {a["instanceFamily"] for a in recorded} == set(INSTANCE_FAMILIES)


def test_every_catalog_family_a_payload_shows_is_asked_for_by_the_api():
    shown = {name: values for name, values in seen().items() if name in catalog_families()}
    assert shown, "no payload shows a catalog family"
    for name, values in shown.items():
        assert values <= set(INSTANCE_FAMILIES), f"{name} is filed under {values}"


def test_the_families_no_payload_shows_are_named():
    # A family added to the catalog must be seen in a payload or named here, with the risk.
    assert catalog_families() - set(seen()) == UNSEEN


def test_the_bulk_filter_asks_for_every_catalog_family_whatever_its_instance_family():
    selection = ec2_selection()
    for name in sorted(catalog_families()):
        assert f"{name}." in selection.marks, name
        row = {
            "Instance Type": f"{name}.48xlarge",
            "Instance Family": "Media Accelerator Instances",
        }
        assert selection.scope(row), name
    # A type of no catalog family is kept only under an asked instanceFamily.
    assert not selection.scope({"Instance Type": "m5.xlarge", "Instance Family": "General purpose"})
    assert selection.scope({"Instance Type": "g9x.48xlarge", "Instance Family": "GPU instance"})
