-- Per region, the cheapest current spot price of each instance type across its zones, from
-- `cur`: current_prices' rows, a CTE of the view this is written into (spot_region_cheapest,
-- and per_chip_prices, which reads them once for its zone rows and its region rows).
-- Spot is priced per availability zone; a user choosing a region wants its cheapest zone.
SELECT
    provider, source, region, zone AS cheapest_zone, zones, instance_type, chip, chip_count,
    pricing_model, term, payment, plan, price_per_hour, max_zone_price_per_hour,
    upfront, currency, sku, source_url, valid_from, last_seen_at, payload_ref,
    vcpus, ram_gb, disk_gb
FROM (
    SELECT
        *,
        row_number() OVER offer AS price_rank,
        count(*) OVER offer AS zones,
        max(price_per_hour) OVER offer AS max_zone_price_per_hour
    FROM cur
    WHERE pricing_model = 'spot' AND zone <> ''
    WINDOW offer AS (
        PARTITION BY provider, source, region, instance_type, term, payment, plan
        ORDER BY price_per_hour, zone
        ROWS BETWEEN UNBOUNDED PRECEDING AND UNBOUNDED FOLLOWING
    )
)
WHERE price_rank = 1
