-- Schema version 97: a throughput figure says the scale it was measured at: the chips of the
-- system or serving replica it was published for (inference), or of the whole run (training);
-- NULL where the document does not say. Verdicts set two figures against each other only at
-- comparable scale (docs/cost-per-token.md, "Like against like").

ALTER TABLE throughput ADD COLUMN chips INTEGER;
