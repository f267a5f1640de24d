-- Every throughput figure with what it implies and its place in the choice rule, and each
-- curve read at the asked point (docs/cost-per-token.md, "Reading a curve").
-- implied_mfu: the share of the chip's dense peak (at the figure's precision; the higher of
-- FP8 and BF16 when none is stated or it is another, e.g. FP4 or INT8) that the figure
-- needs, at 6 (training) or 2 (inference) FLOPs per parameter per token. Above 1 the figure is
-- physically impossible: a reference or derived figure that needs more than the chip's peak is
-- set aside (usable = false); the user's own measurements are always usable.
-- throughput_at(...) is the table of the figures at an asked point, given as its named
-- arguments; the view throughput_ranked is it at every default. The arguments:
--   speed: 'max', or tokens/s per user as text (`chipcost cost --speed`); by default
--     {{default_speed}} (core/figures.py DEFAULT_SPEED: MLPerf Llama 2 70B Server's bound, 99th
--     percentile time per output token within 200 ms).
--   ttft: the time-to-first-token bound in ms (`--ttft`); by default the figure's request
--     shape's: 2 s for prompts up to 2,048 tokens (MLPerf Llama 2 70B and Llama 3.1 8B
--     Server), 6 s beyond (MLPerf Llama 3.1 405B Server, whose prompts run to thousands of
--     tokens); a benchmark's own dataset (MLPerf, no fixed shape) met its scenario's bound by
--     the benchmark's rules.
--   in_tokens, out_tokens: the request shape (`--shape`): only figures whose lengths are each
--     within 10% of them; by default any.
--   precisions: a precision class's spellings, lower case (`--precision FP8`: ['fp8',
--     'fp8-e4m3', ...], chipcost.transform.precision); by default any.
--   of_models: the models whose figures are chosen (['llama-3-70b']); by default every one.
--     A read of one model's ranking does not rank every other's.
-- An argument that is not a number (a list for precisions) is not asked: the default.
-- The arguments are named so that no column of the body is: a macro's argument stands for
-- every column reference of its name.
-- A figure is at the asked speed (at_speed) when: training, or an encoder's; 'max' and it was measured at maximum
-- throughput or is a point of a load curve (the frontier's top is then the best of them); a
-- speed and its tokens_per_second_per_user is at least that; or it is the user's own and states
-- no per-user speed (their workload, their point). Never a single stream (one request in flight:
-- concurrency or batch 1), which answers no load question, and never a point whose time to first
-- token is over the bound (a saturated queue, not the per-user speed it streams at).
-- A curve (a load sweep: the points at each concurrency of one chip, model, request shape,
-- precision, software, scale and publication) is read between its points: where the asked
-- speed falls between two of its points that meet the bounds, a figure interpolated linearly
-- between them is added (id '<faster point>@<speed>'), never beyond the curve's ends. MLPerf's
-- scenarios are points at their own bounds, not a curve: none is interpolated between them.
-- A configuration (a curve but for its publication: chip, model, shape, precision, software,
-- scale, system, deployment) is superseded by its newest run, and a point measured again by its
-- newest measurement: the older are kept, marked superseded, and never chosen while the newer
-- is there.
-- Choice rule, per chip, model and workload: usable first; then at the asked speed; then not
-- superseded; then published before derived, and an author's estimate after every measurement;
-- your own measurement before published ones; then the best throughput per chip (the chip's
-- frontier across configurations at the asked speed and TTFT, as InferenceX draws it); dates
-- break ties only (the newest source date, then the newest measurement); then the kind
-- (core/figures.py KINDS); then the id.
-- What a figure implies, one rule for throughput_at's figures and for each source's highest:
-- the FLOPs a token takes (6 a parameter in training, 2 in inference; a mixture of experts'
-- active parameters), the chip's dense peak at the figure's precision, and the share of that
-- peak the figure needs.
CREATE OR REPLACE MACRO flops_per_token_of(figure_workload, all_parameters, active_parameters)
    AS CASE figure_workload WHEN 'training' THEN 6 WHEN 'inference' THEN 2 END
        * coalesce(active_parameters, all_parameters);
CREATE OR REPLACE MACRO dense_peak_of(figure_precision, fp8_tflops, bf16_tflops) AS CASE
    WHEN lower(figure_precision) LIKE 'fp8%' THEN fp8_tflops
    WHEN lower(figure_precision) IN ('bf16', 'fp16') THEN bf16_tflops
    ELSE greatest(fp8_tflops, bf16_tflops)
END;
CREATE OR REPLACE MACRO mfu_of(per_chip, flops, peak) AS
    CASE WHEN peak > 0 AND flops > 0 THEN per_chip * flops / (peak * 1e12) END;
CREATE OR REPLACE MACRO throughput_at(
    -- words, not NULL, for "not asked": a lake keeps no NULL default (DuckLake refuses
    -- type NULL and reads a typed NULL back as the text 'NULL')
    speed := {{default_speed}}, ttft := 'by shape', in_tokens := 'any', out_tokens := 'any',
    precisions := 'any', of_models := 'any'
) AS TABLE
WITH asked AS (
    SELECT
        coalesce(CAST(speed AS VARCHAR), {{default_speed}}) AS speed,
        TRY_CAST(ttft AS DOUBLE) AS ttft_ms,
        TRY_CAST(in_tokens AS DOUBLE) AS input_tokens,
        TRY_CAST(out_tokens AS DOUBLE) AS output_tokens,
        TRY_CAST(precisions AS VARCHAR[]) AS precisions,
        TRY_CAST(of_models AS VARCHAR[]) AS models
),
bounded AS (
    SELECT
        t.*,
        a.speed AS asked_speed,
        coalesce(a.ttft_ms, CASE
            WHEN t.input_tokens IS NULL THEN NULL
            WHEN t.input_tokens <= 2048 THEN 2000
            ELSE 6000
        END) AS ttft_bound_ms,
        t.workload = 'inference' AND coalesce(t.concurrency = 1 OR t.batch_size = 1, FALSE)
            AS single_stream,
        a.models IS NULL OR list_contains(a.models, t.model) AS of_asked_model
    FROM throughput t
    CROSS JOIN asked a
    -- a request shape asked (inference): only figures whose lengths are both within 10% of it
    WHERE (a.input_tokens IS NULL OR t.workload <> 'inference' OR coalesce(
            abs(ln(t.input_tokens / a.input_tokens)) < ln(1.1)
            AND abs(ln(t.output_tokens / a.output_tokens)) < ln(1.1), FALSE))
        -- a precision class asked: only figures stored at one of its spellings
        AND (a.precisions IS NULL OR coalesce(list_contains(a.precisions, lower(t.precision))
            OR list_contains(a.precisions, split_part(lower(t.precision), '-', 1)), FALSE))
),
pointed AS (
    -- the models asked (of_models: every model by default); each choice below is within a
    -- model, but for a source's highest share of a peak (source_peaks)
    SELECT
        * EXCLUDE (of_asked_model),
        NOT single_stream AND coalesce(ttft_ms <= ttft_bound_ms, TRUE) AS within_bounds,
        -- one configuration: chip, model, shape, precision, software, scale, system and
        -- deployment; its newest run supersedes the older
        [chip, model, workload, origin, kind, coalesce(published_model, ''),
            coalesce(input_tokens, 0)::VARCHAR, coalesce(output_tokens, 0)::VARCHAR,
            coalesce(precision, ''), coalesce(software, ''), coalesce(chips, 0)::VARCHAR,
            coalesce(system, ''), coalesce(deployment, '')] AS configuration,
        -- one curve: the points of one publication (or one measurement) of a configuration
        -- (its list as `throughput list` has always given it: the publication after the kind)
        [chip, model, workload, origin, kind, source, source_date, coalesce(published_model, ''),
            coalesce(input_tokens, 0)::VARCHAR, coalesce(output_tokens, 0)::VARCHAR,
            coalesce(precision, ''), coalesce(software, ''), coalesce(chips, 0)::VARCHAR,
            coalesce(system, ''), coalesce(deployment, '')] AS curve
    FROM bounded
    WHERE of_asked_model
),
-- The newest of each configuration and of each point, grouped and joined back rather than as
-- windows over every column of every figure (a third of the view's time on the sample).
current AS (
    SELECT
        p.*,
        coalesce(
            p.source_date <> 'undated' AND p.source_date < c.newest_date
            -- a point measured again (your own, recorded later) replaces its earlier measurement
            OR p.recorded_at < m.newest_recorded,
            FALSE) AS superseded
    FROM pointed p
    LEFT JOIN (
        SELECT configuration,
            max(source_date) FILTER (WHERE source_date <> 'undated') AS newest_date
        FROM pointed
        GROUP BY configuration
    ) c ON c.configuration = p.configuration
    LEFT JOIN (
        SELECT configuration, concurrency, tokens_per_second_per_user,
            max(recorded_at) AS newest_recorded
        FROM pointed
        GROUP BY ALL
    ) m ON m.configuration = p.configuration
        AND m.concurrency IS NOT DISTINCT FROM p.concurrency
        AND m.tokens_per_second_per_user IS NOT DISTINCT FROM p.tokens_per_second_per_user
),
neighbours AS (
    SELECT
        *,
        lead(throughput_id) OVER faster AS next_id,
        lead(tokens_per_second_per_user) OVER faster AS next_user,
        lead(tokens_per_second_per_chip) OVER faster AS next_tps,
        lead(ttft_ms) OVER faster AS next_ttft,
        lead(scenario) OVER faster AS next_scenario
    FROM current
    WHERE within_bounds AND NOT superseded AND origin <> 'derived' AND workload = 'inference'
        AND concurrency IS NOT NULL AND tokens_per_second_per_user > 0 AND tokens_per_second_per_chip > 0
        AND asked_speed <> 'max'
    WINDOW faster AS (
        PARTITION BY chip, model, workload, curve
        ORDER BY tokens_per_second_per_user, throughput_id
    )
),
interpolated AS (
    SELECT
        * EXCLUDE (next_id, next_user, next_tps, next_ttft, next_scenario, asked, throughput_id,
            tokens_per_second_per_chip, tokens_per_second_per_user, ttft_ms, tpot_ms,
            concurrency, batch_size, scenario),
        next_id || '@' || asked_speed AS throughput_id,
        next_tps + (tokens_per_second_per_chip - next_tps) * (next_user - asked)
            / (next_user - tokens_per_second_per_user) AS tokens_per_second_per_chip,
        asked AS tokens_per_second_per_user,
        greatest(ttft_ms, next_ttft) AS ttft_ms,
        1000 / asked AS tpot_ms,
        NULL::INTEGER AS concurrency,
        NULL::INTEGER AS batch_size,
        'interpolated at ' || asked_speed || ' tokens/s per user between ' || scenario || ' ('
            || round(tokens_per_second_per_user, 1) || ' tokens/s per user) and '
            || next_scenario || ' (' || round(next_user, 1) || ')' AS scenario
    FROM (SELECT *, TRY_CAST(asked_speed AS DOUBLE) AS asked FROM neighbours)
    WHERE tokens_per_second_per_user < asked AND next_user > asked
),
figures AS (
    SELECT
        *,
        CASE
            WHEN workload = 'training' THEN TRUE
            -- an encoder (models.attention 'none': BERT) decodes no token after another, so
            -- no speed per user is its question: its figures answer every speed, as training's
            WHEN model IN (SELECT model FROM models WHERE attention = 'none') THEN TRUE
            WHEN NOT within_bounds THEN FALSE
            WHEN asked_speed = 'max' THEN coalesce(
                operating_point = 'max-throughput' OR (origin <> 'derived' AND concurrency > 1),
                FALSE)
            WHEN origin = 'user' AND tokens_per_second_per_user IS NULL THEN TRUE
            -- a derived maximum-throughput figure is calibrated as at full load (the fitted
            -- line at speed 0): at a per-user speed only the derivation at that speed answers,
            -- else a chip would serve more per chip at a speed than at a slower one
            WHEN origin = 'derived' AND operating_point = 'max-throughput' THEN FALSE
            ELSE coalesce(tokens_per_second_per_user >= TRY_CAST(asked_speed AS DOUBLE), FALSE)
        END AS at_speed
    FROM (
        SELECT * FROM current
        UNION ALL BY NAME
        SELECT * FROM interpolated
    )
),
-- The chip's measured frontier at the asked speed, per precision class and request shape
-- (lengths within 10%: a derived figure's 1,000/1,000 is InferenceX's 1,024/1,024), where the
-- measurements pin it: the best published or own figure at the speed (a point within 2% of
-- it, or read between two); beyond the fastest point measured, the best at that point (a chip
-- serves no more tokens per chip at a faster speed). Where every point is faster than asked
-- (lower bounds) it is not pinned: the chip may do more there.
measured AS (
    SELECT
        *,
        max(tokens_per_second_per_user) OVER point AS fastest_user,
        bool_or(at_speed) OVER point AS reached
    FROM (
        SELECT
            *,
            CASE WHEN lower(precision) LIKE 'fp8%' THEN 'fp8'
                WHEN lower(precision) IN ('bf16', 'fp16') THEN 'bf16' END AS precision_class
        FROM figures
        WHERE workload = 'inference' AND origin <> 'derived' AND within_bounds
            AND NOT superseded AND asked_speed <> 'max' AND tokens_per_second_per_user > 0
    )
    WINDOW point AS (PARTITION BY chip, model, precision_class, input_tokens, output_tokens)
),
frontier AS (
    SELECT
        chip, model, precision_class, input_tokens, output_tokens,
        max(tokens_per_second_per_chip) AS frontier_tps,
        arg_max(throughput_id, tokens_per_second_per_chip) AS frontier_id
    FROM measured
    WHERE precision_class IS NOT NULL AND input_tokens > 0 AND output_tokens > 0
        AND CASE WHEN reached
            THEN at_speed AND (throughput_id LIKE '%@%'
                OR tokens_per_second_per_user <= 1.02 * TRY_CAST(asked_speed AS DOUBLE))
            ELSE tokens_per_second_per_user >= fastest_user / 1.02 END
    GROUP BY ALL
),
-- Beyond a chip's fastest measured point (any shape or precision: what the choice rule takes
-- there), its best figure at that point: a derived figure at a faster speed is held to it, so
-- the figure chosen never rises as the asked speed rises.
ceiling AS (
    SELECT
        chip, model,
        max(tokens_per_second_per_chip) FILTER (
            WHERE tokens_per_second_per_user >= fastest / 1.02) AS ceiling_tps,
        arg_max(throughput_id, tokens_per_second_per_chip) FILTER (
            WHERE tokens_per_second_per_user >= fastest / 1.02) AS ceiling_id
    FROM (
        SELECT *, max(tokens_per_second_per_user) OVER (PARTITION BY chip, model) AS fastest
        FROM measured
    )
    WHERE TRY_CAST(asked_speed AS DOUBLE) > fastest
    GROUP BY ALL
),
-- A derived figure is never above the chip's own measured frontier at its point: the
-- derivation is an estimate where nothing is measured, not a claim against a measurement.
-- The lowest cap of each point a derived figure is at (its chip, model, precision and shape),
-- joined back to the figures.
caps AS (
    SELECT
        d.chip, d.model, d.precision, d.input_tokens, d.output_tokens,
        min(x.cap) AS cap,
        -- of caps alike, the frontier's: a figure at the asked speed before one faster
        first(x.cap_id ORDER BY x.cap, x.ceiling) AS cap_id,
        first(x.why ORDER BY x.cap, x.ceiling) AS why,
        'derived' AS origin, 'inference' AS workload  -- the figures a cap holds (capped)
    FROM (
        SELECT DISTINCT chip, model, precision, input_tokens, output_tokens
        FROM figures
        WHERE origin = 'derived' AND workload = 'inference'
    ) d
    JOIN (
        SELECT chip, model, precision_class, input_tokens, output_tokens,
            frontier_tps AS cap, frontier_id AS cap_id,
            'frontier at this speed or slower, precision and shape' AS why, FALSE AS ceiling
        FROM frontier
        UNION ALL
        SELECT chip, model, NULL, NULL, NULL, ceiling_tps, ceiling_id,
            'best figure at its fastest measured speed, which the asked one is beyond', TRUE
        FROM ceiling
    ) x ON x.chip = d.chip AND x.model = d.model AND (x.precision_class IS NULL OR (
            x.precision_class = lower(d.precision)
            AND abs(ln(x.input_tokens / d.input_tokens)) < ln(1.1)
            AND abs(ln(x.output_tokens / d.output_tokens)) < ln(1.1)))
    WHERE x.cap IS NOT NULL
    GROUP BY ALL
),
capped AS (
    SELECT
        f.* REPLACE (
            CASE WHEN c.cap < f.tokens_per_second_per_chip THEN c.cap
                ELSE f.tokens_per_second_per_chip END AS tokens_per_second_per_chip,
            CASE WHEN c.cap < f.tokens_per_second_per_chip THEN
                coalesce(f.notes || ' ', '') || 'Held to ' || round(c.cap)::BIGINT
                    || ' tokens/s per chip, the chip''s own measured ' || c.why || ' ('
                    || c.cap_id || '), from ' || round(f.tokens_per_second_per_chip)::BIGINT
                    || ' derived.'
                ELSE f.notes END AS notes
        )
    FROM figures f
    -- Every condition an equality of a figure's column and a cap's (the cap's origin and
    -- workload its own constants): a hash join. With f.origin = 'derived' written against
    -- the constant, DuckDB joined every figure to every cap by a nested loop.
    LEFT JOIN caps c ON c.origin = f.origin AND c.workload = f.workload
        AND c.chip = f.chip AND c.model = f.model
        AND c.precision IS NOT DISTINCT FROM f.precision
        AND c.input_tokens IS NOT DISTINCT FROM f.input_tokens
        AND c.output_tokens IS NOT DISTINCT FROM f.output_tokens
),
judged AS (
    SELECT
        f.*,
        m.parameters,
        flops_per_token_of(f.workload, m.parameters, m.active_parameters) AS flops_per_token,
        dense_peak_of(f.precision, c.dense_fp8_tflops, c.dense_bf16_tflops) AS peak_tflops,
        -- core/figures.py KINDS, written in when the views are created
        list_position({{figure_kinds}}, f.kind) AS kind_rank,
        -- core/figures.py KIND_CLASSES, in KINDS' order
        {{figure_classes}}[list_position({{figure_kinds}}, f.kind)] AS kind_class
    FROM capped f
    LEFT JOIN models m ON m.model = f.model
    LEFT JOIN chips c ON c.chip = f.chip
    WHERE f.tokens_per_second_per_chip > 0
),
peaks AS (
    SELECT
        *, mfu_of(tokens_per_second_per_chip, flops_per_token, peak_tflops) AS implied_mfu
    FROM judged
),
-- Each source's highest share of a chip's peak among its published figures at the asked
-- shape and precision, of every model, whichever are asked: a point read between two of a
-- curve's needs no more than the higher of them.
source_peaks AS (
    SELECT b.source, max(mfu_of(
        b.tokens_per_second_per_chip,
        flops_per_token_of(b.workload, m.parameters, m.active_parameters),
        dense_peak_of(b.precision, c.dense_fp8_tflops, c.dense_bf16_tflops)
    )) AS source_mfu
    FROM bounded b
    LEFT JOIN models m ON m.model = b.model
    LEFT JOIN chips c ON c.chip = b.chip
    WHERE b.origin = 'reference' AND b.tokens_per_second_per_chip > 0
    GROUP BY b.source
),
sourced AS (
    -- A published source one of whose figures needs more than its chip's peak is set aside
    -- whole: the figures it gives beside that one (another model, another chip) come from the
    -- same arithmetic, and none can be told right from the others.
    SELECT p.*, s.source_mfu
    FROM peaks p
    LEFT JOIN source_peaks s ON s.source IS NOT DISTINCT FROM p.source
),
ranked AS (
    SELECT
        *,
        origin = 'user' OR (
            coalesce(implied_mfu <= 1, TRUE)
            AND (origin <> 'reference' OR coalesce(source_mfu <= 1, TRUE))
        ) AS usable,
        row_number() OVER (
            PARTITION BY chip, model, workload
            ORDER BY
                usable DESC,
                at_speed DESC,
                superseded,
                kind_class,
                tokens_per_second_per_chip DESC,
                CASE WHEN source_date <> 'undated' THEN source_date END DESC NULLS LAST,
                recorded_at DESC NULLS LAST,
                kind_rank,
                throughput_id
        ) AS choice_rank
    FROM sourced
)
SELECT
    throughput_id, chip, model, workload, tokens_per_second_per_chip, kind, origin,
    batch_size, precision, sequence_length, mfu, implied_mfu, usable,
    choice_rank, usable AND choice_rank = 1 AS chosen,
    CASE
        WHEN usable THEN NULL
        WHEN implied_mfu > 1 THEN
            'needs ' || round(100 * implied_mfu)::INTEGER || '% of the chip''s dense peak'
        ELSE 'its source gives a figure needing ' || round(100 * source_mfu)::INTEGER
            || '% of its chip''s dense peak, so none of its figures is used'
    END AS set_aside_because,
    source, source_date, stated_as, notes, recorded_at, parameters, flops_per_token, peak_tflops,
    operating_point, scenario, tokens_per_second_per_user, ttft_ms, tpot_ms, input_tokens,
    output_tokens, concurrency, software, system, published_model, source_url, chips,
    asked_speed, at_speed,
    -- appended so the columns above keep their places
    ttft_bound_ms, single_stream, curve, throughput_id LIKE '%@%' AS interpolated,
    deployment, superseded,
    -- a point of a load curve measured faster than asked, which no point of its curve at or
    -- below the asked speed reads: the chip does at least this much there, maybe more
    at_speed AND asked_speed <> 'max' AND origin <> 'derived' AND concurrency IS NOT NULL
        AND throughput_id NOT LIKE '%@%'
        AND tokens_per_second_per_user > 1.02 * TRY_CAST(asked_speed AS DOUBLE)
        AS lower_bound,
    -- not a single stream, and its first token within the bound: the figure answers some
    -- speed (`cost`'s advice reads it; `throughput list` leaves it out, as `add` takes it back)
    within_bounds
FROM ranked;

CREATE OR REPLACE VIEW throughput_ranked AS FROM throughput_at();
