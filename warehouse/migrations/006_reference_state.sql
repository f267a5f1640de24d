-- What reference data (chips, reference models, reference and derived throughput) was last
-- loaded from core/data, by digest: a writer reseeds only when the files changed.
CREATE TABLE reference_state (
    name VARCHAR PRIMARY KEY,
    digest VARCHAR NOT NULL,
    loaded_at TIMESTAMPTZ NOT NULL
);
