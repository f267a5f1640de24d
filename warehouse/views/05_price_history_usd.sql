-- Every price of price_history in US dollars, the base every read of prices stands on. A
-- price is stored in the currency its provider states (core/record.py STORED_CURRENCIES: US
-- dollars, and euros: Seeweb's, OVHcloud's, Scaleway's); a euro price is converted here, at
-- the ECB reference rate in force on the day it was last seen (warehouse/fx.py USD_PER_EUR:
-- the latest rate published on or before that day, at most {{max_rate_age_days}} days
-- earlier, as the ECB publishes on working days), the rates warehouse/fx.py converts a read
-- into the currency asked with. A price with no such rate is left out, never shown in euros
-- under the dollar's name.
-- One scan of price_history, each row joined to the rate in force only where it is in euros
-- (RATED_ON_ITS_DAY matches no rate to a row in dollars): a union of the dollar rows and the
-- converted euro rows scanned the history twice, and on a lake planned and ran each half on
-- its own (docs/performance.md, "Ten years of history").
CREATE OR REPLACE VIEW price_history_usd AS
WITH usd_per_eur AS ({{usd_per_eur}})
SELECT h.* REPLACE (
    CASE WHEN h.currency = 'EUR' THEN h.price_per_hour * r.usd ELSE h.price_per_hour END
        AS price_per_hour,
    CASE WHEN h.currency = 'EUR' THEN h.upfront * r.usd ELSE h.upfront END AS upfront,
    'USD' AS currency
)
FROM price_history h
LEFT JOIN usd_per_eur r ON {{rated_on_its_day}}
WHERE h.currency = 'USD' OR r.usd IS NOT NULL;
