-- Cost per million tokens for every current offer of a chip and every model and workload the
-- chip has a chosen throughput figure for (throughput_ranked: one figure per chip, model and
-- workload, by the choice rule in docs/cost-per-token.md):
--   usd_per_million_tokens = price_per_chip_hour / (tokens_per_second_per_chip * 3600 / 1e6)
-- Each row names the figure (throughput_id and its kind, source and date) and the price
-- (the offer key, price_source, price_valid_from and the archived payload) it came from.
-- cost_per_token_at(...) chooses the figures at an asked point, its arguments throughput_at's
-- (warehouse/views/35_throughput_ranked.sql); the view cost_per_token is it at every default.
-- Its body is views/parts/priced_figures.sql, on the figures throughput_at chooses (a read
-- that has ranked them once prices those).
CREATE OR REPLACE MACRO cost_per_token_at(
    -- words, not NULL, for "not asked": a lake keeps no NULL default (DuckLake refuses
    -- type NULL and reads a typed NULL back as the text 'NULL')
    speed := {{default_speed}}, ttft := 'by shape', in_tokens := 'any', out_tokens := 'any',
    precisions := 'any', of_models := 'any'
) AS TABLE
WITH figures AS (
    FROM throughput_at(
        speed := speed, ttft := ttft, in_tokens := in_tokens, out_tokens := out_tokens,
        precisions := precisions, of_models := of_models
    )
)
{{priced_figures}};

CREATE OR REPLACE VIEW cost_per_token AS FROM cost_per_token_at();
