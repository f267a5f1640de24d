"""Hot Aisle's API (HOTAISLE_API_KEY, HOTAISLE_TEAM_HANDLE): AMD GPU VMs available to rent."""

from __future__ import annotations

from collections import defaultdict
from dataclasses import replace
from typing import Any

from chipcost.core.errors import SourceSkipped
from chipcost.core.payload import Payload
from chipcost.core.record import PriceRecord
from chipcost.extract import _fetch, _http
from chipcost.extract._estimate import estimate_of
from chipcost.extract._formats import Format, Rows
from chipcost.extract._host_sizes import host_spec
from chipcost.extract._kit import (
    field_names,
    json_price,
    parse_count,
    require_columns,
    shape_error,
)
from chipcost.extract.base import Checked, FetchContext, Item, Page, Source

SOURCE_NAME = "hotaisle"
PROVIDER = "hotaisle"
API = "https://admin.hotaisle.app/api"
API_KEY = _fetch.ApiKey(
    "hotaisle_api_key",
    "HOTAISLE_API_KEY",
    "Hot Aisle",
    "its admin console (API keys)",
    scheme="Token",
    accept_json=True,
)
TEAM_ENV = "HOTAISLE_TEAM_HANDLE"
FORMAT = Format(
    "available virtual machines",
    "/virtual_machines/available/",
    (
        Rows(
            "[]",
            {
                "OnDemandPrice": "number",
                "Specs": "object",
            },
            required=("OnDemandPrice", "Specs"),
            prices=("OnDemandPrice",),
        ),
    ),
)
FIELDS = FORMAT.required("[]")
GIB = 1024**3
# Hot Aisle's API names no location for its VMs.
REGION = "global"


def available_url(team: str) -> str:
    return f"{API}/teams/{team}/virtual_machines/available/"


def fetch(ctx: FetchContext) -> list[Payload]:
    """The VMs the team can rent now, archived as they arrive (the key never)."""
    key, team = API_KEY.required(ctx), ctx.settings.hotaisle_team
    if not team:
        raise SourceSkipped(
            f"{TEAM_ENV} is not set: Hot Aisle lists VMs per team; set {TEAM_ENV} to your team's "
            "handle (beside HOTAISLE_API_KEY) to collect Hot Aisle prices"
        )
    headers = API_KEY.headers(key)
    with _http.http_client(PROVIDER, ctx, key_hint=API_KEY.env) as client:
        payload = _http.get(ctx, client, available_url(team), headers=headers, ext="json")
    ctx.progress("available virtual machines")
    return [payload]


def rows(page: Page) -> list[Any]:
    """The VMs available now (`null` when there are none: an empty listing, refused)."""
    body = page.json()
    if body is None:
        return []
    if not isinstance(body, list):
        raise shape_error(PROVIDER, page.payload, "list of virtual machines", body)
    if body:
        require_columns(field_names(body), FIELDS, page.payload, PROVIDER)
    return body


def offers(vm: Any, page: Page) -> list[Item]:
    """A record per VM, at its price per instance-hour; combine() keeps one per configuration."""
    try:
        name, specs = _configuration(vm)
    except ValueError as exc:
        return [page.reject(str(exc), vm)]
    cents, why = json_price(vm.get("OnDemandPrice"), f"{name} OnDemandPrice")
    if cents is None:
        return [page.reject(why, vm, name)]
    gpu = specs["gpus"][0]
    cpus = specs.get("cpus") if isinstance(specs.get("cpus"), dict) else {}
    disk = specs.get("disk_capacity")
    extra = {
        "price_basis": "per instance-hour (OnDemandPrice / 100)",
        "cpu_model": cpus.get("model"),
        **estimate_of(vm),
    }
    return [
        page.record(
            region=REGION,
            instance_type=name,
            chip=page.chip(str(gpu["model"])),
            chip_count=float(parse_count(gpu.get("count"))),
            pricing_model="on_demand",
            price_per_hour=cents / 100,
            sku=name,
            extra={k: v for k, v in extra.items() if v is not None},
            # Specs: cpu_cores (the VM's), ram_capacity and disk_capacity in bytes (GiB here).
            vcpus=host_spec(specs.get("cpu_cores")),
            ram_gb=host_spec(specs.get("ram_capacity"), per=GIB),
            disk_gb=host_spec(disk, per=GIB),
        )
    ]


def combine(records: list[PriceRecord], page: Page) -> list[PriceRecord]:
    """Identical VMs listed more than once: the cheapest is the price one can rent at, with
    how many are available and the dearest."""
    configurations: dict[str, list[PriceRecord]] = defaultdict(list)
    for record in records:
        configurations[record.instance_type].append(record)
    found = []
    for _, same in sorted(configurations.items()):
        prices = sorted(r.price_per_hour for r in same)
        cheapest = min(same, key=lambda r: r.price_per_hour)
        dearest = {"max_price": prices[-1]} if prices[-1] != prices[0] else {}
        extra = {**cheapest.extra, "vms_available": len(same), **dearest}
        found.append(replace(cheapest, extra=extra))
    return found


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


SOURCE = Source(
    formats=(FORMAT,),
    settings={**API_KEY.settings, "hotaisle_team": TEAM_ENV},
    name=SOURCE_NAME,
    provider=PROVIDER,
    description=(
        "Hot Aisle API (needs HOTAISLE_API_KEY and HOTAISLE_TEAM_HANDLE): AMD Instinct VMs "
        "available to rent, on demand per instance"
    ),
    fetch=fetch,
    rows=rows,
    offers=offers,
    combine=combine,
    title="Hot Aisle",
    checked=Checked(
        asks="the VMs a team can rent now",
        against="**mock**: gpuhunt's one hand-written VM",
        rest="the rest reconstructed",
    ),
)
parse = SOURCE.parse
