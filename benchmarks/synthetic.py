"""A synthetic price history with realistic shape and change rates, for the scale benchmark."""

from __future__ import annotations

import math
import random
from dataclasses import dataclass
from datetime import UTC, date, datetime, timedelta

from chipcost.core.record import PriceRecord
from chipcost.core.runs import OK, RunResult, SourceResult
from chipcost.extract import ecb_rates

FIRST_DAY = datetime(2024, 1, 1, 6, 0, tzinfo=UTC)
CHIPS = (
    ("H100-SXM", 8, 6.9),
    ("H200", 8, 7.9),
    ("B200", 8, 11.0),
    ("A100-80GB", 8, 4.1),
    ("A10G", 4, 1.3),
    ("L40S", 4, 1.9),
    ("L4", 4, 0.9),
    ("MI300X", 8, 4.9),
    ("Trainium2", 16, 2.9),
    ("Inferentia2", 12, 0.7),
)
# (source, provider, pricing_model, share of the day's offers, daily change probability).
# On-demand lists move once or twice a year, commitments a little more often, capacity
# blocks weekly and spot (one row per zone) every few days.
MIX = (
    ("aws-pricing-api", "aws", "on_demand", 0.04, 0.003),
    ("aws-pricing-api", "aws", "reserved", 0.24, 0.002),
    ("aws-savings-plans", "aws", "savings_plan", 0.12, 0.002),
    ("aws-capacity-blocks", "aws", "capacity_block", 0.02, 0.15),
    ("aws-spot", "aws", "spot", 0.44, 0.10),
    ("runpod", "runpod", "on_demand", 0.02, 0.01),
    ("vastai", "vastai", "spot", 0.06, 0.25),
    ("coreweave", "coreweave", "commitment", 0.04, 0.004),
    ("ovhcloud", "ovhcloud", "on_demand", 0.02, 0.004),
)
# Sources whose prices are stated in euros, as OVHcloud's, Seeweb's and Scaleway's are: every
# read converts them at the ECB's rate of their day (warehouse/fx.py), so a history without them
# would time reads that skip the conversion a real warehouse pays for.
EURO_SOURCES = frozenset({"ovhcloud"})
# The days of the ECB's reference rates each run brings (extract/ecb_rates.py reads its 90-day
# file).
RATES_DAYS = 90
TERMS = (("1yr", "no_upfront"), ("1yr", "partial_upfront"), ("3yr", "all_upfront"))
PLANS = {"reserved": ("standard", "convertible"), "savings_plan": ("compute", "ec2_instance")}
# Offers that appear or disappear per day (new instance types, regions, marketplace hosts).
CHURN = 0.0005


@dataclass
class Offer:
    key: tuple[str, ...]  # source, provider, region, zone, instance_type, model, term, pay, plan
    chip: str
    chip_count: float
    price: float
    change_rate: float


def _variants(model: str) -> list[tuple[str, str, str]]:
    if model in PLANS:
        return [(t, p, plan) for plan in PLANS[model] for t, p in TERMS]
    if model == "capacity_block":
        return [("1d", "all_upfront", "default"), ("7d", "all_upfront", "default")]
    return [("none", "none", "default")]


def _offers_of(source: str, provider: str, model: str, count: int, rng: random.Random):
    """`count` distinct offers of one source and pricing model."""
    variants = _variants(model)
    zones = ("a", "b", "c", "d", "e", "f") if model == "spot" else ("",)
    n = 0
    for block in range(10**9):
        # Eight instance sizes per chip and region: (region, size) never repeats.
        region = f"region-{block // 8:03d}"
        for chip, chips, per_chip in CHIPS:
            instance = f"{chip.lower()}.{chips}x-v{block % 8}"
            for zone in zones:
                for term, payment, plan in variants:
                    if n >= count:
                        return
                    key = (
                        source,
                        provider,
                        region,
                        f"{region}{zone}" if zone else "",
                        instance,
                        model,
                        term,
                        payment,
                        plan,
                    )
                    price = round(per_chip * chips * rng.uniform(0.4, 1.2), 4)
                    yield Offer(key, chip, float(chips), price, 0.0)
                    n += 1


