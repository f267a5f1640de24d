-- Every throughput figure with what it implies and its place in the choice rule.
-- implied_mfu: the share of the chip's dense peak (at the figure's precision; the higher of
-- FP8 and BF16 when none is stated or it is another, e.g. FP4 or INT8) that the figure
-- needs, at 6 (training) or 2 (inference) FLOPs per parameter per token. Above 1 the figure is physically impossible: a reference or
-- derived figure that needs more than the chip's peak is set aside (usable = false); the
-- user's own measurements are always usable.
-- The asked speed: the session variable chipcost_speed ('max', or tokens/s per user as
-- text; `chipcost cost --speed` sets it), else the default, 5 tokens/s per user (MLPerf
-- Llama 2 70B Server's bound: 99th percentile time per output token within 200 ms).
-- A figure is at the asked speed (at_speed) when: training; 'max' and it was measured at
-- maximum throughput (a latency-bound figure never stands for it); a speed and its
-- tokens_per_second_per_user is at least that and, for a measured (not derived) figure, at
-- most twice that (one measured far faster understates the chip at the asked speed); or it
-- is the user's own and states no per-user speed (their workload, their point).
-- Choice rule, per chip, model and workload: usable first; then at the asked speed (a figure
-- is used only at the point it was measured at: a chip whose measurements are all elsewhere
-- gets its derived figure at that point, calibrated on those measurements); then published
-- before derived; then
-- measured > benchmark > independent > vendor-claim > estimate > derived
-- (chipcost/core/figures.py KINDS); then the newest source date; then the newest
-- measurement; then, at a per-user speed, the scenario whose figures have the highest median
-- tokens/s (MLPerf's Server before its Interactive when both meet the speed); then, of the
-- figures still tied (one publication's several systems or points), the middle one by
-- tokens/s, the lower of two middles (neither the best nor the worst case the document
-- reports); then the id.
CREATE OR REPLACE VIEW throughput_ranked AS
WITH asked AS (
    SELECT coalesce(CAST(getvariable('chipcost_speed') AS VARCHAR), '5') AS speed
),
figures AS (
    SELECT
        t.*,
        a.speed AS asked_speed,
        CASE
            WHEN t.workload = 'training' THEN TRUE
            WHEN a.speed = 'max' THEN coalesce(t.operating_point = 'max-throughput', FALSE)
            WHEN t.origin = 'user' AND t.tokens_per_second_per_user IS NULL THEN TRUE
            WHEN t.origin <> 'derived'
                AND t.tokens_per_second_per_user > 2 * TRY_CAST(a.speed AS DOUBLE) THEN FALSE
            ELSE coalesce(t.tokens_per_second_per_user >= TRY_CAST(a.speed AS DOUBLE), FALSE)
        END AS at_speed,
        m.parameters,
        CASE t.workload WHEN 'training' THEN 6 WHEN 'inference' THEN 2 END
            * coalesce(m.active_parameters, m.parameters)
            AS flops_per_token,
        CASE
            WHEN lower(t.precision) LIKE 'fp8%' THEN c.dense_fp8_tflops
            WHEN lower(t.precision) IN ('bf16', 'fp16') THEN c.dense_bf16_tflops
            ELSE greatest(c.dense_fp8_tflops, c.dense_bf16_tflops)
        END AS peak_tflops
    FROM throughput t
    CROSS JOIN asked a
    LEFT JOIN models m ON m.model = t.model
    LEFT JOIN chips c ON c.chip = t.chip
),
judged AS (
    SELECT
        *,
        CASE WHEN peak_tflops > 0 AND flops_per_token > 0
            THEN tokens_per_second_per_chip * flops_per_token / (peak_tflops * 1e12)
        END AS implied_mfu,
        -- chipcost/core/figures.py KINDS, written in when the views are created
        list_position({{figure_kinds}}, kind) AS kind_rank
    FROM figures
),
grouped AS (
    SELECT
        *,
        -- at a per-user speed one publication's scenarios are told apart; at 'max' not
        CASE WHEN asked_speed <> 'max' THEN scenario END AS point_group
    FROM judged
    WHERE tokens_per_second_per_chip > 0
),
tied AS (
    SELECT
        *,
        median(tokens_per_second_per_chip) OVER point AS point_median,
        row_number() OVER (point ORDER BY tokens_per_second_per_chip, throughput_id) AS tie_rank,
        count(*) OVER point AS tie_count  -- the whole group: no ORDER BY, so not a running count
    FROM grouped
    WINDOW point AS (
        PARTITION BY chip, model, workload, origin = 'user' OR coalesce(implied_mfu <= 1, TRUE),
            at_speed, kind_rank, source_date, recorded_at, point_group
    )
),
ranked AS (
    SELECT
        *,
        origin = 'user' OR coalesce(implied_mfu <= 1, TRUE) AS usable,
        row_number() OVER (
            PARTITION BY chip, model, workload
            ORDER BY
                (origin = 'user' OR coalesce(implied_mfu <= 1, TRUE)) DESC,
                at_speed DESC,
                kind = 'derived',
                kind_rank,
                CASE WHEN source_date <> 'undated' THEN source_date END DESC NULLS LAST,
                recorded_at DESC NULLS LAST,
                point_median DESC,
                abs(tie_rank - (tie_count + 1) // 2),
                tokens_per_second_per_chip,
                throughput_id
        ) AS choice_rank
    FROM tied
)
SELECT
    throughput_id, chip, model, workload, tokens_per_second_per_chip, kind, origin,
    batch_size, precision, sequence_length, mfu, implied_mfu, usable,
    choice_rank, usable AND choice_rank = 1 AS chosen,
    CASE WHEN NOT usable THEN
        'needs ' || round(100 * implied_mfu)::INTEGER || '% of the chip''s dense peak'
    END AS set_aside_because,
    source, source_date, stated_as, notes, recorded_at, parameters, flops_per_token, peak_tflops,
    operating_point, scenario, tokens_per_second_per_user, ttft_ms, tpot_ms, input_tokens,
    output_tokens, concurrency, software, system, published_model, source_url, chips,
    asked_speed, at_speed
FROM ranked;
