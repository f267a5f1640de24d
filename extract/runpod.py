"""RunPod: per-GPU on-demand prices from its REST API v2 catalog (with RUNPOD_API_KEY), spot and
commitment prices from its GraphQL API (gpuTypes) while that answers; no key: GraphQL alone."""

from __future__ import annotations

from dataclasses import dataclass, field
from functools import partial
from typing import Any
from urllib.parse import urlsplit

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip
from chipcost.core.errors import ParseError, SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord, Reject
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._kit import field_names, missing_fields, require_columns, shape_error
from chipcost.extract._slices import SliceError, memory_share, mig_profile, share_of
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source, each_row

SOURCE_NAME = "runpod"
PROVIDER = "runpod"
# RunPod's REST API v2 catalog: every GPU type with its list price per GPU-hour on Secure and
# Community Cloud. Every v2 call needs an API key (OpenAPI `bearerAuth`); it has no spot or
# commitment price (docs.runpod.io/api-reference-v2/catalog/list-gpu-types).
REST_PATH = "/v2/catalog/gpus"
REST_URL = f"https://api.runpod.io{REST_PATH}"
# RunPod's GraphQL endpoint: gpuTypes and its prices answer without an API key. RunPod retires
# it in early 2027 (it will answer 410 Gone); until then it is read for what v2 lacks.
GRAPHQL_URL = "https://api.runpod.io/graphql"
RETIRING = (
    "RunPod's GraphQL API (spot and 1-week to 6-month commitment prices; every price when "
    "RUNPOD_API_KEY is not set) is retired in early 2027, when it answers 410 Gone (RunPod "
    "release notes, 2026-08-18); with RUNPOD_API_KEY its on-demand prices come from REST API v2"
)
# Sent as a Bearer token when set (higher rate limits); never archived or printed.
API_KEY = _fetch.ApiKey("runpod_api_key", "RUNPOD_API_KEY")
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
_PRICE = "number|null"
GRAPHQL = Format(
    "GraphQL gpuTypes",
    "/graphql",
    (
        Rows(
            "data.gpuTypes[]",
            {
                "id": "string",
                "displayName": "string",
                "manufacturer": "string",
                "memoryInGb": "integer",
                "secureCloud": "boolean",
                "communityCloud": "boolean",
                **dict.fromkeys(PRICE_FIELDS, _PRICE),
                "lowestPrice": "object|null",
            },
            required=("id", "displayName", "memoryInGb", "securePrice", "communityPrice"),
            prices=(
                "securePrice",
                "communityPrice",
                "secureSpotPrice",
                "communitySpotPrice",
                "oneWeekPrice",
                "oneMonthPrice",
                "threeMonthPrice",
                "sixMonthPrice",
                "lowestPrice",
            ),
        ),
    ),
)
REGION = "global"
# The flags that say on which cloud each price is sold: without one, a price would be read as
# unsold (or sold) on that cloud, so a GPU type lacking either is refused naming it.
CLOUD_FLAGS = ("secureCloud", "communityCloud")


@dataclass(frozen=True)
class Chip:
    """The chip one of RunPod's GPUs is, and the share of it (a MIG slice's) marked."""

    chip: str
    count: float = 1.0
    mark: dict[str, str] = field(default_factory=dict)


# REST v2 `price` keys -> the plan of the record; a cloud's flag (`secure`, `community`) says
# whether it is sold there (an unsold cloud's price is 0).
REST_CLOUDS = ("secure", "community")
REST = Format(
    "REST v2 catalog",
    REST_PATH,
    (
        Rows(
            "gpus[]",
            {
                "id": "string",
                "name": "string",
                "pool": "string|null",
                "manufacturer": "string",
                "memory": "integer",
                "secure": "boolean",
                "community": "boolean",
                "price": "object",
                "maxCount": "object",
                # Carried by the documented example, not by every answer.
                "availability": "string",
                "dataCenters": "array",
            },
            required=("id", "name", "memory", "secure", "community", "price"),
            optional=("availability", "dataCenters"),
            prices=("price",),
        ),
    ),
)
ON_DEMAND = frozenset(
    name for name, (model, *_rest) in PRICE_FIELDS.items() if model == "on_demand"
)


