-- Seals (schemas/seals.py): what each writer stored, chained by hash, so that a direct
-- edit of the store is visible to `openers verify` and to the nightly job.
--
-- ops_seals: one row per seal, in chain order. A nightly run seals in the transaction that
--   closes it: the hands and quarantine rows claimed by runs first_run..last_run (digests
--   of their sha256 and keys), the audit layer as it stood (digest of ops_seal_tables),
--   the review file's chain head, and seal = sha256(previous_seal + those fields).
--   `openers audit` seals its new audit layer (kind 'audit', no runs).
-- ops_seal_tables: the audit layer of each seal, per table: findings, and a digest of the
--   table's findings and unverifiable checks.

CREATE TABLE IF NOT EXISTS ops_seals (
    seal_id            BIGINT PRIMARY KEY,     -- 1, 2, 3 ... (a gap: a seal was removed)
    kind               VARCHAR NOT NULL,       -- 'nightly' | 'audit'
    run_id             BIGINT,                 -- the sealing run (nightly)
    first_run          BIGINT,                 -- runs whose claimed hands it covers
    last_run           BIGINT,
    sealed_at          TIMESTAMPTZ NOT NULL,
    hands              BIGINT NOT NULL,
    hands_sha256       VARCHAR NOT NULL,       -- over "hand_id:sha256" lines, by hand id
    quarantined        BIGINT NOT NULL,
    quarantine_sha256  VARCHAR NOT NULL,       -- over the claimed quarantine keys
    findings           BIGINT NOT NULL,        -- in the whole audit layer
    audit_sha256       VARCHAR NOT NULL,       -- over this seal's ops_seal_tables rows
    review_events      BIGINT,                 -- the review file's chain head, if known
    review_head        VARCHAR,
    previous_seal      VARCHAR NOT NULL,       -- 64 zeros for the first
    seal               VARCHAR NOT NULL
);

CREATE TABLE IF NOT EXISTS ops_seal_tables (
    seal_id   BIGINT NOT NULL,
    table_id  VARCHAR NOT NULL,
    findings  BIGINT NOT NULL,
    sha256    VARCHAR NOT NULL,
    PRIMARY KEY (seal_id, table_id)
);

-- Public: the chain, newest last.
CREATE OR REPLACE VIEW seals AS
SELECT seal_id, kind, run_id, first_run, last_run, sealed_at, hands, quarantined, findings,
       review_events, seal, previous_seal
FROM ops_seals;
