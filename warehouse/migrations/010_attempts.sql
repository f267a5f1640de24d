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

-- Warehouses written before this version hold such attempts as runs: a `runs` row with 0
-- records whose every source said already_loaded. They move here; already_loaded rows
-- go from source_runs (their sources' real loads are in the runs that loaded them).
INSERT INTO attempts
SELECT r.run_id, r.started_at, coalesce(r.finished_at, r.started_at), r.mode, r.archive_run,
       'already_loaded', list(s.source ORDER BY s.source), r.chipcost_version
FROM runs r JOIN source_runs s USING (run_id)
GROUP BY r.run_id, r.started_at, r.finished_at, r.mode, r.archive_run, r.chipcost_version
HAVING bool_and(s.status = 'already_loaded');

DELETE FROM source_runs WHERE status = 'already_loaded';

DELETE FROM runs WHERE run_id IN (SELECT attempt_id FROM attempts);
