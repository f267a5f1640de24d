-- One row every load rewrites first (chipcost.warehouse.load._claim). DuckLake lets two
-- transactions that only append commit together, so two collects loading the same archived
-- run into a lake would both load it; rewriting one row makes them conflict, and the later
-- one is rerun on a snapshot that holds the other's load, which it then finds loaded.
CREATE TABLE load_claim (claimed_at TIMESTAMPTZ NOT NULL);
INSERT INTO load_claim VALUES (now());
