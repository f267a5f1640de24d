-- Schema version 5: throughput figures carry an id, an origin and their date, so that every
-- cost says which figure it used; the user's own measurements live beside the references
-- (origin 'user') and survive the refresh from core/data/throughput.csv. The models
-- table gives the parameter counts that derived figures and implied MFU need.

ALTER TABLE throughput ADD COLUMN throughput_id VARCHAR;
ALTER TABLE throughput ADD COLUMN origin VARCHAR;        -- reference | derived | user
ALTER TABLE throughput ADD COLUMN source_date VARCHAR;   -- YYYY, YYYY-MM, YYYY-MM-DD or undated
ALTER TABLE throughput ADD COLUMN stated_as VARCHAR;     -- the figure in its document's own words and unit
ALTER TABLE throughput ADD COLUMN recorded_at TIMESTAMPTZ;  -- when a user measurement was added

CREATE TABLE models (
    model       VARCHAR PRIMARY KEY,   -- lower kebab case: llama-3-70b
    parameters  DOUBLE NOT NULL,
    source      VARCHAR NOT NULL,
    source_date VARCHAR,
    notes       VARCHAR,
    origin      VARCHAR NOT NULL       -- reference (core/data/models.csv) | user
);
