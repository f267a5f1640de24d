"""What the credential-free AWS sources share: the credentials switch, endpoints, regions, cache."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path

import boto3
from botocore.exceptions import BotoCoreError

from chipcost.core.errors import SourceSkipped
from chipcost.core.settings import SOURCE_ENV
from chipcost.extract._http import HttpClient, http_client
from chipcost.extract.base import FetchContext

# AWS's public price list host; settings.aws_price_list_url points chipcost at a mirror.
PRICE_LIST_URL = "https://pricing.us-east-1.amazonaws.com"
# Which regions to read from the public files (settings.aws_regions); unset = every region.
REGIONS_ENV = SOURCE_ENV["aws_regions"]
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
    """From the arguments (a backfill's --region), then ctx.settings, then AWS's defaults."""
    settings = ctx.settings
    chosen = regions or settings.aws_regions
    return PublicFiles(
        source=source,
        base_url=base_url or settings.aws_price_list_url or PRICE_LIST_URL,
        regions=tuple(chosen) if chosen else None,
        download_dir=default_download_dir(ctx),
        client=http_client(source, ctx),
    )


def default_download_dir(ctx: FetchContext) -> Path:
    """ctx.download_dir, else <data dir>/downloads beside a local archive (<run>/<source>).

    Downloads are staged on local disk: a .part file is appended to and renamed, which
    object storage cannot do. An archive on object storage without a download_dir stages
    in the system's temporary directory.
    """
    if ctx.download_dir is not None:
        return ctx.download_dir
    if "://" in str(ctx.archive.directory):
        return Path(tempfile.gettempdir()) / "chipcost-downloads"
    return ctx.archive.directory.parents[2] / "downloads"
