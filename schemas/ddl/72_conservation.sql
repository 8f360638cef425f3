-- Containment and conservation (ingest). Added to tables created by earlier files, so a
-- store made before these columns existed gains them when it is next opened.
--
-- quarantine: `line` is the line the error is at (the line its message names);
--   `first_line` the hand's first line; `raw_bytes` the bytes as read when `raw_text`
--   is not exactly them (not UTF-8, or a hand cut at the size limit: its first bytes).
-- raw_files: the file's content hash and size on disk when it was read whole (a file is
--   its canonical path; the same content under two names is recognisable), and how many
--   items of its last read were about the file rather than a hand.
-- ops_runs: what the run's ingest did with every hand it met. Conservation holds when
--   ingest_hands = ingest_stored + ingest_duplicates + ingest_quarantined; ingest refuses
--   to finish (and the run fails) otherwise.

ALTER TABLE quarantine ADD COLUMN IF NOT EXISTS first_line INTEGER;
ALTER TABLE quarantine ADD COLUMN IF NOT EXISTS raw_bytes BLOB;

ALTER TABLE raw_files ADD COLUMN IF NOT EXISTS sha256 VARCHAR;
ALTER TABLE raw_files ADD COLUMN IF NOT EXISTS content_bytes BIGINT;
ALTER TABLE raw_files ADD COLUMN IF NOT EXISTS file_problems INTEGER;

ALTER TABLE ops_runs ADD COLUMN IF NOT EXISTS ingest_hands BIGINT DEFAULT 0;
ALTER TABLE ops_runs ADD COLUMN IF NOT EXISTS ingest_stored BIGINT DEFAULT 0;
ALTER TABLE ops_runs ADD COLUMN IF NOT EXISTS ingest_duplicates BIGINT DEFAULT 0;
ALTER TABLE ops_runs ADD COLUMN IF NOT EXISTS ingest_quarantined BIGINT DEFAULT 0;
ALTER TABLE ops_runs ADD COLUMN IF NOT EXISTS ingest_file_problems BIGINT DEFAULT 0;

-- The public `runs` view (its one definition): the run record, then the conservation counts.
CREATE OR REPLACE VIEW runs AS
SELECT
    run_id, kind, started_at, ended_at, inbox, profile, fail_on,
    files_seen, files_new, files_grown, files_skipped,
    hands, duplicates, quarantined,
    findings_critical, findings_major, findings_minor,
    findings_critical + findings_major + findings_minor AS findings,
    tables_resequenced, status, exit_code, error, reports_to, report_dir, pid, host,
    ingest_hands, ingest_stored, ingest_duplicates, ingest_quarantined, ingest_file_problems,
    ingest_hands = ingest_stored + ingest_duplicates + ingest_quarantined AS ingest_balanced
FROM ops_runs;
