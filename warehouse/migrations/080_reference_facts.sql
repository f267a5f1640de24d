-- Schema version 80: facts some sources read beside prices, kept as the sources gave them.
-- fx_rates: the ECB's euro reference rates, one row per day and currency (how many units of
-- the currency one euro bought), from which any two currencies convert on a price's own
-- day. spot_interruptions: AWS's Spot Instance Advisor, the frequency of interruption
-- bucket and the savings over on-demand per region, instance type and operating system, as
-- last published. A later run's row for the same key replaces the earlier one.

CREATE TABLE fx_rates (
    day          DATE NOT NULL,
    currency     VARCHAR NOT NULL,      -- ISO 4217 code: USD, GBP, JPY, ...
    per_eur      DOUBLE NOT NULL,       -- units of the currency per euro
    source       VARCHAR NOT NULL,
    observed_at  TIMESTAMPTZ NOT NULL,  -- when the file was fetched
    payload_ref  VARCHAR NOT NULL       -- the archived file the rate was read from
);

CREATE TABLE spot_interruptions (
    region              VARCHAR NOT NULL,
    instance_type       VARCHAR NOT NULL,
    os                  VARCHAR NOT NULL,     -- Linux | Windows
    interruption        VARCHAR NOT NULL,     -- AWS's bucket label: <5%, 5-10%, ..., >20%
    interruption_max    DOUBLE NOT NULL,      -- the bucket's upper bound, percent (100: >20%)
    savings_percent     DOUBLE,               -- savings over on-demand, percent
    source              VARCHAR NOT NULL,
    observed_at         TIMESTAMPTZ NOT NULL,
    payload_ref         VARCHAR NOT NULL
);