def fetch(ctx: FetchContext, client: _http.HttpClient | None = None) -> list[Payload]:
    """With a key: the REST v2 catalog, then the GraphQL answer for spot and commitments (none
    once it answers 410 Gone, and the progress says so); without: the GraphQL answer alone.
    Each archived as it arrives (the query is kept, the key never)."""
    key = API_KEY.of(ctx)
    headers = API_KEY.headers(key)
    http = client or _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env)
    with http:
        catalog = [_http.get(ctx, http, REST_URL, headers=headers, ext="json")] if key else []
        try:
            answer = _http.get(
                ctx,
                http,
                GRAPHQL_URL,
                method="POST",
                json={"query": GPU_TYPES_QUERY},
                headers=headers,
            )
        except _http.Gone as exc:
            if not catalog:
                raise SourceSkipped(
                    f"{exc}. Its successor, REST API v2, needs a key: set {API_KEY.env} to "
                    "collect RunPod's on-demand prices"
                ) from None
            ctx.progress(f"{SOURCE_NAME}: GraphQL answered 410 Gone: REST v2 on-demand prices only")
            return catalog
    ctx.progress(f"{SOURCE_NAME}: {'REST v2 catalog and ' if key else ''}GraphQL gpuTypes")
    return [*catalog, answer]


def parse(payloads: list[Payload]) -> ParseResult:
    """Records of the archived answers; pure. Where the run holds a REST v2 catalog, its
    on-demand prices are the ones read, and GraphQL gives the spot and commitment prices."""
    pages = list(payloads)
    rest = any(_is_rest(p) for p in pages)
    result = each_row(pages, SOURCE_NAME, PROVIDER, rows=rows, offers=partial(offers, rest=rest))
    if rest and all(_is_rest(p) for p in pages):
        result.notes.append(
            "no GraphQL answer in this run (RunPod's GraphQL API answers 410 Gone once "
            "retired): on-demand prices only, from REST API v2; no spot or commitment price"
        )
    return result


def _is_rest(payload: Payload) -> bool:
    """Whether an archived answer is the REST v2 catalog's (by its path), not GraphQL's."""
    return urlsplit(payload.url).path.endswith(REST_PATH)


def rows(page: Page) -> list[Any]:
    """The GPU types of one answer (REST v2 `gpus` or GraphQL `gpuTypes`), their fields checked."""
    payload, body = page.payload, page.json()
    if _is_rest(payload):
        gpus = body.get("gpus") if isinstance(body, dict) else None
        if not isinstance(gpus, list):
            raise shape_error(PROVIDER, payload, "gpus list", body)
        require_columns(field_names(gpus), REST.required("gpus[]"), payload, PROVIDER)
        return gpus
    if isinstance(body, dict) and body.get("errors"):
        messages = "; ".join(str(e.get("message", e)) for e in body["errors"][:3])
        raise ParseError(
            f"{PROVIDER}: the GraphQL API at {payload.url} ({payload.ref or payload.name}) "
            f"answered errors: {messages}. The schema changed (a field renamed or removed): "
            "update GPU_TYPES_QUERY in extract/runpod.py"
        )
    data = body.get("data") if isinstance(body, dict) else None
    if not isinstance(data, dict) or not isinstance(data.get("gpuTypes"), list):
        raise shape_error(
            PROVIDER, payload, "gpus list (REST v2) or data.gpuTypes list", data or body
        )
    needed = GRAPHQL.required("data.gpuTypes[]")
    require_columns(field_names(data["gpuTypes"]), needed, payload, PROVIDER)
    return data["gpuTypes"]


def offers(gpu: Any, page: Page, *, rest: bool = False) -> list[Item]:
    """Every priced offer of one GPU type; pure. `rest`: the run holds a REST v2 catalog, whose
    on-demand prices stand, so a GraphQL entry gives only its spot and commitment prices."""
    if _is_rest(page.payload):
        return rest_offers(gpu, page)
    if not isinstance(gpu, dict) or not gpu.get("id"):
        return [page.reject(f"gpuTypes entry {gpu!r:.60} is not a GPU type with an id", gpu)]
    if gpu["id"] == "unknown":
        return [Skip("RunPod's 'unknown' placeholder type, listed with no prices")]
    missing = missing_fields(gpu, CLOUD_FLAGS)
    if missing:
        return [page.reject(missing, gpu, str(gpu["id"]))]
    chip = _chip(
        page, str(gpu["id"]), str(gpu.get("displayName") or gpu["id"]), gpu.get("memoryInGb")
    )
    if isinstance(chip, Reject):
        return [chip]
    made: list[Item] = []
    for name, (model, plan, term, flag) in PRICE_FIELDS.items():
        if not gpu.get(flag) or (rest and name in ON_DEMAND):
            continue
        price = gpu.get(name)
        if price in (None, 0) and name not in REQUIRED_WHEN_LISTED:
            continue  # this GPU is not sold on spot or on this term
        if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
            reason = f"{name} is {price!r} although {flag} is true: no usable price"
            made.append(page.reject(reason, gpu, str(gpu["id"])))
            continue
        made.append(_offer(gpu, page, chip, float(price), (model, plan, term)))
    if not made and rest:
        made.append(Skip("no spot or commitment price (its on-demand prices are REST v2's)"))
    elif not made:
        made.append(Skip("a GPU type sold on neither Secure nor Community Cloud", str(gpu["id"])))
    return made