def offers(total: int, seed: int = 7) -> list[Offer]:
    """About `total` distinct offers across sources in the proportions of MIX."""
    rng = random.Random(seed)
    found = []
    for source, provider, model, share, rate in MIX:
        for offer in _offers_of(source, provider, model, int(total * share), rng):
            offer.change_rate = rate
            found.append(offer)
    return found


def advance(offers_now: list[Offer], rng: random.Random) -> None:
    """One day passes: some prices move, a few offers are withdrawn and replaced."""
    for index, offer in enumerate(offers_now):
        if rng.random() < offer.change_rate:
            step = rng.uniform(-0.12, 0.12) if offer.key[5] == "spot" else rng.uniform(-0.2, 0.1)
            offer.price = round(max(0.05, offer.price * (1 + step)), 4)
        elif rng.random() < CHURN:
            source, provider, region, zone, instance, *rest = offer.key
            renamed = f"{instance}-r{rng.randrange(10**6)}"
            offers_now[index] = Offer(
                (source, provider, region, zone, renamed, *rest),
                offer.chip,
                offer.chip_count,
                offer.price,
                offer.change_rate,
            )


def currency_of(source: str) -> str:
    return "EUR" if source in EURO_SOURCES else "USD"


def usd_per_eur(day: date) -> float:
    """The dollars a euro bought on `day`: a slow swing about 1.08."""
    return round(1.08 + 0.06 * math.sin(day.toordinal() / 90), 4)


def rate_rows(first: date, last: date, observed_at: datetime | None = None) -> list[dict]:
    """fx_rates' rows the ECB published from `first` to `last`: the euro (at 1) and the dollar
    on each working day, as extract/ecb_rates.py reads them; observed at `observed_at`, or
    (None) by the run of the morning after each day."""
    rows = []
    for n in range((last - first).days + 1):
        day = first + timedelta(days=n)
        if day.weekday() >= 5:
            continue
        seen = observed_at or datetime.combine(day + timedelta(days=1), FIRST_DAY.timetz())
        ref = f"{seen:%Y-%m-%dT%H%M%SZ}/{ecb_rates.SOURCE_NAME}/0001.xml.gz"
        for currency, per_eur in (("EUR", 1.0), ("USD", usd_per_eur(day))):
            rows.append(
                {
                    "day": day,
                    "currency": currency,
                    "per_eur": per_eur,
                    "source": ecb_rates.SOURCE_NAME,
                    "observed_at": seen,
                    "payload_ref": ref,
                }
            )
    return rows


def run_for(day: int, offers_now: list[Offer]) -> RunResult:
    """The run a collector would hand the loader on `day`: one SourceResult per source."""
    when = FIRST_DAY + timedelta(days=day)
    stamp = when.strftime("%Y-%m-%dT%H%M%SZ")
    by_source: dict[str, SourceResult] = {}
    for offer in offers_now:
        source, provider, region, zone, instance, model, term, payment, plan = offer.key
        result = by_source.get(source)
        if result is None:
            result = by_source[source] = SourceResult(
                source=source, provider=provider, status=OK, observed_at=when
            )
        result.records.append(
            PriceRecord(
                observed_at=when,
                provider=provider,
                source=source,
                region=region,
                zone=zone,
                instance_type=instance,
                chip=offer.chip,
                chip_count=offer.chip_count,
                pricing_model=model,
                term=term,
                payment=payment,
                plan=plan,
                price_per_hour=offer.price,
                currency=currency_of(source),
                sku=f"sku-{instance}",
                source_url="https://example.invalid/prices",
                payload_ref=f"{stamp}/{source}/0001.json.gz",
            )
        )
        result.seen_keys.add(offer.key[1:])
    # The rates published up to the day before (the ECB's come after a morning run).
    published = (when - timedelta(days=1)).date()
    rates = SourceResult(
        source=ecb_rates.SOURCE_NAME, provider=ecb_rates.PROVIDER, status=OK, observed_at=when
    )
    first = published - timedelta(days=RATES_DAYS - 1)
    rates.facts[ecb_rates.TABLE] = rate_rows(first, published, when)
    return RunResult(
        run_id=f"{stamp}-bench",
        started_at=when,
        observed_at=when,
        mode="live",
        archive_run=stamp,
        sample=True,
        sources=[*by_source.values(), rates],
    )


def day_at(day: int) -> datetime:
    return FIRST_DAY + timedelta(days=day)
