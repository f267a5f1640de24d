-- Every offer's price now: the open row of price_history.
CREATE OR REPLACE VIEW current_prices AS
SELECT
    provider, source, region, zone, instance_type, chip, chip_count,
    pricing_model, term, payment, plan, price_per_hour, upfront, currency,
    sku, source_url, valid_from, last_seen_at, payload_ref,
    vcpus, ram_gb, disk_gb  -- the host, where the source publishes it (migration 096)
FROM price_history
WHERE valid_to IS NULL;
