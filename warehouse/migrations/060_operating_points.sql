-- Schema version 60: a throughput figure says where it was measured (its operating point:
-- max throughput, a latency or per-user-speed bound, a fixed batch, training) and where it
-- was published (system, software, URL); a figure published for one model that stands for
-- another by the rule in chipcost/data/model_equivalents.csv keeps the published name.
-- IF NOT EXISTS: a test that rewinds a warehouse to an older version drops tables only.

ALTER TABLE throughput ADD COLUMN IF NOT EXISTS operating_point VARCHAR;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS scenario VARCHAR;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS tokens_per_second_per_user DOUBLE;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS ttft_ms DOUBLE;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS tpot_ms DOUBLE;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS input_tokens INTEGER;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS output_tokens INTEGER;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS concurrency INTEGER;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS software VARCHAR;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS system VARCHAR;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS published_model VARCHAR;
ALTER TABLE throughput ADD COLUMN IF NOT EXISTS source_url VARCHAR;
