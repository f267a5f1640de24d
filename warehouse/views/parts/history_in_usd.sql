-- The rows of the history it is written on (every row of price_history in a view, the rows
-- a read has chosen in that read) in US dollars, `usd_per_eur` (warehouse/fx.py USD_PER_EUR,
-- a CTE there too) the rates. A price is stored in the currency its provider states
-- (core/record.py STORED_CURRENCIES: US dollars, and euros: Seeweb's, OVHcloud's,
-- Scaleway's); a euro price is converted at the ECB reference rate in force on the day it was
-- last seen (the latest rate published on or before that day, at most {{max_rate_age_days}}
-- days earlier, as the ECB publishes on working days), the rates warehouse/fx.py converts a
-- read into the currency asked with. A price with no such rate is left out, never shown in
-- euros under the dollar's name.
-- Written into the view price_history_usd (every row of price_history) and into the weekly
-- moves (chipcost.warehouse.changes: the rows of its window, read once for its changes and
-- its sparklines).
-- One pass of the rows, each joined to the rate in force only where it is in euros
-- (RATED_ON_ITS_DAY matches no rate to a row in dollars): a union of the dollar rows and the
-- converted euro rows scanned the history twice, and on a lake planned and ran each half on
-- its own (docs/performance.md, "Ten years of history").
SELECT h.* REPLACE (
    CASE WHEN h.currency = 'EUR' THEN h.price_per_hour * r.usd ELSE h.price_per_hour END
        AS price_per_hour,
    CASE WHEN h.currency = 'EUR' THEN h.upfront * r.usd ELSE h.upfront END AS upfront,
    'USD' AS currency
), h.currency AS stated_currency  -- the currency its provider states it in
FROM {{history}} h
LEFT JOIN usd_per_eur r ON {{rated_on_its_day}}
WHERE h.currency = 'USD' OR r.usd IS NOT NULL
