-- The views users query name the cost per million tokens `usd_per_million_tokens`, as every
-- read's csv and json do. No table changes: the version moves so that a reader of an older
-- file asks for `chipcost migrate`, which re-creates the views, instead of failing on them.
SELECT 1;
