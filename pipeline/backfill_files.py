"""One EC2 price list version's files, archived into its backfill run; resumable per region."""

from __future__ import annotations

import json
import threading
from collections.abc import Callable
from dataclasses import dataclass, field, replace
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from chipcost.archive import MANIFEST, ArchiveWriter, read_manifest, read_payloads, run_stamp
from chipcost.core.errors import ChipcostError, SourceError
from chipcost.core.payload import Payload
from chipcost.core.questions import COMMAND_LINE
from chipcost.core.settings import Settings
from chipcost.extract.aws import bulk as aws_bulk
from chipcost.extract.aws._bulk_fetch import (
    EC2_OFFER,
    OFFER_INDEX_PATH,
    offer_entry,
    region_extract,
    region_files,
)
from chipcost.extract.aws._bulk_parse import ec2_selection
from chipcost.extract.aws._files import NotPublished, get_json
from chipcost.extract.aws._public import PublicFiles, public_files
from chipcost.extract.base import FetchContext
from chipcost.pipeline.refusals import disk_message

SOURCE = aws_bulk.SOURCE
# Where AWS lists every version of the EC2 offer, when the offer index does not say.
VERSION_INDEX_PATH = "/offers/v1.0/aws/AmazonEC2/index.json"


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

    def dates(self) -> dict[str, str]:
        return {
            "version": self.version,
            "versionEffectiveBeginDate": self.begin.isoformat(),
            "versionEffectiveEndDate": self.end.isoformat() if self.end else "",
        }


@dataclass(frozen=True)
class Plan:
    """What a version's run still lacks: region files to fetch, or why it has nothing to load."""

    regions: dict[str, str] = field(default_factory=dict)  # region -> CSV URL, not yet archived
    wanted: tuple[str, ...] = ()  # every region the version is loaded with
    index: bytes = b""  # the region index, archived with the first region file
    note: str = ""  # nothing to load, and why (the version is skipped)
    error: str = ""  # the plan could not be made (the backfill stops here)
    listed: tuple[str, ...] = ()  # every region code the version's index lists


class SharedWriter(ArchiveWriter):
    """A version's archive run written by concurrent region fetches: one manifest, one lock."""

    def __init__(self, root: str | Path, stamp: str, source: str) -> None:
        super().__init__(root, stamp, source)
        self.lock = threading.RLock()
        if (self.directory / MANIFEST).is_file():  # resume an interrupted version
            self.manifest = read_manifest(self.directory)

    def write(self, data: bytes, url: str, **kwargs: Any) -> Payload:
        # Payload names count the manifest's entries: numbering and rewrite go together.
        with self.lock:
            return super().write(data, url, **kwargs)


def plan_version(ctx: FetchContext, files: PublicFiles, version: Version) -> Plan:
    """The version's region files still to archive; a note (and no files) when it has none.

    A version is archived only once it is known to have files for the wanted regions, so a
    run directory always holds price files: replaying it never loads an empty run.
    """
    present = _present(ctx)
    found = _region_index(ctx, files, version, present)
    if found is None:
        return Plan(
            note=f"AWS publishes no region index for version {version.version} "
            f"({files.url(version.region_index_path)}): older versions exist only as one "
            "global file of several GB, which chipcost does not read; start "
            f"{COMMAND_LINE.name('since')} later"
        )
    data, index = found
    regions = region_files(index, files)
    listed = tuple(region_files(index, replace(files, regions=None)))
    if not regions:
        wanted = ", ".join(files.regions or ()) or "any AWS region"
        return Plan(note=f"version {version.version} has no file for {wanted}", listed=listed)
    missing = {r: url for r, url in regions.items() if ("ec2", r) not in present}
    return Plan(missing, tuple(sorted(regions)), data, listed=listed)


def fetch_region(
    ctx: FetchContext,
    files: PublicFiles,
    version: Version,
    plan: Plan,
    region: str,
    indexes: list[tuple[str, str, bytes]],
) -> None:
    """Archive one region's EC2 extract (and, with the version's first file, its indexes)."""
    _write_indexes(ctx, files, version, plan, indexes)
    region_extract(
        ctx,
        files,
        plan.regions[region],
        ec2_selection(),
        request={"kind": "ec2", "region": region, "version": version.version},
        progress=ctx.progress,
        fetched_at=version.begin,
        cache=False,
    )


