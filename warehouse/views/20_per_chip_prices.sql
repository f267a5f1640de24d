-- Current prices per chip-hour: the number to compare across instance sizes and providers,
-- in current_prices' currency (US dollars; `stated_currency` the one the source priced in).
-- Spot is listed per zone and once more per region at its cheapest zone (zone '', plan
-- 'region_cheapest'; the zone itself is in spot_region_cheapest). current_prices is read once
-- for both (`cur`): its open rows of price_history, spread over the whole history, are most
-- of a read of this view (docs/performance.md).
CREATE OR REPLACE VIEW per_chip_prices AS
WITH cur AS (FROM current_prices),
cheapest AS (
{{cheapest_zone}}
)
SELECT
    chip, provider, region, zone, instance_type, chip_count,
    pricing_model, term, payment, plan,
    per_chip_hour(price_per_hour, chip_count) AS price_per_chip_hour,
    price_per_hour,
    upfront,
    source, sku, valid_from, last_seen_at, payload_ref, vcpus, ram_gb, disk_gb, stated_currency,
    currency, source_url
FROM cur
WHERE chip_count > 0
UNION ALL
SELECT
    chip, provider, region, '' AS zone, instance_type, chip_count,
    pricing_model, term, payment, 'region_cheapest' AS plan,
    per_chip_hour(price_per_hour, chip_count),
    price_per_hour,
    upfront,
    source, sku, valid_from, last_seen_at, payload_ref, vcpus, ram_gb, disk_gb, stated_currency,
    currency, source_url
FROM cheapest
WHERE chip_count > 0;
