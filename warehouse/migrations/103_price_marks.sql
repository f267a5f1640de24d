-- Schema version 103: what a price rests on, kept as long as the price. An estimate (the
-- sample's: extract/_estimate.py) and a spot price's doubt (extract/_doubts.py) were read
-- from the observations of the payload a price was first read from, which the retention
-- window prunes after 35 days: an unchanged price then lost its mark in every read. Each
-- marked record is written here as it loads (warehouse/load.py, MARKED_RECORDS: the same
-- rule), and pruned only once no price_history row rests on its payload.

CREATE TABLE price_marks (
    run_id         VARCHAR NOT NULL,
    source         VARCHAR NOT NULL,
    region         VARCHAR NOT NULL,
    instance_type  VARCHAR NOT NULL,
    pricing_model  VARCHAR NOT NULL,
    term           VARCHAR NOT NULL,
    observed_at    TIMESTAMPTZ NOT NULL,
    payload_ref    VARCHAR NOT NULL,
    estimate       VARCHAR,              -- what an estimated price rests on; NULL if none
    spot_doubt     VARCHAR               -- why a spot price is doubtful; NULL if it is not
);

INSERT INTO price_marks
SELECT run_id, source, region, instance_type, pricing_model, term, observed_at, payload_ref,
    nullif(json_extract_string(extra, '$.estimate'), ''),
    CASE WHEN pricing_model = 'spot'
        THEN json_extract_string(extra, '$.spot_not_below_on_demand') END
FROM observations
WHERE extra LIKE '%"estimate"%'
    OR (pricing_model = 'spot' AND extra LIKE '%spot_not_below_on_demand%');
