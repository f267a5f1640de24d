-- Every event in an offer's history: new, changed (old and new price) and withdrawn.
CREATE OR REPLACE VIEW price_changes AS
WITH ordered AS (
    SELECT
        *,
        lag(price_per_hour) OVER offer AS previous_price,
        lag(valid_to) OVER offer AS previous_valid_to
    FROM price_history
    WINDOW offer AS (
        PARTITION BY provider, source, region, zone, instance_type,
                     pricing_model, term, payment, plan
        ORDER BY valid_from
    )
),
events AS (
    SELECT
        valid_from AS changed_at,
        CASE
            WHEN previous_price IS NOT NULL AND previous_valid_to = valid_from THEN 'changed'
            ELSE 'new'
        END AS change,
        provider, source, region, zone, instance_type, chip, chip_count,
        pricing_model, term, payment, plan,
        CASE WHEN previous_valid_to = valid_from THEN previous_price END AS old_price_per_hour,
        price_per_hour AS new_price_per_hour,
        payload_ref
    FROM ordered
    UNION ALL
    SELECT
        valid_to, 'withdrawn',
        provider, source, region, zone, instance_type, chip, chip_count,
        pricing_model, term, payment, plan,
        price_per_hour, NULL, payload_ref
    FROM price_history
    WHERE end_reason = 'withdrawn'
)
SELECT
    *,
    new_price_per_hour - old_price_per_hour AS change_per_hour,
    round(100 * (new_price_per_hour - old_price_per_hour) / old_price_per_hour, 2) AS change_pct
FROM events;
