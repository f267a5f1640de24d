"""A chip count has an upper bound: the largest set of chips the catalog knows rented as one
(chipcost.core.catalog.largest_rental). A record of more chips is a misread count, refused
with a reason naming the bound, whichever source made it; the others load."""

from __future__ import annotations

import dataclasses
import json
from functools import cache

import pytest

from chipcost.core.catalog import aws_ultraserver_types, largest_rental
from chipcost.extract import registry, source_providers
from chipcost.extract.fluidstack import SOURCE as FLUIDSTACK
from chipcost.transform.validate import validate_records
from tests.sources import contract, payload

MOST, _ = largest_rental()
TOO_MANY = [MOST + 1, MOST * 4, 1e6, 1e9, 1e300]


def test_the_bound_is_the_largest_rental_in_the_catalog():
    """At least every UltraServer (GB200 NVL72's 72 chips) and the 256-chip TPU slices."""
    assert MOST >= max(u.chip_count for u in aws_ultraserver_types().values()) >= 72
    assert MOST == 256  # v5litepod-256 and v6e-256 (gcp_tpu_slices.csv) as the catalog stands


@cache
def _one_record_of_each_source() -> list:
    found = []
    for name in sorted(registry()):
        spec = contract(name)
        if spec is None or not spec.good:
            continue
        result = registry()[name].parse(spec.good_payloads())
        found.extend(result.records[:1])
    return found


def _with_count(made, count: float):
    """`made` as another offer of `count` chips at its per-chip price (a per-GPU price times
    a misread count: the per-chip price stays plausible, so only the bound can refuse it)."""
    per_chip = made.price_per_hour / made.chip_count
    return dataclasses.replace(
        made,
        instance_type=f"{made.instance_type} x{count:g}",
        chip_count=float(count),
        price_per_hour=per_chip * count,
    )


@pytest.mark.parametrize("count", TOO_MANY)
def test_more_chips_than_any_rental_is_refused_in_every_source(count):
    made = list(_one_record_of_each_source())
    assert len({r.source for r in made}) >= 30
    wrong = [_with_count(r, count) for r in made]
    checked = validate_records([*made, *wrong], source_providers())  # one validation: fast
    assert checked.records == made
    assert sorted(r.source for r in checked.rejects) == sorted(r.source for r in wrong)
    for refused in checked.rejects:
        assert "more chips than any set rented as one (256: " in refused.reason, refused


@pytest.mark.parametrize("count", [MOST, MOST / 2, 1])
def test_up_to_the_largest_rental_loads(count):
    fine = [_with_count(r, count) for r in _one_record_of_each_source()]
    assert validate_records(fine, source_providers()).records == fine


@pytest.mark.parametrize("count", [257, 10**6, 10**9])
def test_a_fluidstack_entry_of_a_billion_gpus_is_refused_and_the_rest_load(count):
    good = contract("fluidstack").good[0]
    body = json.loads(good.payload("fluidstack").data)
    body[0]["gpu_counts"] = [*body[0]["gpu_counts"], count]
    found = payload("fluidstack", good.file, good.url, data=json.dumps(body).encode())
    result = FLUIDSTACK.parse([found])
    checked = validate_records(result.records, source_providers())
    refused = [r for r in checked.rejects if r.row["chip_count"] == count]
    assert refused and all("misread count" in r.reason for r in refused)
    assert len(checked.records) == len(result.records) - len(refused) > 0
    assert max(r.chip_count for r in checked.records) <= MOST
