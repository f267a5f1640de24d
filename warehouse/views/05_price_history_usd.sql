-- Every price of price_history in US dollars, the base every read of prices stands on. A
-- price is stored in the currency its provider states (core/record.py STORED_CURRENCIES: US
-- dollars, and euros: Seeweb's, OVHcloud's, Scaleway's); a euro price is converted here, at
-- the ECB reference rate in force on the day it was last seen (warehouse/fx.py USD_PER_EUR:
-- the latest rate published on or before that day, at most {{max_rate_age_days}} days
-- earlier, as the ECB publishes on working days), the rates warehouse/fx.py converts a read
-- into the currency asked with. A price with no such rate is left out, never shown in euros
-- under the dollar's name.
CREATE OR REPLACE VIEW price_history_usd AS
WITH usd_per_eur AS ({{usd_per_eur}}),
in_euros AS (
    SELECT h.*, r.usd
    FROM (SELECT * FROM price_history WHERE currency = 'EUR') h
    JOIN usd_per_eur r ON {{rated_on_its_day}}
)
SELECT * FROM price_history WHERE currency = 'USD'
UNION ALL BY NAME
SELECT * EXCLUDE (usd) REPLACE (
    price_per_hour * usd AS price_per_hour, upfront * usd AS upfront, 'USD' AS currency
)
FROM in_euros
WHERE usd IS NOT NULL;
