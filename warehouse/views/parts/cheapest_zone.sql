-- Per region, the cheapest current spot price of each instance type across its zones, from
-- `cur`: current_prices' rows, a CTE of the view this is written into (spot_region_cheapest,
-- and per_chip_prices, which reads them once for its zone rows and its region rows).
-- Spot is priced per availability zone; a user choosing a region wants its cheapest zone.
-- Each offer's cheapest zone is its row with the least (price, zone), taken whole by arg_min
-- over its zones: a window numbering every zone row took about 20 ms more of a ten-year
-- read's CPU (docs/performance.md).
SELECT
    provider, source, region, zone AS cheapest_zone, zones, instance_type, chip, chip_count,
    pricing_model, term, payment, plan, price_per_hour, max_zone_price_per_hour,
    upfront, currency, sku, source_url, valid_from, last_seen_at, payload_ref,
    vcpus, ram_gb, disk_gb, stated_currency
FROM (
    SELECT
        unnest(arg_min(c, (c.price_per_hour, c.zone))),
        count(*) AS zones,
        max(c.price_per_hour) AS max_zone_price_per_hour
    FROM cur c
    WHERE c.pricing_model = 'spot' AND c.zone <> ''
    GROUP BY c.provider, c.source, c.region, c.instance_type, c.term, c.payment, c.plan
)
