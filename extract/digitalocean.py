"""DigitalOcean's sizes API (DIGITALOCEAN_TOKEN): GPU Droplet sizes priced per hour, per region."""

from __future__ import annotations

from chipcost.core.payload import Payload
from chipcost.extract._do_sizes import (
    PAGE_SIZE,
    SIZES,
    SIZES_PATH,
    SizesApi,
    fetch_sizes,
    size_offers,
    size_rows,
)
from chipcost.extract._fetch import ApiKey
from chipcost.extract.base import Checked, FetchContext, Source

SOURCE_NAME = "digitalocean"
PROVIDER = "digitalocean"
# Every request to DigitalOcean's API needs a token; a read-only one is enough.
SIZES_URL = f"https://api.digitalocean.com{SIZES_PATH}"
API_KEY = ApiKey(
    "digitalocean_api_key", "DIGITALOCEAN_TOKEN", "DigitalOcean", "its control panel (API, Tokens)"
)
API = SizesApi(PROVIDER, SIZES_URL, API_KEY)


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of /v2/sizes, archived as it arrives."""
    return fetch_sizes(ctx, API)


SOURCE = Source(
    formats=(SIZES,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "DigitalOcean sizes API (needs DIGITALOCEAN_TOKEN): GPU Droplet sizes on demand, per "
        "instance and region"
    ),
    fetch=fetch,
    rows=size_rows,
    offers=size_offers,
    title="DigitalOcean",
    checked=Checked(
        asks="every size, all pages",
        against="**mock**: gpuhunt's `/v2/sizes` (looks like a trimmed real answer)",
        rest="searched 2026-11-26, no recording found",
    ),
)
parse = SOURCE.parse
__all__ = ["PAGE_SIZE", "SIZES_URL", "SOURCE", "fetch", "parse"]
