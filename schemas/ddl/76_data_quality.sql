-- Data quality of each nightly run (openers/nightly/quality.py): missing data is a finding
-- of the run, never a quiet "ok". Written in the transaction that closes the run, so a run
-- killed before it closed has none. One row per finding:
--   no-new-hands  the run stored no new hand (an empty inbox, or nothing new in it)
--   silent-table  a table expected tonight (it sent hands to the last run that received
--                 any, or the house file names it) sent no hand; table_id names it
--   low-volume    far fewer hands than usual (observed vs expected)
-- severity is 'critical' | 'major' | 'minor' (defaults, or the house file's [nightly]);
-- `openers nightly --fail-on-quality` makes the job exit 1 at or above it.

CREATE TABLE IF NOT EXISTS ops_data_quality (
    run_id    BIGINT NOT NULL,
    code      VARCHAR NOT NULL,
    severity  VARCHAR NOT NULL,
    table_id  VARCHAR,            -- silent-table: the table; NULL for the room as a whole
    observed  BIGINT,             -- hands received (0 for no-new-hands / silent-table)
    expected  BIGINT,             -- hands expected, when known
    message   VARCHAR NOT NULL,   -- one line for people
    evidence  JSON NOT NULL       -- the figures behind it
);

-- Public: one row per data-quality finding, with when its run started and how it ended.
CREATE OR REPLACE VIEW data_quality AS
SELECT q.run_id, r.started_at, r.status AS run_status, q.code, q.severity, q.table_id,
       q.observed, q.expected, q.message, q.evidence
FROM ops_data_quality q
JOIN ops_runs r USING (run_id);
