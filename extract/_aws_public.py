"""What the credential-free AWS sources share: the credentials switch, endpoints, regions, cache."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass
from pathlib import Path

import boto3
from botocore.exceptions import BotoCoreError

from chipcost.core.errors import SourceSkipped
from chipcost.extract._http import HttpClient, http_client
from chipcost.extract.base import FetchContext

# AWS's public price list host; the environment variable points chipcost at a mirror.
PRICE_LIST_URL = "https://pricing.us-east-1.amazonaws.com"
PRICE_LIST_URL_ENV = "CHIPCOST_AWS_PRICE_LIST_URL"
# Which regions to read from the public files (comma-separated codes); unset = every region.
REGIONS_ENV = "CHIPCOST_AWS_REGIONS"
# A plain AWS region code (us-east-1, us-gov-west-1): the region indexes also list Local and
# Wavelength Zones (us-west-2-lax-1), which carry no accelerator instances worth a 100 MB file.
REGION_CODE = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-\d+$")


def credentials_found() -> bool:
    """True when boto3's usual chain finds AWS credentials (then the API sources run)."""
    try:
        return boto3.Session().get_credentials() is not None
    except BotoCoreError:
        # A broken AWS config: the API sources report it; the public files still work.
        return False


def skip_if_credentials(source: str, instead: str) -> None:
    """The public files are the fallback: with credentials, say which source is used instead."""
    if credentials_found():
        raise SourceSkipped(
            f"credentials found: {instead}; {source} reads AWS's public files only when no "
            "AWS credentials are set"
        )


@dataclass
class PublicFiles:
    """Where a credential-free source reads from and keeps its downloads."""

    source: str
    base_url: str
    regions: tuple[str, ...] | None  # None: every region the index lists
    download_dir: Path
    client: HttpClient

    def url(self, path_or_url: str) -> str:
        """AWS's indexes give paths relative to the price list host."""
        if path_or_url.startswith(("http://", "https://")):
            return path_or_url
        return self.base_url.rstrip("/") + "/" + path_or_url.lstrip("/")

    def wants(self, region: str) -> bool:
        if self.regions is not None:
            return region in self.regions
        return bool(REGION_CODE.match(region))


def public_files(
    ctx: FetchContext,
    source: str,
    *,
    regions: tuple[str, ...] | None = None,
    base_url: str | None = None,
) -> PublicFiles:
    """Settings from the arguments, then ctx.options, then the environment, then defaults."""
    options = ctx.options
    chosen = regions or options.get("regions") or _env_regions()
    return PublicFiles(
        source=source,
        base_url=str(
            base_url
            or options.get("base_url")
            or os.environ.get(PRICE_LIST_URL_ENV)
            or PRICE_LIST_URL
        ),
        regions=tuple(chosen) if chosen else None,  # type: ignore[arg-type]
        download_dir=Path(options.get("download_dir") or default_download_dir(ctx)),  # type: ignore[arg-type]
        client=http_client(source, ctx),
    )


def default_download_dir(ctx: FetchContext) -> Path:
    """<data dir>/downloads: beside the archive (<data dir>/archive/<run>/<source>)."""
    return ctx.archive.directory.parents[2] / "downloads"


def _env_regions() -> tuple[str, ...] | None:
    text = os.environ.get(REGIONS_ENV, "")
    regions = tuple(r.strip() for r in text.split(",") if r.strip())
    return regions or None
