"""A mark after a vendor's or product's name ("NVIDIA® H100", "™") is no part of the offer's
name in any HTML source (core/catalog.py without_marks): a page adding one keeps each offer's
name, and its history, whole. Each through the source's own parse of its recorded page, changed
in place; gmicloud and modal are tried in their own tests."""

from __future__ import annotations

import importlib

import pytest

from tests.paths import FIXTURES
from tests.sources import payloads_of

# Each source, its recorded page, a name as it writes it, and a GPU it prices unknown to the
# catalog (its name then is the page's, not the chip's).
PAGES = {
    "civo": ("pricing.html", "x NVIDIA L40S", "x NVIDIA{mark} L40S"),
    "coreweave": ("pricing-2026-08-22.html", ">NVIDIA HGX H100<", ">NVIDIA{mark} HGX H100<"),
    "lambda_cloud": ("pricing-2026-08-22.html", ">NVIDIA GH200<", ">NVIDIA{mark} GH200<"),
    "nebius": ("prices.html", ">NVIDIA HGX H100<", ">NVIDIA{mark} HGX H100{mark}<"),
}


def _parse(name: str, old: str = "", new: str = ""):
    module = importlib.import_module(f"chipcost.extract.{name}")
    url = getattr(module, "PAGE_URL", None) or module.PRICING_URL
    fixture = PAGES[name][0]
    page = (FIXTURES / module.SOURCE.name / fixture).read_text(encoding="utf-8")
    assert old in page
    changed = page.replace(old, new)
    return module.parse([payloads_of(module.SOURCE.name, url)(fixture, data=changed.encode())])


def _offers(result) -> list[tuple]:
    return sorted(
        (r.instance_type, r.pricing_model, r.term, r.chip, r.price_per_hour) for r in result.records
    )


@pytest.mark.parametrize("mark", ["®", "™", "(R)", "(TM)"])
@pytest.mark.parametrize("name", sorted(PAGES))
def test_a_mark_after_a_name_leaves_the_offers_name_as_without_it(name, mark):
    """lambda, civo, coreweave and nebius named the offer 'NVIDIA® HGX H100', '1x NVIDIA® L40S
    Small' (the chip found all the same), so its history split the day the page added one."""
    _, old, new = PAGES[name]
    result = _parse(name, old, new.format(mark=mark))
    assert _offers(result) == _offers(_parse(name))
    assert not [r.instance_type for r in result.records if mark in r.instance_type]


def test_lambdas_gpu_unknown_to_the_catalog_is_named_without_its_mark():
    """A GPU no alias names is the page's name: '1x NVIDIA® GX900' was the offer."""
    result = _parse("lambda_cloud", ">NVIDIA GH200<", ">NVIDIA® GX900<")
    assert "1x GX900" in {r.instance_type for r in result.records}
    assert not [r.instance_type for r in result.records if "®" in r.instance_type]
