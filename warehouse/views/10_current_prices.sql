-- Every offer's price now: the open row of price_history, in US dollars (price_history_usd).
-- The host (vCPUs, memory, local disk; migration 096) is the row's own where its source
-- publishes hosts. A source that publishes none (AWS spot, savings plans, capacity blocks)
-- shows the host another source of the same provider publishes for the same instance type,
-- and only where every such row gives one value (the Price List's p5.48xlarge for its spot
-- price); else it stays NULL.
CREATE OR REPLACE VIEW current_prices AS
WITH open_rows AS (
    SELECT * FROM price_history_usd WHERE valid_to IS NULL
),
silent AS (  -- sources none of whose current rows has a host
    SELECT source FROM open_rows
    GROUP BY source
    HAVING count(vcpus) + count(ram_gb) + count(disk_gb) = 0
),
published AS (  -- one host per provider and instance type, where its sources agree
    SELECT
        provider AS p_provider, instance_type AS p_type,
        CASE WHEN min(vcpus) = max(vcpus) THEN min(vcpus) END AS p_vcpus,
        CASE WHEN min(ram_gb) = max(ram_gb) THEN min(ram_gb) END AS p_ram_gb,
        CASE WHEN min(disk_gb) = max(disk_gb) THEN min(disk_gb) END AS p_disk_gb
    FROM open_rows
    WHERE vcpus IS NOT NULL OR ram_gb IS NOT NULL OR disk_gb IS NOT NULL
    GROUP BY ALL
)
SELECT
    provider, source, region, zone, instance_type, chip, chip_count,
    pricing_model, term, payment, plan, price_per_hour, upfront, currency,
    sku, source_url, valid_from, last_seen_at, payload_ref,
    CASE WHEN s.source IS NULL THEN vcpus ELSE p_vcpus END AS vcpus,
    CASE WHEN s.source IS NULL THEN ram_gb ELSE p_ram_gb END AS ram_gb,
    CASE WHEN s.source IS NULL THEN disk_gb ELSE p_disk_gb END AS disk_gb,
    stated_currency
FROM open_rows o
LEFT JOIN silent s USING (source)
-- One published row at most per provider and instance type, taken only for a silent source
-- (the CASEs above): the join's conditions are equalities alone, a hash join (with
-- s.source IS NOT NULL among them DuckDB joined by a nested loop).
LEFT JOIN published p ON p.p_provider = o.provider AND p.p_type = o.instance_type;
