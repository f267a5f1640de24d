"""AWS's public price list indexes and the spot feed (spot.js), in their real JSON shapes."""

from __future__ import annotations

import json
from typing import Any

from tests.aws_bulk_csv import DISCLAIMER, EC2_PATH, SP_PATH


def offer_index(published: str) -> dict[str, Any]:
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
    return {**index, "offers": offers}


def ec2_region_index(version: str, regions: list[str], published: str) -> dict:
    entries = {
        r: {"regionCode": r, "currentVersionUrl": f"{EC2_PATH}/{version}/{r}/index.json"}
        for r in regions
    }
    index = {"formatVersion": "v1.0", "disclaimer": DISCLAIMER, "publicationDate": published}
    return {**index, "regions": entries}


def sp_region_index(version: str, regions: list[str], published: str) -> dict:
    entries = [
        {"regionCode": r, "versionUrl": f"{SP_PATH}/{version}/{r}/index.json"} for r in regions
    ]
    return {"disclaimer": DISCLAIMER, "publicationDate": published, "regions": entries}


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


def spot_feed(regions: dict[str, list[tuple[str, str, str]]]) -> bytes:
    """spot.js: {feed region: [(type group, size, linux USD)]}, mswin alongside."""
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
            groups.setdefault(group, []).append(entry)
        types = [{"type": t, "sizes": s} for t, s in groups.items()]
        footnotes = {"*": "notAvailableForCCorCGPU"}
        config["regions"].append({"region": name, "footnotes": footnotes, "instanceTypes": types})
    feed = {"vers": 0.01, "config": config}
    return f"callback({json.dumps(feed, separators=(',', ':'))});".encode()
