-- Schema version 10: collection attempts that loaded nothing new (every source of an archived
-- run already loaded: a second replay, or a pending run whose load had committed before its
-- process died). They are kept here, not in `runs`, so that they move no report period,
-- freshness or health: `runs` holds only runs that loaded (or failed to load) prices.
CREATE TABLE attempts (
    attempt_id       VARCHAR PRIMARY KEY,
    started_at       TIMESTAMPTZ NOT NULL,
    finished_at      TIMESTAMPTZ NOT NULL,
    mode             VARCHAR NOT NULL,       -- live | replay
    archive_run      VARCHAR NOT NULL,
    outcome          VARCHAR NOT NULL,       -- already_loaded
    sources          VARCHAR[] NOT NULL,     -- the sources it found already loaded
    chipcost_version VARCHAR NOT NULL
);
