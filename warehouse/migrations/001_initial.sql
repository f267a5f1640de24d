-- chipcost warehouse, schema version 1.
-- Public names (documented in docs/warehouse.md): runs, source_runs, observations,
-- price_history, rejects, chips, throughput; views current_prices, per_chip_prices,
-- cost_per_token, price_changes.

CREATE TABLE runs (
    run_id           VARCHAR PRIMARY KEY,
    started_at       TIMESTAMPTZ NOT NULL,
    finished_at      TIMESTAMPTZ,
    observed_at      TIMESTAMPTZ NOT NULL,   -- when the prices were fetched
    mode             VARCHAR NOT NULL,       -- live | replay
    archive_run      VARCHAR NOT NULL,       -- run directory in the raw archive
    sample           BOOLEAN NOT NULL,       -- true when the prices are bundled sample data
    status           VARCHAR NOT NULL,       -- ok | partial | failed
    records          INTEGER NOT NULL,
    rejects          INTEGER NOT NULL,
    history_changes  INTEGER NOT NULL,
    chipcost_version VARCHAR NOT NULL
);

CREATE TABLE source_runs (
    run_id      VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    provider    VARCHAR NOT NULL,
    status      VARCHAR NOT NULL,   -- ok | skipped | failed | already_loaded
    message     VARCHAR NOT NULL,
    records     INTEGER NOT NULL,
    rejects     INTEGER NOT NULL,
    payloads    INTEGER NOT NULL,
    seconds     DOUBLE NOT NULL,
    observed_at TIMESTAMPTZ,
    archive_run VARCHAR NOT NULL,
    payload_digest VARCHAR NOT NULL,  -- sha256 over the payloads' sha256, in order
    notes       VARCHAR[] NOT NULL,
    PRIMARY KEY (run_id, source)
);

CREATE TABLE observations (
    run_id         VARCHAR NOT NULL,
    observed_at    TIMESTAMPTZ NOT NULL,
    provider       VARCHAR NOT NULL,
    source         VARCHAR NOT NULL,
    region         VARCHAR NOT NULL,
    zone           VARCHAR NOT NULL,
    instance_type  VARCHAR NOT NULL,
    chip           VARCHAR NOT NULL,
    chip_count     DOUBLE NOT NULL,
    pricing_model  VARCHAR NOT NULL,
    term           VARCHAR NOT NULL,
    payment        VARCHAR NOT NULL,
    plan           VARCHAR NOT NULL,
    price_per_hour DOUBLE NOT NULL,
    upfront        DOUBLE,
    currency       VARCHAR NOT NULL,
    sku            VARCHAR NOT NULL,
    source_url     VARCHAR NOT NULL,
    payload_ref    VARCHAR NOT NULL,
    extra          VARCHAR NOT NULL
);

-- One row per offer (as seen by one source) per distinct price.
CREATE TABLE price_history (
    provider       VARCHAR NOT NULL,
    source         VARCHAR NOT NULL,
    region         VARCHAR NOT NULL,
    zone           VARCHAR NOT NULL,
    instance_type  VARCHAR NOT NULL,
    pricing_model  VARCHAR NOT NULL,
    term           VARCHAR NOT NULL,
    payment        VARCHAR NOT NULL,
    plan           VARCHAR NOT NULL,
    chip           VARCHAR NOT NULL,
    chip_count     DOUBLE NOT NULL,
    price_per_hour DOUBLE NOT NULL,
    upfront        DOUBLE,
    currency       VARCHAR NOT NULL,
    sku            VARCHAR NOT NULL,
    source_url     VARCHAR NOT NULL,
    valid_from     TIMESTAMPTZ NOT NULL,
    valid_to       TIMESTAMPTZ,             -- NULL while current
    end_reason     VARCHAR,                 -- changed | withdrawn, once valid_to is set
    last_seen_at   TIMESTAMPTZ NOT NULL,
    first_run_id   VARCHAR NOT NULL,
    last_run_id    VARCHAR NOT NULL,
    payload_ref    VARCHAR NOT NULL         -- archived payload the price was first read from
);

CREATE TABLE rejects (
    run_id      VARCHAR NOT NULL,
    source      VARCHAR NOT NULL,
    observed_at TIMESTAMPTZ NOT NULL,
    reason      VARCHAR NOT NULL,
    sku         VARCHAR NOT NULL,
    payload_ref VARCHAR NOT NULL,
    row_json    VARCHAR NOT NULL
);

CREATE TABLE chips (
    chip                  VARCHAR PRIMARY KEY,
    vendor                VARCHAR,
    family                VARCHAR,
    memory_gb             DOUBLE,
    memory_type           VARCHAR,
    memory_bandwidth_tbps DOUBLE,
    dense_fp8_tflops      DOUBLE,
    dense_bf16_tflops     DOUBLE,
    tdp_w                 DOUBLE,
    spec_source           VARCHAR,
    spec_date             VARCHAR
);

-- Tokens per second per chip for a workload, with where the figure came from.
CREATE TABLE throughput (
    chip                  VARCHAR NOT NULL,
    model                 VARCHAR NOT NULL,
    workload              VARCHAR NOT NULL,   -- training | inference
    batch_size            INTEGER,
    precision             VARCHAR,
    sequence_length       INTEGER,
    tokens_per_second_per_chip DOUBLE NOT NULL,
    mfu                   DOUBLE,
    kind                  VARCHAR NOT NULL,   -- vendor-claim | independent | estimate | derived | measured
    source                VARCHAR NOT NULL,   -- document and date
    notes                 VARCHAR
);
