-- Every event in an offer's history: new, changed (old and new price) and withdrawn.
-- The previous row of an offer is found by a join (its valid_to is this row's valid_from)
-- rather than a window over the whole history: a filter on changed_at then prunes the
-- scan, so a week's drift reads a week, not years (docs/performance.md).
CREATE OR REPLACE VIEW price_changes AS
WITH events AS (
    SELECT
        n.valid_from AS changed_at,
        CASE WHEN p.price_per_hour IS NOT NULL THEN 'changed' ELSE 'new' END AS change,
        n.provider, n.source, n.region, n.zone, n.instance_type, n.chip, n.chip_count,
        n.pricing_model, n.term, n.payment, n.plan,
        p.price_per_hour AS old_price_per_hour,
        n.price_per_hour AS new_price_per_hour,
        n.payload_ref
    FROM price_history_usd n
    LEFT JOIN price_history_usd p  -- the same offer: core/vocabulary.py HISTORY_KEY, written in
      ON p.valid_to = n.valid_from AND {{same_offer_p_n}}
    UNION ALL
    SELECT
        valid_to, 'withdrawn',
        provider, source, region, zone, instance_type, chip, chip_count,
        pricing_model, term, payment, plan,
        price_per_hour, NULL, payload_ref
    FROM price_history_usd
    WHERE end_reason = 'withdrawn'
)
SELECT
    *,
    new_price_per_hour - old_price_per_hour AS change_per_hour,
    round(100 * (new_price_per_hour - old_price_per_hour) / old_price_per_hour, 2) AS change_pct
FROM events;
