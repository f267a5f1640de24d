"""One EC2 price list version's files, archived into its backfill run; resumable per region."""

from __future__ import annotations

import json
from dataclasses import dataclass
from datetime import datetime
from typing import Any

from chipcost.archive import read_payloads, run_stamp
from chipcost.core.errors import SourceError
from chipcost.extract._aws_bulk_fetch import region_extract, region_files
from chipcost.extract._aws_bulk_parse import ec2_selection
from chipcost.extract._aws_files import NotPublished, get_json
from chipcost.extract._aws_public import PublicFiles
from chipcost.extract.base import FetchContext


@dataclass(frozen=True)
class Version:
    """One version of the EC2 price list and the dates it was in effect."""

    version: str
    begin: datetime
    end: datetime | None
    path: str  # offerVersionUrl

    @property
    def stamp(self) -> str:
        return run_stamp(self.begin)

    @property
    def region_index_path(self) -> str:
        return self.path.rsplit("/", 1)[0] + "/region_index.json"


def archive_version_files(
    ctx: FetchContext, files: PublicFiles, version: Version, indexes: list[tuple[str, str, bytes]]
) -> str:
    """Archive what the version's run lacks; a note (and nothing archived) when it has no file.

    A version is archived only once it is known to have files for the wanted regions, so a
    run directory always holds price files: replaying it never loads an empty run.
    """
    present = _present(ctx)
    dates = {
        "version": version.version,
        "versionEffectiveBeginDate": version.begin.isoformat(),
        "versionEffectiveEndDate": version.end.isoformat() if version.end else "",
    }
    found = _region_index(ctx, files, version, present)
    if found is None:
        return (
            f"AWS publishes no region index for version {version.version} "
            f"({files.url(version.region_index_path)}): older versions exist only as one "
            "global file of several GB, which chipcost does not read; start --since later"
        )
    data, index = found
    regions = region_files(index, files)
    if not regions:
        wanted = ", ".join(files.regions or ()) or "any AWS region"
        return f"version {version.version} has no file for {wanted}"
    for kind, url, body in indexes:
        if (kind, None) not in present:
            _write(ctx, body, url, version, {"kind": kind, **dates})
    if ("region-index", None) not in present:
        url = files.url(version.region_index_path)
        request = {"kind": "region-index", "regions": sorted(regions), **dates}
        _write(ctx, data, url, version, request)
    for region, url in regions.items():
        if ("ec2", region) in present:
            continue
        region_extract(
            ctx,
            files,
            url,
            ec2_selection(),
            request={"kind": "ec2", "region": region, "version": version.version},
            progress=ctx.progress,
            fetched_at=version.begin,
            cache=False,
        )
    return ""


def _present(ctx: FetchContext) -> set[tuple[str | None, str | None]]:
    """(kind, region) of every payload an earlier attempt archived for this version."""
    return {
        (entry.get("request", {}).get("kind"), entry.get("request", {}).get("region"))
        for entry in ctx.archive.manifest["payloads"]
    }


def _region_index(
    ctx: FetchContext, files: PublicFiles, version: Version, present: set
) -> tuple[bytes, dict[str, Any]] | None:
    if ("region-index", None) in present:
        entry = next(
            e
            for e in ctx.archive.manifest["payloads"]
            if e["request"].get("kind") == "region-index"
        )
        for payload in read_payloads(ctx.archive.directory.parent, ctx.archive.source):
            if payload.name == entry["name"]:
                return payload.data, json.loads(payload.data)
    try:
        data, index = get_json(files.client, files.url(version.region_index_path), files.source)
    except NotPublished:
        return None
    if not isinstance(index, dict):
        raise SourceError(f"{files.source}: the region index of {version.version} is not an object")
    return data, index


def _write(
    ctx: FetchContext, data: bytes, url: str, version: Version, request: dict[str, Any]
) -> None:
    ctx.archive.write(data, url, fetched_at=version.begin, request=request)
