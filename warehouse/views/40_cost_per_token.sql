-- Cost per million tokens for every current offer of a chip and every model and workload the
-- chip has a chosen throughput figure for (throughput_ranked: one figure per chip, model and
-- workload, by the choice rule in docs/cost-per-token.md):
--   usd_per_million_tokens = price_per_chip_hour / (tokens_per_second_per_chip * 3600 / 1e6)
-- Each row names the figure (throughput_id and its kind, source and date) and the price
-- (the offer key, price_source, price_valid_from and the archived payload) it came from.
-- cost_per_token_at(...) chooses the figures at an asked point, its arguments throughput_at's
-- (warehouse/views/35_throughput_ranked.sql); the view cost_per_token is it at every default.
CREATE OR REPLACE MACRO cost_per_token_at(
    -- words, not NULL, for "not asked": a lake keeps no NULL default (DuckLake refuses
    -- type NULL and reads a typed NULL back as the text 'NULL')
    speed := {{default_speed}}, ttft := 'by shape', in_tokens := 'any', out_tokens := 'any',
    precisions := 'any', of_models := 'any'
) AS TABLE
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
JOIN throughput_at(
    speed := speed, ttft := ttft, in_tokens := in_tokens, out_tokens := out_tokens,
    precisions := precisions, of_models := of_models
) t ON t.chip = p.chip AND t.chosen
WHERE p.price_per_chip_hour > 0 AND t.tokens_per_second_per_chip > 0;

CREATE OR REPLACE VIEW cost_per_token AS FROM cost_per_token_at();
