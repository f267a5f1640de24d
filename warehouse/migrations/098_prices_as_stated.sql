-- A price is stored in the currency its provider states it in (Seeweb's euros); every read
-- converts it to US dollars through the view price_history_usd (warehouse/views), which the
-- reads of this version need. No table changes: the version moves so that a reader of an
-- older file asks for `chipcost migrate`, which creates the view, instead of failing on it.
SELECT 1;
