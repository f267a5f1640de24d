"""Scaleway's Instance products (public): hourly prices of its GPU instance types per zone, in
euros as Scaleway states them (every read converts them at the ECB's rate of the price's day)."""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any
from urllib.parse import urlsplit

from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult
from chipcost.extract import _http
from chipcost.extract._formats import Format, Rows
from chipcost.extract._fx import ECB_DAILY
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    field_names,
    json_price,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract._rates import with_archived_rates
from chipcost.extract.base import Checked, FetchContext, Item, Page, Skip, Source, each_row

SOURCE_NAME = "scaleway"
PROVIDER = "scaleway"
# Every instance type of a zone with its hourly price in euros, public and without a key.
PRODUCTS_URL = "https://api.scaleway.com/instance/v1/zones/{zone}/products/servers"
# The zones with GPU instance types (Paris 1 and 2, Amsterdam 1, Warsaw 2); a zone selling none
# answers with CPU types only.
ZONES = ("fr-par-1", "fr-par-2", "nl-ams-1", "pl-waw-2")
PER_PAGE = 100  # the API's largest page
GIB = 1024**3

FORMAT = Format(
    "instance server products v1",
    "/products/servers",
    (
        Rows(
            "servers.*",
            {
                "alt_names": "array",
                "arch": "string",
                "ncpus": "integer",
                "ram": "integer",
                "gpu": "integer",
                "gpu_info": "object|null",
                "mig_profile": "null",
                "volumes_constraint": "object",
                "per_volume_constraint": "object",
                "scratch_storage_max_size": "integer",
                "scratch_storage_max_volumes_count": "integer",
                "monthly_price": "number",
                "hourly_price": "number",
                "capabilities": "object",
                "network": "object",
                "block_bandwidth": "integer",
                "end_of_service": "boolean",
            },
            required=("hourly_price", "gpu", "ncpus"),
        ),
    ),
)
FIELDS = FORMAT.required("servers.*")


def fetch(ctx: FetchContext) -> list[Payload]:
    """Every zone's products, page by page, archived as each arrives."""
    payloads: list[Payload] = []
    with _http.http_client(PROVIDER, ctx) as client:
        for zone in ZONES:
            page = 1
            while True:
                url = f"{PRODUCTS_URL.format(zone=zone)}?page={page}&per_page={PER_PAGE}"
                payload = _http.get(ctx, client, url, ext="json")
                payloads.append(payload)
                ctx.progress(f"{zone} products, page {page}")
                if len(_servers(payload)) < PER_PAGE:
                    break
                page += 1
    return payloads


def _servers(payload: Payload) -> dict[str, Any]:
    """The page's instance types, or {} when it is not the answer expected (parse says why)."""
    try:
        body = json.loads(payload.data)
    except (ValueError, RecursionError):  # parse refuses the page, naming why
        return {}
    servers = body.get("servers") if isinstance(body, dict) else None
    return servers if isinstance(servers, dict) else {}


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One on-demand record per GPU instance type and zone, per instance-hour, in euros; and
    the rates of the ECB daily file an earlier version archived after the pages, as fx_rates
    rows (extract/_rates.py); pure."""
    return with_archived_rates(payloads, SOURCE_NAME, _listing)


def _listing(payloads: list[Payload]) -> ParseResult:
    return each_row(payloads, SOURCE_NAME, PROVIDER, rows=rows, offers=offers)


def rows(page: Page) -> list[Any]:
    """The page's instance types ({"type": name, "zone": zone, **spec}), their fields checked:
    the answer keys them by commercial type; the zone is the request's."""
    body = page.json()
    servers = body.get("servers") if isinstance(body, dict) else None
    if not isinstance(servers, dict):
        raise shape_error(PROVIDER, page.payload, "servers object", body)
    if servers:
        require_columns(field_names(servers.values()), FIELDS, page.payload, PROVIDER)
    zone = urlsplit(page.payload.url).path.split("/zones/")[-1].split("/")[0]
    return [{"type": name, "zone": zone, "spec": spec} for name, spec in servers.items()]


def offers(row: Any, page: Page) -> list[Item]:
    """The hourly price of one GPU instance type in one zone; CPU types are counted, not loaded."""
    name, zone, spec = str(row["type"]), row["zone"], row["spec"]
    if not isinstance(spec, dict) or spec.get("gpu") in (0, None):
        return [Skip("a CPU-only instance type", name)]
    if spec.get("end_of_service") is True:
        return [Skip("an instance type at its end of service", name)]
    info = spec.get("gpu_info")
    gpu = str(info.get("gpu_name") or "").strip() if isinstance(info, dict) else ""
    try:
        count = parse_count(spec.get("gpu"))
        if not gpu:
            raise ValueError("no gpu_info.gpu_name")
    except ValueError as exc:
        return [page.reject(f"{name} {zone}: {exc}", spec, name)]
    eur, why = json_price(spec.get("hourly_price"), f"{name} {zone} hourly_price")
    if eur is None:
        return [page.reject(why, spec, name)]
    memory = host_spec(info.get("gpu_memory"), per=GIB)
    monthly = spec.get("monthly_price")
    extra: dict[str, Any] = {
        "gpu_name": gpu,
        "price_basis": "per instance-hour",
    }
    if isinstance(monthly, int | float) and not isinstance(monthly, bool) and monthly > 0:
        extra["monthly_price"] = f"{monthly} EUR a month"
    return [
        page.record(
            region=zone,
            instance_type=name,
            chip=page.chip(gpu, memory),
            chip_count=float(count),
            pricing_model="on_demand",
            price_per_hour=eur,
            currency="EUR",
            sku=name,
            extra=extra,
            vcpus=host_spec(spec.get("ncpus")),
            ram_gb=host_spec(spec.get("ram"), per=GIB),
        )
    ]


SOURCE = Source(
    formats=(FORMAT, ECB_DAILY),
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Scaleway Instance products (public): hourly on-demand prices of its GPU instance "
        "types per zone, in euros (reads convert them at the ECB's rate of each day)"
    ),
    fetch=fetch,
    parse=parse,
    title="Scaleway",
    checked=Checked(
        asks="`GET /instance/v1/zones/{zone}/products/servers` for four zones, every page (euros)",
        against=(
            "**recorded**: eight instance types of a public project's capture of this endpoint "
            '("Real answers ... captured 2026-10-01")'
        ),
        when="2026-10-01",
        rest="the zone of each type, the envelope",
    ),
)
