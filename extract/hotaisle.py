"""Hot Aisle's API (HOTAISLE_API_KEY, HOTAISLE_TEAM_HANDLE): AMD GPU VMs available to rent."""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Sequence
from typing import Any

from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.record import ParseResult, PriceRecord
from chipcost.core.settings import SOURCE_ENV
from chipcost.extract import _http
from chipcost.extract._offers import (
    ChipNames,
    field_names,
    json_price,
    load_json,
    reject,
    shape_error,
)
from chipcost.extract._plans import missing_key
from chipcost.extract._scrape import parse_count, require_columns
from chipcost.extract.base import FetchContext, Source

SOURCE_NAME = "hotaisle"
PROVIDER = "hotaisle"
API = "https://admin.hotaisle.app/api"
API_KEY_ENV = SOURCE_ENV["hotaisle_api_key"]  # named in messages; read by the settings
TEAM_ENV = SOURCE_ENV["hotaisle_team"]
FIELDS = ("OnDemandPrice", "Specs")
GIB = 1024**3
# Hot Aisle's API names no location for its VMs.
REGION = "global"


def available_url(team: str) -> str:
    return f"{API}/teams/{team}/virtual_machines/available/"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The VMs the team can rent now, archived as they arrive (the key never)."""
    key, team = ctx.settings.hotaisle_api_key, ctx.settings.hotaisle_team
    if not key:
        raise missing_key(API_KEY_ENV, "Hot Aisle", "its admin console (API keys)")
    if not team:
        raise SourceSkipped(
            f"{TEAM_ENV} is not set: Hot Aisle lists VMs per team; set {TEAM_ENV} to your team's "
            "handle (beside HOTAISLE_API_KEY) to collect Hot Aisle prices"
        )
    headers = {"Authorization": f"Token {key}", "Accept": "application/json"}
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY_ENV) as client:
        payload = _http.get(ctx, client, available_url(team), headers=headers, ext="json")
    ctx.progress("available virtual machines")
    return [payload]


def parse(payloads: Sequence[Payload]) -> ParseResult:
    """One record per distinct VM configuration, per instance-hour; pure."""
    result = ParseResult()
    chips = ChipNames(PROVIDER)
    for payload in payloads:
        vms = _vms(payload)
        if not vms:
            result.notes.append("Hot Aisle listed no VM available to rent")
        configurations: dict[str, list[tuple[float, dict]]] = defaultdict(list)
        for vm in vms:
            _add_vm(vm, payload, result, configurations)
        for name, found in sorted(configurations.items()):
            result.records.append(_record(payload, name, found, chips))
    result.notes.extend(chips.notes())
    return result


def _vms(payload: Payload) -> list[Any]:
    body = load_json(payload, PROVIDER)
    if body is None:
        return []  # the API answers null when nothing is available
    if not isinstance(body, list):
        raise shape_error(PROVIDER, payload, "list of virtual machines", body)
    if body:
        require_columns(field_names(body), FIELDS, payload, PROVIDER)
    return body


def _add_vm(vm: Any, payload: Payload, result: ParseResult, configs: dict[str, list]) -> None:
    try:
        name, specs = _configuration(vm)
    except ValueError as exc:
        result.rejects.append(reject(SOURCE_NAME, str(exc), vm, payload))
        return
    cents, why = json_price(vm.get("OnDemandPrice"), f"{name} OnDemandPrice")
    if cents is None:
        result.rejects.append(reject(SOURCE_NAME, why, vm, payload, name))
        return
    configs[name].append((cents / 100, specs))


def _configuration(vm: Any) -> tuple[str, dict[str, Any]]:
    """('1x MI300X 13c 240GB', specs) for one VM, or ValueError why it cannot be read."""
    specs = vm.get("Specs") if isinstance(vm, dict) else None
    gpus = specs.get("gpus") if isinstance(specs, dict) else None
    if not isinstance(gpus, list) or not gpus or not isinstance(gpus[0], dict):
        raise ValueError(f"VM {vm!r:.80} has no Specs.gpus")
    model = str(gpus[0].get("model") or "").strip()
    if not model:
        raise ValueError("Specs.gpus[0] has no model")
    count = parse_count(gpus[0].get("count"))
    cores, ram = specs.get("cpu_cores"), specs.get("ram_capacity")
    ram_gb = f" {ram / GIB:g}GB" if isinstance(ram, int | float) and ram > 0 else ""
    cpu = f" {cores}c" if isinstance(cores, int) else ""
    return f"{count}x {model}{cpu}{ram_gb}", specs


def _record(
    payload: Payload, name: str, found: list[tuple[float, dict]], chips: ChipNames
) -> PriceRecord:
    prices = sorted(price for price, _ in found)
    specs = found[0][1]
    gpu = specs["gpus"][0]
    cpus = specs.get("cpus") if isinstance(specs.get("cpus"), dict) else {}
    extra = {
        "price_basis": "per instance-hour (OnDemandPrice / 100)",
        "vms_available": len(found),
        "max_price": prices[-1] if prices[-1] != prices[0] else None,
        "cpu_model": cpus.get("model"),
        "disk_gb": round(specs["disk_capacity"] / GIB) if isinstance(
            specs.get("disk_capacity"), int | float) else None,
    }  # fmt: skip
    return PriceRecord(
        observed_at=payload.fetched_at,
        provider=PROVIDER,
        source=SOURCE_NAME,
        region=REGION,
        instance_type=name,
        chip=chips.chip(str(gpu["model"])),
        chip_count=float(parse_count(gpu.get("count"))),
        pricing_model="on_demand",
        # Identical VMs listed more than once: the cheapest is the price one can rent at.
        price_per_hour=prices[0],
        sku=name,
        source_url=payload.url,
        payload_ref=payload.ref,
        extra={k: v for k, v in extra.items() if v is not None},
    )


SOURCE = Source(
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Hot Aisle API (needs HOTAISLE_API_KEY and HOTAISLE_TEAM_HANDLE): AMD Instinct VMs "
        "available to rent, on demand per instance"
    ),
    fetch=fetch,
    parse=parse,
)
