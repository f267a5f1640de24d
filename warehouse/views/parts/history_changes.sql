-- Every event in the rows of the history it is written on (every row of price_history in a
-- view, the rows a read has chosen in that read): new, changed (old and new price) and
-- withdrawn, `usd_per_eur` (warehouse/fx.py USD_PER_EUR, a CTE there too) the rates.
-- The previous row of an offer is found by a join (its valid_to is this row's valid_from)
-- rather than a window over the whole history: a filter on changed_at then prunes the
-- scan, so a week's drift reads a week, not years (docs/performance.md).
-- In US dollars at the ECB rate in force on the event's day (the latest rate on or before
-- it, at most {{max_rate_age_days}} days earlier), the old and the new price alike: a euro
-- price's change is its own, and never moves afterwards as the rate of a later sighting
-- would move it. An event of a euro price with no such rate is left out, never shown in
-- euros under the dollar's name.
-- Written into the view price_changes (every row of price_history) and into the weekly moves
-- (chipcost.warehouse.changes: the rows of its window, which hold each change of the week and
-- the row before it).
WITH stated AS (
    SELECT
        n.valid_from AS changed_at,
        CASE WHEN p.price_per_hour IS NOT NULL THEN 'changed' ELSE 'new' END AS change,
        n.provider, n.source, n.region, n.zone, n.instance_type, n.chip, n.chip_count,
        n.pricing_model, n.term, n.payment, n.plan,
        p.price_per_hour AS old_price_per_hour, p.currency AS old_currency,
        n.price_per_hour AS new_price_per_hour, n.currency AS new_currency,
        n.payload_ref
    FROM {{history}} n
    LEFT JOIN {{history}} p  -- the same offer: core/vocabulary.py HISTORY_KEY, written in
      ON p.valid_to = n.valid_from AND {{same_offer_p_n}}
    UNION ALL
    SELECT
        valid_to, 'withdrawn',
        provider, source, region, zone, instance_type, chip, chip_count,
        pricing_model, term, payment, plan,
        price_per_hour, currency, NULL, NULL, payload_ref
    FROM {{history}}
    WHERE end_reason = 'withdrawn'
),
rated AS (
    SELECT s.*, r.usd
    FROM stated s LEFT JOIN usd_per_eur r ON r.on_day = CAST(s.changed_at AS DATE)
),
in_usd AS (
    SELECT * EXCLUDE (old_currency, new_currency, usd) REPLACE (
        CASE WHEN old_currency = 'EUR' THEN old_price_per_hour * usd
             ELSE old_price_per_hour END AS old_price_per_hour,
        CASE WHEN new_currency = 'EUR' THEN new_price_per_hour * usd
             ELSE new_price_per_hour END AS new_price_per_hour
    ),
        -- The currency the provider states the event's price in: the row it opened (a
        -- withdrawal: the row it closed).
        coalesce(new_currency, old_currency) AS stated_currency
    FROM rated
    WHERE (coalesce(old_currency, 'USD') = 'USD' AND coalesce(new_currency, 'USD') = 'USD')
       OR usd IS NOT NULL
)
SELECT
    * EXCLUDE (stated_currency),
    new_price_per_hour - old_price_per_hour AS change_per_hour,
    round(100 * (new_price_per_hour - old_price_per_hour) / old_price_per_hour, 2) AS change_pct,
    stated_currency
FROM in_usd
