"""Sample runs of seeweb: /ecs/v2/plans in its real shape and the ECB's rates, synthetic."""

from __future__ import annotations

from datetime import datetime, timedelta
from pathlib import Path
from typing import Any

from chipcost.extract._estimate import ESTIMATE_KEY
from chipcost.extract._fx import ECB_DAILY_URL
from chipcost.extract.seeweb import PLANS_URL, SOURCE_NAME
from chipcost.sample.build._common import SAMPLE_KEY, factor, fresh_writer, indented_json

SAMPLE_LABEL = "synthetic plans and prices in the API's real shape, not fetched from the provider"
# name, GPUs, gpu_label, vCPUs, RAM MB, disk GB, euros per hour, regions.
# fmt: off
PLANS = (
    ("eCS1", 0, None, 1, 1024, 25, 0.019, ("it-fr2", "it-mi2", "ch-lug1", "bg-sof1")),
    ("eCS4", 0, None, 4, 8192, 160, 0.063, ("it-fr2", "it-mi2")),
    ("ECS1GPU6", 1, "L4 24GB", 4, 32768, 200, 0.38, ("it-fr2", "it-mi2")),
    ("ECS1GPU7", 1, "L40s 48GB", 8, 32768, 500, 0.85, ("it-fr2", "it-mi2")),
    ("ECS2GPU7", 2, "L40s 48GB", 16, 65536, 1000, 1.70, ("it-fr2",)),
    ("ECS1GPU2", 1, "RTX A6000 48GB", 8, 32768, 500, 0.74, ("it-fr2",)),
    ("ECS1GPU11", 1, "A30", 8, 32768, 500, 0.29, ("it-fr2",)),
    ("ECS1GPU3", 1, "A100 80GB", 16, 122880, 1000, 0.99, ("it-fr2", "it-mi2")),
    ("ECS2GPU3", 2, "A100 80GB", 32, 245760, 2000, 1.98, ("it-fr2",)),
    ("ECS1GPU8", 1, "H100 80GB", 16, 184320, 1000, 2.19, ("it-mi2",)),
    ("ECS1GPU10", 1, "H200 141GB", 32, 262144, 2000, 2.6, ("it-mi2",)),
    ("ECS1GPU12", 1, "RTX PRO 6000 96GB", 16, 122880, 1000, 1.25, ("it-fr2",)),
    ("ECS1GPU9", 1, "MI300X", 32, 262144, 2000, 1.6, ("it-fr2",)),
)
# fmt: on
# (plan, first day) -> price factor from that day on; ("EUR/USD", day) -> the ECB rate.
MOVES = {("ECS1GPU10", 5): 0.92}
# Every plan marked an estimate in the data (sample/REFERENCES.md traces none of them).
ESTIMATE = "synthetic: no public copy of Seeweb's prices was read here; near its listed level"
RATES = {1: 1.0812, 5: 1.0934}  # the dollar weakens on day 5: every converted price moves


def plan(row: tuple, day: int) -> dict[str, Any]:
    name, gpus, label, cpus, ram, disk, euros, regions = row
    return {
        "name": name,
        "cpu": str(cpus),
        "ram": str(ram),
        "disk": str(disk),
        "gpu": str(gpus),
        "gpu_label": label,
        "hourly_price": round(euros * factor(MOVES, name, day), 3),
        "available": True,
        "id": int("".join(ch for ch in name if ch.isdigit()) or 0),
        "host_type": "ECS",
        "available_regions": [{"location": region} for region in regions],
    }


def rates(day: int, moment: datetime) -> bytes:
    """The ECB file of the working day before the run, with a chipcost sample comment."""
    published = moment - timedelta(days=1)
    while published.weekday() >= 5:  # the ECB publishes on working days only
        published -= timedelta(days=1)
    usd = max(rate for since, rate in RATES.items() if day >= since)
    return (
        '<?xml version="1.0" encoding="UTF-8"?>\n'
        "<!-- chipcost sample data: a synthetic rate in the ECB file's real structure, not "
        "fetched from the ECB -->\n"
        '<gesmes:Envelope xmlns:gesmes="http://www.gesmes.org/xml/2002-08-01" '
        'xmlns="http://www.ecb.int/vocabulary/2002-08-01/eurofxref">\n'
        "\t<gesmes:subject>Reference rates</gesmes:subject>\n"
        "\t<gesmes:Sender>\n\t\t<gesmes:name>European Central Bank</gesmes:name>\n"
        "\t</gesmes:Sender>\n\t<Cube>\n"
        f"\t\t<Cube time='{published:%Y-%m-%d}'>\n"
        f"\t\t\t<Cube currency='USD' rate='{usd:.4f}'/>\n"
        "\t\t\t<Cube currency='JPY' rate='162.35'/>\n"
        "\t\t\t<Cube currency='GBP' rate='0.85210'/>\n"
        "\t\t\t<Cube currency='CHF' rate='0.9391'/>\n"
        "\t\t</Cube>\n\t</Cube>\n</gesmes:Envelope>"
    ).encode()


def write_run(out: Path, day: int, moment: datetime) -> Path:
    """<stamp>/seeweb/: the plans, then the ECB rates, as fetch archives them (no token kept)."""
    writer = fresh_writer(out, moment, SOURCE_NAME)
    body = {SAMPLE_KEY: SAMPLE_LABEL, "status": "ok", "plans": [
        {**plan(r, day), ESTIMATE_KEY: ESTIMATE} for r in PLANS]}  # fmt: skip
    get = {"method": "GET"}
    writer.write(indented_json(body), PLANS_URL, fetched_at=moment, request=get)
    writer.write(rates(day, moment), ECB_DAILY_URL, fetched_at=moment, ext="xml", request=get)
    return writer.directory
