"""AWS's public price list indexes and the spot feed (spot.js), in their real JSON shapes."""

from __future__ import annotations

import json
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from tests.aws_bulk_csv import DISCLAIMER, EC2_PATH, SP_PATH
from tests.aws_price_list import SAMPLE_KEY, SAMPLE_LABEL


def offer_index(published: str, *, sample: bool = False) -> dict[str, Any]:
    """The offer index, trimmed to EC2 and two neighbours."""
    ec2 = {
        "offerCode": "AmazonEC2",
        "versionIndexUrl": f"{EC2_PATH}/index.json",
        "currentVersionUrl": f"{EC2_PATH}/current/index.json",
        "currentRegionIndexUrl": f"{EC2_PATH}/current/region_index.json",
        "savingsPlanVersionIndexUrl": f"{SP_PATH}/current/index.json",
        "currentSavingsPlanIndexUrl": f"{SP_PATH}/current/region_index.json",
    }
    offers = {"AmazonEC2": ec2}
    for code in ("AmazonS3", "AmazonSageMaker"):
        offers[code] = {
            "offerCode": code,
            "versionIndexUrl": f"/offers/v1.0/aws/{code}/index.json",
            "currentVersionUrl": f"/offers/v1.0/aws/{code}/current/index.json",
            "currentRegionIndexUrl": f"/offers/v1.0/aws/{code}/current/region_index.json",
        }
    index = {"formatVersion": "v1.0", "disclaimer": DISCLAIMER, "publicationDate": published}
    return _labelled({**index, "offers": offers}, sample)


def ec2_region_index(version: str, regions: list[str], published: str, **kw: Any) -> dict:
    entries = {
        r: {"regionCode": r, "currentVersionUrl": f"{EC2_PATH}/{version}/{r}/index.json"}
        for r in regions
    }
    index = {"formatVersion": "v1.0", "disclaimer": DISCLAIMER, "publicationDate": published}
    return _labelled({**index, "regions": entries}, kw.get("sample", False))


def sp_region_index(version: str, regions: list[str], published: str, **kw: Any) -> dict:
    entries = [
        {"regionCode": r, "versionUrl": f"{SP_PATH}/{version}/{r}/index.json"} for r in regions
    ]
    index = {"disclaimer": DISCLAIMER, "publicationDate": published, "regions": entries}
    return _labelled(index, kw.get("sample", False))


def version_index(versions: list[tuple[str, str, str]], published: str) -> dict[str, Any]:
    """The EC2 offer's version index: (version, begin, end) in AWS's shape."""
    entries = {
        v: {
            "versionEffectiveBeginDate": begin,
            "versionEffectiveEndDate": end,
            "offerVersionUrl": f"{EC2_PATH}/{v}/index.json",
        }
        for v, begin, end in versions
    }
    return {
        "formatVersion": "v1.0",
        "disclaimer": DISCLAIMER,
        "publicationDate": published,
        "offerCode": "AmazonEC2",
        "currentVersion": versions[-1][0],
        "versions": entries,
    }


def spot_feed(
    regions: dict[str, list[tuple[str, str, str]]],
    *,
    sample: bool = False,
    estimate: str | None = None,
) -> bytes:
    """spot.js: {feed region: [(type group, size, linux USD)]}, mswin alongside; estimate, when
    given, marks every priced size (the sample's, beside the feed's own fields)."""
    config: dict[str, Any] = {
        "rate": "perhr",
        "valueColumns": ["linux", "mswin"],
        "currencies": ["USD"],
        "regions": [],
    }
    for name, sizes in regions.items():
        groups: dict[str, list] = {}
        for group, size, linux in sizes:
            mswin = linux if linux.startswith("N/A") else f"{float(linux) * 1.6:.4f}"
            columns = [
                {"name": "linux", "prices": {"USD": linux}},
                {"name": "mswin", "prices": {"USD": mswin}},
            ]
            entry: dict[str, Any] = {"size": size, "valueColumns": columns}
            if estimate and not linux.startswith("N/A"):
                entry[ESTIMATE_KEY] = estimate
            groups.setdefault(group, []).append(entry)
        types = [{"type": t, "sizes": s} for t, s in groups.items()]
        footnotes = {"*": "notAvailableForCCorCGPU"}
        config["regions"].append({"region": name, "footnotes": footnotes, "instanceTypes": types})
    feed = _labelled({"vers": 0.01, "config": config}, sample)
    return f"callback({json.dumps(feed, separators=(',', ':'))});".encode()


def _labelled(body: dict[str, Any], sample: bool) -> dict[str, Any]:
    return {**body, SAMPLE_KEY: SAMPLE_LABEL} if sample else body
