"""Seeweb's ECS API (SEEWEB_API_TOKEN): Cloud Server GPU plans per region, euros converted."""

from __future__ import annotations

import logging
import re
from collections.abc import Sequence
from typing import Any

from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._fx import ECB_DAILY_URL, EurUsd, eur_usd
from chipcost.extract._kit import host_spec, json_price, listed_rows, missing_key, parse_count
from chipcost.extract.base import FetchContext, Item, Page, Skip, Source, each_row

SOURCE_NAME = "seeweb"
PROVIDER = "seeweb"
PLANS_URL = "https://api.seeweb.it/ecs/v2/plans"
API_KEY_ENV = "SEEWEB_API_TOKEN"  # declared in SOURCE.settings; named in messages
FIELDS = ("name", "gpu", "hourly_price", "available_regions")
# "L40s 48GB", "A100 80GB", "RTX PRO 6000 96GB": a model and its memory per card.
LABEL = re.compile(r"^(?P<model>.+?)\s*(?P<memory>\d+)\s*GB$", re.IGNORECASE)

log = logging.getLogger("chipcost.extract.seeweb")


def fetch(ctx: FetchContext) -> list[Payload]:
    """The plans, then the ECB's euro rates (optional: without them the prices stay euros)."""
    key = ctx.settings.seeweb_api_key
    if not key:
        raise missing_key(API_KEY_ENV, "Seeweb", "its cloud panel (API token)")
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV) as client:
        headers = {"X-APITOKEN": key, "Accept": "application/json"}
        payloads = [_http.get(ctx, client, PLANS_URL, headers=headers, ext="json")]
        ctx.progress("plans")
        payloads += _http.optional(
            ctx,
            client,
            ECB_DAILY_URL,
            ext="xml",
            what="ECB rates",
            lost="Seeweb's euro prices cannot be converted this run",
            log=log,
        )
    return payloads


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per GPU plan and region, per instance-hour, in US dollars; pure."""
    rates = [r for p in payloads if p.url == ECB_DAILY_URL and (r := eur_usd(p))]
    rate = rates[-1] if rates else None
    plans = [p for p in payloads if p.url != ECB_DAILY_URL]
    result = each_row(
        plans, SOURCE_NAME, PROVIDER, rows=rows, offers=lambda plan, page: offers(plan, page, rate)
    )
    if rate is None:
        result.notes.append(
            f"no EUR/USD rate from the ECB ({ECB_DAILY_URL}) in this run: Seeweb's prices are "
            "in euros and are refused until one is archived"
        )
    return result


def rows(page: Page) -> list[Any]:
    """The plans of the listing."""
    return listed_rows(page.payload, PROVIDER, "plans", FIELDS, body=page.json())


def offers(plan: Any, page: Page, rate: EurUsd | None) -> list[Item]:
    """One record per region of a GPU plan Seeweb sells; pure."""
    if not isinstance(plan, dict) or str(plan.get("gpu") or "0").strip() in ("0", ""):
        return [
            Skip("a CPU-only plan", str(plan.get("name") or "") if isinstance(plan, dict) else "")
        ]
    name = str(plan.get("name") or "")
    if plan.get("available") is False:
        # "available" is not capacity: false marks a plan Seeweb no longer sells
        return [Skip("a retired plan (available: false)", name)]
    label = str(plan.get("gpu_label") or "").strip()
    try:
        count = parse_count(plan.get("gpu"))
    except ValueError as exc:
        return [page.reject(f"{name}: {exc}", plan, name)]
    eur, why = json_price(plan.get("hourly_price"), f"{name} hourly_price")
    if eur is None or not label:
        return [page.reject(why or f"{name}: a GPU plan without gpu_label", plan, name)]
    regions = _regions(plan)
    if not regions:
        return [page.reject(f"{name}: the plan lists no region to rent it in", plan, name)]
    chip = _chip(label, page)
    extra: dict[str, Any] = {
        "gpu_label": label,
        "price_eur": eur,
        "price_basis": "per instance-hour",
        **estimate_of(plan),
    }
    if rate is not None:
        extra |= {"eur_usd": rate.rate, "rate_date": rate.day, "rate_payload": rate.ref}
    return [
        page.record(
            region=region,
            instance_type=name,
            chip=chip,
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=rate.usd(eur) if rate else eur,
            currency="USD" if rate else "EUR",
            sku=name,
            extra=extra,
            # The plan's cpu, ram (MB, as GiB here) and disk (GB), as text.
            vcpus=host_spec(plan.get("cpu")),
            ram_gb=host_spec(plan.get("ram"), per=1024),
            disk_gb=host_spec(plan.get("disk")),
        )
        for region in regions
    ]


def _regions(plan: dict[str, Any]) -> list[str]:
    """Where the plan is sold (not whether it has capacity now), each once."""
    regions = plan.get("available_regions")
    found = {
        str(region.get("location") or "").strip()
        for region in (regions if isinstance(regions, list) else [])
        if isinstance(region, dict)
    }
    return sorted(found - {""})


def _chip(label: str, page: Page) -> str:
    """The label as a whole ("L40s 48GB"), else its model with the memory ("H200", 141)."""
    chip = canonical_chip(label)
    if chip != UNKNOWN_CHIP:
        return chip
    found = LABEL.match(label)
    return page.chip(found["model"], float(found["memory"])) if found else page.chip(label)


SOURCE = Source(
    settings={"seeweb_api_key": API_KEY_ENV},
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Seeweb ECS API (needs SEEWEB_API_TOKEN): Cloud Server GPU plans on demand, per "
        "instance and region, euro prices converted at the ECB's daily rate"
    ),
    fetch=fetch,
    parse=parse,
)
