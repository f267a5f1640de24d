"""RunPod GraphQL API (gpuTypes): per-GPU secure, community, spot and commitment prices."""

from __future__ import annotations

from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip
from chipcost.core.errors import ParseError
from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._kit import field_names, require_columns, shape_error
from chipcost.extract.base import FetchContext, Item, Page, Skip, Source

SOURCE_NAME = "runpod"
PROVIDER = "runpod"
# RunPod's public GraphQL endpoint; gpuTypes and its prices answer without an API key.
GRAPHQL_URL = "https://api.runpod.io/graphql"
# Sent as a Bearer token when set (higher rate limits); never archived or printed.
API_KEY_ENV = "RUNPOD_API_KEY"  # declared in SOURCE.settings; named in messages
# Every price field of a GPU type in one query: prices are per GPU-hour and the same in
# every data centre, so no per-datacentre lowestPrice fan-out is needed for list prices.
GPU_TYPES_QUERY = """query GpuTypes {
  gpuTypes {
    id
    displayName
    manufacturer
    memoryInGb
    secureCloud
    communityCloud
    securePrice
    communityPrice
    secureSpotPrice
    communitySpotPrice
    oneWeekPrice
    oneMonthPrice
    threeMonthPrice
    sixMonthPrice
    lowestPrice(input: {gpuCount: 1}) {
      minimumBidPrice
      uninterruptablePrice
      stockStatus
    }
  }
}"""
# price field -> (pricing model, plan, term, the cloud flag that must be true for it).
# Commitments (RunPod "savings plans") are sold on Secure Cloud only.
PRICE_FIELDS = {
    "securePrice": ("on_demand", "secure", "none", "secureCloud"),
    "communityPrice": ("on_demand", "community", "none", "communityCloud"),
    "secureSpotPrice": ("spot", "secure", "none", "secureCloud"),
    "communitySpotPrice": ("spot", "community", "none", "communityCloud"),
    "oneWeekPrice": ("commitment", "secure", "1w", "secureCloud"),
    "oneMonthPrice": ("commitment", "secure", "1mo", "secureCloud"),
    "threeMonthPrice": ("commitment", "secure", "3mo", "secureCloud"),
    "sixMonthPrice": ("commitment", "secure", "6mo", "secureCloud"),
}
# On-demand prices a listed cloud must carry; spot and commitments are optional extras.
REQUIRED_WHEN_LISTED = frozenset({"securePrice", "communityPrice"})
EXPECTED_FIELDS = ("id", "displayName", "memoryInGb", "securePrice", "communityPrice")
REGION = "global"


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """One GraphQL POST, archived as it arrives (the query is kept, the key never)."""
    key = ctx.settings.runpod_api_key
    headers = {"Authorization": f"Bearer {key}"} if key else {}
    http = client or _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV)
    with http:
        payload = _http.get(
            ctx, http, GRAPHQL_URL, method="POST", json={"query": GPU_TYPES_QUERY}, headers=headers
        )
    ctx.progress(f"{SOURCE_NAME}: gpuTypes ({'with' if key else 'without'} {API_KEY_ENV})")
    return [payload]


def rows(page: Page) -> list[Any]:
    """The GPU types of one gpuTypes answer, their fields checked."""
    payload, body = page.payload, page.json()
    if isinstance(body, dict) and body.get("errors"):
        messages = "; ".join(str(e.get("message", e)) for e in body["errors"][:3])
        raise ParseError(
            f"{PROVIDER}: the GraphQL API at {payload.url} ({payload.ref or payload.name}) "
            f"answered errors: {messages}. The schema changed (a field renamed or removed): "
            "update GPU_TYPES_QUERY in extract/runpod.py"
        )
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("gpuTypes"), list):
        raise shape_error(PROVIDER, payload, "data.gpuTypes list", data or body)
    require_columns(field_names(data["gpuTypes"]), EXPECTED_FIELDS, payload, PROVIDER)
    return data["gpuTypes"]


def offers(gpu: Any, page: Page) -> list[Item]:
    """Every priced offer of one GPU type: one record per listed price field; pure."""
    if not isinstance(gpu, dict) or not gpu.get("id"):
        return [page.reject(f"gpuTypes entry {gpu!r:.60} is not a GPU type with an id", gpu)]
    if gpu["id"] == "unknown":
        return [Skip("RunPod's 'unknown' placeholder type, listed with no prices")]
    memory = gpu.get("memoryInGb") if isinstance(gpu.get("memoryInGb"), int | float) else None
    chip = canonical_chip(str(gpu["id"]), memory, SOURCE_NAME)
    if chip == UNKNOWN_CHIP:
        chip = page.chip(str(gpu.get("displayName") or gpu["id"]), memory)
    made: list[Item] = []
    for name, (model, plan, term, flag) in PRICE_FIELDS.items():
        if not gpu.get(flag):
            continue
        price = gpu.get(name)
        if price in (None, 0) and name not in REQUIRED_WHEN_LISTED:
            continue  # this GPU is not sold on spot or on this term
        if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
            reason = f"{name} is {price!r} although {flag} is true: no usable price"
            made.append(page.reject(reason, gpu, str(gpu["id"])))
            continue
        made.append(_offer(gpu, page, chip, float(price), (model, plan, term)))
    if not made:
        made.append(Skip("a GPU type sold on neither Secure nor Community Cloud", str(gpu["id"])))
    return made


def _offer(
    gpu: dict[str, Any], page: Page, chip: str, price: float, offer: tuple[str, str, str]
) -> PriceRecord:
    model, plan, term = offer
    lowest = gpu.get("lowestPrice") if isinstance(gpu.get("lowestPrice"), dict) else {}
    extra = {
        "display_name": gpu.get("displayName"),
        "memory_gb": gpu.get("memoryInGb"),
        "stock_status": lowest.get("stockStatus"),
        "priced": "per GPU-hour",
        **estimate_of(gpu),
    }
    return page.record(
        region=REGION,
        # RunPod rents single GPUs; multi-GPU pods cost the per-GPU price times the count.
        instance_type=f"1x {gpu.get('displayName') or gpu['id']}",
        chip=chip,
        chip_count=1.0,
        pricing_model=model,
        term=term,
        plan=plan,
        price_per_hour=price,
        sku=str(gpu["id"]),
        extra={k: v for k, v in extra.items() if v is not None},
    )


SOURCE = Source(
    settings={"runpod_api_key": API_KEY_ENV},
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "RunPod GraphQL API (gpuTypes): per-GPU on-demand prices on Secure and Community "
        "Cloud, spot prices, and 1-week to 6-month commitment prices"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
)
parse = SOURCE.parse
