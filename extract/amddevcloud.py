"""AMD Developer Cloud's sizes API (AMD_DEVCLOUD_TOKEN): AMD Instinct GPU Droplets, priced per
hour, per region; the cloud runs on DigitalOcean's platform and answers its sizes API."""

from __future__ import annotations

from chipcost.core.payload import Payload
from chipcost.extract._do_sizes import (
    SIZES,
    SIZES_PATH,
    SizesApi,
    fetch_sizes,
    size_offers,
    size_rows,
)
from chipcost.extract._fetch import ApiKey
from chipcost.extract.base import Checked, FetchContext, Source

SOURCE_NAME = "amddevcloud"
PROVIDER = "amddevcloud"
# The Developer Cloud's own API host (dstack's amddevcloud backend and gpuhunt's "amd" flavor
# of its DigitalOcean provider call it); a token of a DigitalOcean account is not one of it.
SIZES_URL = f"https://api-amd.digitalocean.com{SIZES_PATH}"
API_KEY = ApiKey(
    "amddevcloud_api_key", "AMD_DEVCLOUD_TOKEN", "AMD Developer Cloud", "its console (API, Tokens)"
)
API = SizesApi(PROVIDER, SIZES_URL, API_KEY)


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every page of the Developer Cloud's /v2/sizes, archived as it arrives."""
    return fetch_sizes(ctx, API)


SOURCE = Source(
    formats=(SIZES,),
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "AMD Developer Cloud sizes API (needs AMD_DEVCLOUD_TOKEN): AMD Instinct GPU Droplets "
        "on demand, per instance and region"
    ),
    fetch=fetch,
    rows=size_rows,
    offers=size_offers,
    title="AMD Developer Cloud",
    checked=Checked(
        asks="`GET https://api-amd.digitalocean.com/v2/sizes`, every page",
        against=(
            "DigitalOcean's sizes shape (gpuhunt's mock, as digitalocean); slugs, prices and "
            "region as a public project recorded them with `doctl`"
        ),
        when="2026-07-09",
        rest=(
            "the Developer Cloud's answer reconstructed from DigitalOcean's; searched 2026-11-26, "
            "none found"
        ),
    ),
)
parse = SOURCE.parse