def rest_offers(gpu: Any, page: Page) -> list[Item]:
    """A REST v2 catalog entry: its list price on each cloud that sells it; pure."""
    if not isinstance(gpu, dict) or not gpu.get("id"):
        return [page.reject(f"gpus entry {gpu!r:.60} is not a GPU type with an id", gpu)]
    missing = missing_fields(gpu, REST_CLOUDS)
    if missing:
        return [page.reject(missing, gpu, str(gpu["id"]))]
    prices = gpu.get("price") if isinstance(gpu.get("price"), dict) else {}
    chip = _chip(page, str(gpu["id"]), str(gpu.get("name") or gpu["id"]), gpu.get("memory"))
    if isinstance(chip, Reject):
        return [chip]
    made: list[Item] = []
    for cloud in REST_CLOUDS:
        if gpu.get(cloud) is not True:
            continue
        price = prices.get(cloud)
        if isinstance(price, bool) or not isinstance(price, int | float) or price <= 0:
            reason = f"price.{cloud} is {price!r} although {cloud} is true: no usable price"
            made.append(page.reject(reason, gpu, str(gpu["id"])))
            continue
        shown = {"displayName": gpu.get("name"), "memoryInGb": gpu.get("memory")}
        count = gpu.get("maxCount") if isinstance(gpu.get("maxCount"), dict) else {}
        record = _offer({**gpu, **shown}, page, chip, float(price), ("on_demand", cloud, "none"))
        if isinstance(count.get(cloud), int):
            record.extra["max_gpus_per_pod"] = count[cloud]
        made.append(record)
    return made or [Skip("a GPU type sold on neither Secure nor Community Cloud", str(gpu["id"]))]


def _chip(page: Page, gpu_id: str, display: str, memory: Any) -> Chip | Reject:
    """The canonical chip of RunPod's GPU id, else of its display name (named in the notes),
    and the share of it one GPU of the type is: 1, or a MIG slice's (the slice rule,
    extract/_slices.py: 'MIG 1g.24gb' of a 96 GB card is 1/4 of it)."""
    gb = memory if isinstance(memory, int | float) and not isinstance(memory, bool) else None
    mig = mig_profile(gpu_id) or mig_profile(display)
    if mig is not None:
        card, gb = mig
        chip = canonical_chip(card, None, SOURCE_NAME)
        try:
            count, mark = share_of(chip, memory_share(chip, gb))
        except SliceError as exc:
            return page.reject(f"{display}: a MIG slice, {exc}", {"id": gpu_id}, gpu_id)
        return Chip(chip, count, mark)
    chip = canonical_chip(gpu_id, gb, SOURCE_NAME)
    return Chip(page.chip(display, gb) if chip == UNKNOWN_CHIP else chip)


def _offer(
    gpu: dict[str, Any], page: Page, chip: Chip, price: float, offer: tuple[str, str, str]
) -> PriceRecord:
    model, plan, term = offer
    lowest = gpu.get("lowestPrice") if isinstance(gpu.get("lowestPrice"), dict) else {}
    extra = {
        "display_name": gpu.get("displayName"),
        "memory_gb": gpu.get("memoryInGb"),
        "stock_status": lowest.get("stockStatus"),
        "priced": "per GPU-hour",
        **estimate_of(gpu),
        **chip.mark,
    }
    return page.record(
        region=REGION,
        # RunPod rents single GPUs; multi-GPU pods cost the per-GPU price times the count.
        instance_type=f"1x {gpu.get('displayName') or gpu['id']}",
        chip=chip.chip,
        chip_count=chip.count,
        pricing_model=model,
        term=term,
        plan=plan,
        price_per_hour=price,
        sku=str(gpu["id"]),
        extra={k: v for k, v in extra.items() if v is not None},
    )


SOURCE = Source(
    settings=API_KEY.settings,
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "RunPod REST API v2 catalog (with RUNPOD_API_KEY): per-GPU on-demand prices on Secure "
        "and Community Cloud; its GraphQL API (gpuTypes): spot and 1-week to 6-month commitment "
        "prices, and every price without a key"
    ),
    fetch=fetch,
    parse=parse,
    retiring=RETIRING,
    formats=(REST, GRAPHQL),
    title="RunPod",
    checked=Checked(
        asks=(
            "with `RUNPOD_API_KEY`: REST API v2 `GET /v2/catalog/gpus` (on demand), then GraphQL "
            "`gpuTypes` (spot, commitments); without: GraphQL alone. GraphQL is retired in early "
            "2027"
        ),
        against=(
            "**documented example**: the v2 OpenAPI schema's `listGpuTypes` response (runpod/docs "
            "@ a900806); GraphQL from documentation and other projects' parsers; **recorded** GPU "
            "names of a narrower query's answer (gpu-index, 2026-08-22)"
        ),
        when="schema 2026-08-20",
        rest="the other catalog entries and every GraphQL answer",
    ),
)
