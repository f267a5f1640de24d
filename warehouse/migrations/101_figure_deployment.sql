-- Schema version 101: a throughput figure says how its serving replica was deployed:
-- 'single-node', 'disaggregated' (prefill and decode on separate workers), each with '+mtp'
-- where speculative decoding (MTP, a draft model) served it; NULL where the document does not
-- say. Verdicts set figures of one deployment class against each other only
-- (docs/cost-per-token.md, "Like against like").

ALTER TABLE throughput ADD COLUMN deployment VARCHAR;
