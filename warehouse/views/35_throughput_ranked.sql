-- Every throughput figure with what it implies and its place in the choice rule.
-- implied_mfu: the share of the chip's dense peak (at the figure's precision; the higher of
-- FP8 and BF16 when none is stated or it is another, e.g. FP4 or INT8) that the figure
-- needs, at 6 (training) or 2 (inference) FLOPs per parameter per token. Above 1 the figure is physically impossible: a reference or
-- derived figure that needs more than the chip's peak is set aside (usable = false); the
-- user's own measurements are always usable.
-- Choice rule, per chip, model and workload: usable first; then measured > benchmark >
-- independent > vendor-claim > estimate > derived (chipcost/core/figures.py KINDS); then the
-- newest source date; then the newest measurement; then, of the figures still tied (one
-- publication's several points: MLPerf's Offline and Server, a vendor's ten input/output
-- lengths), the middle one by tokens/s, the lower of two middles (neither the best nor the
-- worst case the document reports: MLPerf's Server result of two); then the id.
CREATE OR REPLACE VIEW throughput_ranked AS
WITH figures AS (
    SELECT
        t.*,
        m.parameters,
        CASE t.workload WHEN 'training' THEN 6 WHEN 'inference' THEN 2 END * m.parameters
            AS flops_per_token,
        CASE
            WHEN lower(t.precision) LIKE 'fp8%' THEN c.dense_fp8_tflops
            WHEN lower(t.precision) IN ('bf16', 'fp16') THEN c.dense_bf16_tflops
            ELSE greatest(c.dense_fp8_tflops, c.dense_bf16_tflops)
        END AS peak_tflops
    FROM throughput t
    LEFT JOIN models m ON m.model = t.model
    LEFT JOIN chips c ON c.chip = t.chip
),
judged AS (
    SELECT
        *,
        CASE WHEN peak_tflops > 0 AND flops_per_token > 0
            THEN tokens_per_second_per_chip * flops_per_token / (peak_tflops * 1e12)
        END AS implied_mfu,
        list_position(
            ['measured', 'benchmark', 'independent', 'vendor-claim', 'estimate', 'derived'], kind
        ) AS kind_rank
    FROM figures
),
tied AS (
    SELECT
        *,
        row_number() OVER (tie ORDER BY tokens_per_second_per_chip, throughput_id) AS tie_rank,
        count(*) OVER tie AS tie_count  -- the whole group: no ORDER BY, so not a running count
    FROM judged
    WHERE tokens_per_second_per_chip > 0
    WINDOW tie AS (
        PARTITION BY chip, model, workload, origin = 'user' OR coalesce(implied_mfu <= 1, TRUE),
            kind_rank, source_date, recorded_at
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
                kind_rank,
                CASE WHEN source_date <> 'undated' THEN source_date END DESC NULLS LAST,
                recorded_at DESC NULLS LAST,
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
    output_tokens, concurrency, software, system, published_model, source_url
FROM ranked;
