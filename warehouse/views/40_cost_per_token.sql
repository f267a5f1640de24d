-- Cost per million tokens for every current per-chip price and every throughput figure
-- of that chip: price per chip-hour / (tokens per second per chip * 3600 / 1e6).
CREATE OR REPLACE VIEW cost_per_token AS
SELECT
    p.chip, t.model, t.workload, p.provider, p.region, p.zone, p.instance_type,
    p.pricing_model, p.term, p.payment, p.plan,
    p.price_per_chip_hour,
    t.tokens_per_second_per_chip,
    p.price_per_chip_hour / (t.tokens_per_second_per_chip * 3600 / 1e6)
        AS cost_per_million_tokens,
    t.kind AS throughput_kind,
    t.source AS throughput_source,
    t.batch_size, t.precision,
    p.source AS price_source, p.payload_ref AS price_payload_ref
FROM per_chip_prices p
JOIN throughput t ON t.chip = p.chip
WHERE t.tokens_per_second_per_chip > 0;
