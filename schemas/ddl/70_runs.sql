-- ops layer, owned by the nightly job (openers/nightly/).
--
-- ops_runs: one row per nightly (or on-demand report) run; the public view is `runs`.
-- ops_inbox_files: how much of each inbox file the store already holds, so that a file
--   seen again is skipped and a file that grew is read from where the last run stopped.
-- ops_inbox_stats: a cache of file hashes by the file's stat (size, times, inode), so that
--   an unchanged file is not read again to be planned (openers/nightly/inbox.py). Only a
--   hash; what the store holds of a file is ops_inbox_files'.
-- ops_run_hands / ops_run_findings: which run first saw each stored hand and each finding.
--   A run fills them at its end, in the same transaction that closes it, so work done by
--   a run that was killed is counted by the next run that finishes, never twice.
-- ops_pending_hands: hands to audit (again): the hands not audited yet and, for the deal
--   sequence (J) rules, the deal that follows each of them at its table. Written before the
--   audit and cleared after it, so a kill in between is redone by the next run.

CREATE SEQUENCE IF NOT EXISTS ops_runs_seq START 1;

CREATE TABLE IF NOT EXISTS ops_runs (
    run_id BIGINT PRIMARY KEY DEFAULT nextval('ops_runs_seq'),
    kind VARCHAR NOT NULL,                 -- 'nightly'
    started_at TIMESTAMPTZ NOT NULL,
    ended_at TIMESTAMPTZ,
    inbox VARCHAR,                         -- JSON list of the inbox paths
    profile VARCHAR,
    fail_on VARCHAR,
    files_seen INTEGER NOT NULL DEFAULT 0,
    files_new INTEGER NOT NULL DEFAULT 0,
    files_grown INTEGER NOT NULL DEFAULT 0,
    files_skipped INTEGER NOT NULL DEFAULT 0,
    hands BIGINT NOT NULL DEFAULT 0,       -- hands first stored by this run
    duplicates BIGINT NOT NULL DEFAULT 0,
    quarantined BIGINT NOT NULL DEFAULT 0, -- quarantine rows first stored by this run
    findings_critical BIGINT NOT NULL DEFAULT 0,
    findings_major BIGINT NOT NULL DEFAULT 0,
    findings_minor BIGINT NOT NULL DEFAULT 0,
    tables_resequenced INTEGER NOT NULL DEFAULT 0,
    status VARCHAR NOT NULL,               -- running | ok | findings | failed | interrupted
    exit_code INTEGER,
    error VARCHAR,
    reports_to VARCHAR,                    -- the --reports folder the run was asked for
    report_dir VARCHAR,                    -- its report, once written
    pid INTEGER,
    host VARCHAR
);

CREATE TABLE IF NOT EXISTS ops_inbox_files (
    path VARCHAR PRIMARY KEY,              -- absolute path of the file
    read_bytes BIGINT NOT NULL,            -- bytes already read into the store
    next_line BIGINT NOT NULL,             -- line number of the first byte not yet read
    sha256 VARCHAR NOT NULL,               -- hash of those first `read_bytes` bytes
    first_run_id BIGINT,
    last_run_id BIGINT,
    updated_at TIMESTAMPTZ NOT NULL
);

-- A row says: the file at `path`, while its stat was this, was `size` bytes hashing to
-- `sha256`. Any stat field that differs (a rewrite bumps ctime even at equal size and
-- mtime) and the file is hashed again; rows of files gone from the inbox are harmless.
CREATE TABLE IF NOT EXISTS ops_inbox_stats (
    path VARCHAR PRIMARY KEY,              -- absolute path of the file
    size BIGINT NOT NULL,
    mtime_ns BIGINT NOT NULL,
    ctime_ns BIGINT NOT NULL,
    inode UBIGINT NOT NULL,
    device UBIGINT NOT NULL,
    sha256 VARCHAR NOT NULL                -- hash of the whole file (its `size` bytes)
);

-- No primary key: the claim (openers/nightly/runs.py) inserts only ids not yet there,
-- and an index over every stored hand id would cost memory that grows with the store.
CREATE TABLE IF NOT EXISTS ops_run_hands (
    hand_id VARCHAR NOT NULL,
    run_id BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS ops_run_findings (
    finding_key VARCHAR PRIMARY KEY,       -- findings.finding_key (schemas.findings.finding_key)
    run_id BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS ops_run_quarantine (
    quarantine_key VARCHAR PRIMARY KEY,    -- sha256 of file, line and raw text
    run_id BIGINT NOT NULL
);

CREATE TABLE IF NOT EXISTS ops_pending_hands (
    hand_id VARCHAR PRIMARY KEY,
    table_id VARCHAR NOT NULL,
    queued_by_run BIGINT
);

-- The public `runs` view is defined once, in 72_conservation.sql (after the columns it adds).