def _write_indexes(
    ctx: FetchContext,
    files: PublicFiles,
    version: Version,
    plan: Plan,
    indexes: list[tuple[str, str, bytes]],
) -> None:
    with ctx.archive.lock:  # the version's SharedWriter (Fetcher.context)
        present = _present(ctx)
        for kind, url, body in indexes:
            if (kind, None) not in present:
                _write(ctx, body, url, version, {"kind": kind, **version.dates()})
        if ("region-index", None) not in present:
            url = files.url(version.region_index_path)
            request = {"kind": "region-index", "regions": list(plan.wanted), **version.dates()}
            _write(ctx, plan.index, url, version, request)


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


class Fetcher:
    """Fetches versions' files into their archive runs, reusing whatever is already there.

    Its methods run in the pool's threads: each opens its own HTTP client, and a version's
    region fetches share that version's writer (one manifest, written under a lock).
    """

    def __init__(
        self,
        settings: Settings,
        regions: tuple[str, ...] | None,
        message: Callable[[str], None],
        sleep: Callable[[float], None] | None,
    ) -> None:
        self.settings, self.regions, self.message = settings, regions, message
        # The variables aws-bulk declares, read (and checked) once, before any thread starts.
        self.sources = settings.sources.read(SOURCE.settings)
        self.sleep = sleep
        self.indexes: list[tuple[str, str, bytes]] = []  # (kind, url, bytes) fetched once
        self.writers: dict[str, SharedWriter] = {}
        self.guard = threading.Lock()
        self.stop = threading.Event()

    def context(self, stamp: str) -> FetchContext:
        with self.guard:
            writer = self.writers.get(stamp)
            if writer is None:
                writer = SharedWriter(self.settings.archive_root, stamp, SOURCE.name)
                self.writers[stamp] = writer
        return self._context(writer, self.message)

    def _context(
        self, writer: ArchiveWriter, progress: Callable[[str], None] = lambda message: None
    ) -> FetchContext:
        return FetchContext(
            writer,
            progress=progress,
            settings=self.sources,
            sleep=self.sleep,
            download_dir=self.settings.data_dir / "downloads",
            stop=self.stop,
        )

    def version_index(self) -> dict[str, Any]:
        stamp = run_stamp(datetime.now(UTC))  # a writer for the context only: nothing is written
        ctx = self._context(ArchiveWriter(self.settings.archive_root, stamp, SOURCE.name))
        files = public_files(ctx, SOURCE.name)
        with files.client:
            url = files.url(OFFER_INDEX_PATH)
            data, offers = get_json(files.client, url, SOURCE.name)
            self.indexes.append(("offer-index", url, data))
            path = offer_entry(offers, EC2_OFFER, SOURCE.name).get("versionIndexUrl")
            url = files.url(str(path or VERSION_INDEX_PATH))
            data, index = get_json(files.client, url, SOURCE.name)
            self.indexes.append(("version-index", url, data))
        return index

    def plan(self, version: Version) -> Plan:
        """What the version's run still lacks (its region index is read, not yet archived)."""
        ctx = self.context(version.stamp)
        files = public_files(ctx, SOURCE.name, regions=self.regions)
        try:
            with files.client:
                return plan_version(ctx, files, version)
        except ChipcostError as exc:
            return Plan(error=str(exc))

    def fetch(self, version: Version, plan: Plan, region: str) -> str:
        """Archive one region file of the version; what went wrong, or "" when it is in."""
        if self.stop.is_set():
            return "not fetched: the backfill stopped at an earlier version"
        ctx = self.context(version.stamp)
        files = public_files(ctx, SOURCE.name, regions=self.regions)
        try:
            with files.client:
                fetch_region(ctx, files, version, plan, region, self.indexes)
        except ChipcostError as exc:
            return str(exc)
        except OSError as exc:  # a full or read-only disk: the version stops, naming it
            return disk_message(SOURCE.name, exc)
        return ""
