-- Every event in an offer's history: new, changed (old and new price) and withdrawn, in US
-- dollars at the ECB rate in force on the event's day. Its body is
-- views/parts/history_changes.sql on every row of the history.
CREATE OR REPLACE VIEW price_changes AS
WITH usd_per_eur AS ({{usd_per_eur}})
FROM ({{history_changes}});
