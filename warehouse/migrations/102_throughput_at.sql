-- The reads choose each chip's throughput figure at the asked point with the table macros
-- throughput_at and cost_per_token_at (warehouse/views/35_throughput_ranked.sql,
-- 40_cost_per_token.sql), their arguments the point, where the views read DuckDB session
-- variables before, and leave out restricted regions with the macro restricted_region
-- (01_restricted_region.sql). No table changes: the version moves so that a reader of an older file asks
-- for `chipcost migrate`, which creates the macros, instead of failing on them.
SELECT 1;
