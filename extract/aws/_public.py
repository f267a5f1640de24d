"""What the credential-free AWS sources share: the credentials switch, endpoints, regions, cache."""

from __future__ import annotations

import re
import tempfile
from dataclasses import dataclass
from pathlib import Path
from urllib.parse import unquote, urlsplit

from chipcost.core.clean import printable
from chipcost.core.errors import SourceError, SourceSkipped
from chipcost.core.settings import STORAGE_ENV
from chipcost.extract._http import HttpClient, http_client
from chipcost.extract.base import FetchContext

# AWS's public price list host; settings.aws_price_list_url points chipcost at a mirror.
PRICE_LIST_URL = "https://pricing.us-east-1.amazonaws.com"
# Which regions to read from the public files (settings.aws_regions); unset = every region.
REGIONS_ENV = "CHIPCOST_AWS_REGIONS"
# What a source reading the public price files declares it reads (Source.settings).
PUBLIC_FILE_SETTINGS = {
    "aws_price_list_url": "CHIPCOST_AWS_PRICE_LIST_URL",
    "aws_regions": REGIONS_ENV,
}
# A plain AWS region code (us-east-1, us-gov-west-1): the region indexes also list Local and
# Wavelength Zones (us-west-2-lax-1), which carry no accelerator instances worth a 100 MB file.
REGION_CODE = re.compile(r"^[a-z]{2}(-gov)?-[a-z]+-[0-9]+\Z")  # \Z: "us-east-1\n" is none
# Where boto3 found credentials (botocore's provider `method`), as a skip message names it.
CREDENTIAL_ORIGINS = {
    "env": "AWS_ACCESS_KEY_ID in the environment",
    "shared-credentials-file": "the AWS credentials file",
    "config-file": "the AWS config file",
    "iam-role": "the instance's IAM role",
    "container-role": "the container's IAM role",
    "assume-role": "a role assumed by the AWS config",
    "assume-role-with-web-identity": "a web identity role",
    "sso": "AWS IAM Identity Center (SSO)",
    "custom-process": "a credential_process of the AWS config",
}


def credentials_origin() -> str:
    """Where boto3's usual chain found AWS credentials, or '' for none (then these run)."""
    import boto3  # here, not at import: a replay or a read command never builds a client
    from botocore.exceptions import BotoCoreError

    try:
        credentials = boto3.Session().get_credentials()
    except BotoCoreError:
        # A broken AWS config: the API sources report it; the public files still work.
        return ""
    if credentials is None:
        return ""
    method = str(getattr(credentials, "method", "") or "")
    return CREDENTIAL_ORIGINS.get(method, method or "boto3's credential chain")


def skip_if_credentials(source: str, instead: str) -> None:
    """The public files are the fallback: with credentials, say which source is used instead,
    and where the credentials came from (a store's keys left in AWS_* look like AWS's)."""
    origin = credentials_origin()
    if origin:
        raise SourceSkipped(
            f"credentials found ({origin}): {instead}; {source} reads AWS's public files only "
            f"when no AWS credentials are set (an S3-compatible store's keys go in "
            f"{STORAGE_ENV['key_id']}/{STORAGE_ENV['secret']}, not AWS_*)"
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
        """AWS's indexes give paths relative to the price list host. A path becomes a file
        under the downloads folder (its URL's path): one that climbs out of it ('..'), or a
        URL on another host than the price list's, is refused naming it."""
        text = str(path_or_url)
        base = urlsplit(self.base_url)
        if text.startswith(("http://", "https://")):
            given = urlsplit(text)
            if (given.scheme, given.netloc) != (base.scheme, base.netloc):
                raise SourceError(
                    f"{self.source}: an index names {_shown(text)}, not on the price list's host "
                    f"{base.netloc}: refused; check the price list URL"
                )
            path, url = given.path, text
        else:
            path = "/" + text.lstrip("/")
            url = self.base_url.rstrip("/") + path
        segments = unquote(path).replace("\\", "/").split("/")
        if any(s in (".", "..") for s in segments) or "\0" in path:
            raise SourceError(
                f"{self.source}: an index names the path {_shown(text)}, which climbs out of "
                "the price list ('..'): refused; check the price list URL"
            )
        return url

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


def _shown(text: str) -> str:
    """A path or URL an index gave, quoted as a message names it: printable, at most 200
    characters."""
    said = printable(text)
    return repr(said if len(said) <= 200 else said[:200] + "...")
