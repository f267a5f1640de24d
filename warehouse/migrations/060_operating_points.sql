-- Schema version 60: a throughput figure says where it was measured (its operating point:
-- max throughput, a latency or per-user-speed bound, a fixed batch, training) and where it
-- was published (system, software, URL); a figure published for one model that stands for
-- another by the rule in core/data/model_equivalents.csv keeps the published name.

ALTER TABLE throughput ADD COLUMN operating_point VARCHAR;
ALTER TABLE throughput ADD COLUMN scenario VARCHAR;
ALTER TABLE throughput ADD COLUMN tokens_per_second_per_user DOUBLE;
ALTER TABLE throughput ADD COLUMN ttft_ms DOUBLE;
ALTER TABLE throughput ADD COLUMN tpot_ms DOUBLE;
ALTER TABLE throughput ADD COLUMN input_tokens INTEGER;
ALTER TABLE throughput ADD COLUMN output_tokens INTEGER;
ALTER TABLE throughput ADD COLUMN concurrency INTEGER;
ALTER TABLE throughput ADD COLUMN software VARCHAR;
ALTER TABLE throughput ADD COLUMN system VARCHAR;
ALTER TABLE throughput ADD COLUMN published_model VARCHAR;
ALTER TABLE throughput ADD COLUMN source_url VARCHAR;
