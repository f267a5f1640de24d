-- Every price of price_history in US dollars, the base every read of prices stands on: its
-- body is views/parts/history_in_usd.sql (a euro price at the ECB rate in force on the day it
-- was last seen; a price with no such rate left out) on every row of the history.
CREATE OR REPLACE VIEW price_history_usd AS
WITH usd_per_eur AS ({{usd_per_eur}})
{{history_in_usd}};
