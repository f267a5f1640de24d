-- Each current offer of a chip priced per million tokens by the figure chosen for its chip,
-- model and workload, from `figures`: throughput_at's rows at a point, a CTE of what this is
-- written into (cost_per_token_at, whose figures are its call of throughput_at; and a read's
-- offers, on the figures it has ranked: chipcost.warehouse.cost_per_token ranked_at).
SELECT
    p.chip, t.model, t.workload, p.provider, p.region, p.zone, p.instance_type,
    p.pricing_model, p.term, p.payment, p.plan,
    p.price_per_chip_hour,
    t.tokens_per_second_per_chip,
    p.price_per_chip_hour / (t.tokens_per_second_per_chip * 3600 / 1e6)
        AS usd_per_million_tokens,
    t.kind AS throughput_kind,
    t.source AS throughput_source,
    t.batch_size, t.precision,
    p.source AS price_source, p.payload_ref AS price_payload_ref,
    t.throughput_id,
    t.origin AS throughput_origin,
    t.source_date AS throughput_source_date,
    t.implied_mfu,
    p.chip_count,
    p.price_per_hour,
    p.sku AS price_sku,
    p.valid_from AS price_valid_from,
    -- where the figure was measured, appended so the columns above keep their places
    t.operating_point AS throughput_operating_point,
    t.scenario AS throughput_scenario,
    t.tokens_per_second_per_user AS throughput_tokens_per_second_per_user,
    -- the speed the figure was chosen for (throughput_ranked) and whether it meets it
    t.asked_speed AS throughput_asked_speed,
    t.at_speed AS throughput_at_speed,
    -- the request shape the figure was measured (or derived) at
    t.input_tokens AS throughput_input_tokens,
    t.output_tokens AS throughput_output_tokens,
    -- and the scale: chips of the system or replica (of the run, for training)
    t.chips AS throughput_chips
FROM per_chip_prices p
JOIN figures t ON t.chip = p.chip AND t.chosen
WHERE p.price_per_chip_hour > 0 AND t.tokens_per_second_per_chip > 0
