-- Audit layer: what the audit found in each stored hand. Written only by the audit
-- (`openers audit`, audit.store.audit_store), one transaction per batch; auditing a
-- hand again replaces its rows, so a re-audit never doubles them.

-- Which hands were audited, when, and with which profile. One row per hand, without a
-- primary key: audit.results.write_rows deletes a hand's rows before writing them, in one
-- transaction, and refuses a write that names a hand twice. (A key's index cost the
-- re-audit of 100,000 stored hands 2.5 s at its commit, and memory growing with the store;
-- a store made with the key keeps it, which changes nothing but that cost.)
CREATE TABLE IF NOT EXISTS audit_hands (
    hand_id         VARCHAR NOT NULL,
    table_id        VARCHAR NOT NULL,
    profile         VARCHAR NOT NULL,
    audited_at      TIMESTAMPTZ NOT NULL,
    n_findings      INTEGER NOT NULL,
    n_unverifiable  INTEGER NOT NULL
);

-- One row per finding: a rule broken at one line of one hand (J codes: the later deal).
CREATE TABLE IF NOT EXISTS audit_findings (
    hand_id       VARCHAR NOT NULL,
    table_id      VARCHAR NOT NULL,
    code          VARCHAR NOT NULL,   -- e.g. 'B101'
    name          VARCHAR NOT NULL,   -- e.g. 'over-cap-raise'
    severity      VARCHAR NOT NULL,   -- 'critical' | 'major' | 'minor' (after the profile)
    line          INTEGER,            -- line in the source file
    action_index  INTEGER,
    seat          INTEGER,
    message       VARCHAR NOT NULL,
    evidence      JSON NOT NULL,
    source        VARCHAR NOT NULL,   -- rulebook citation, e.g. 'R-DH 1'
    profile       VARCHAR NOT NULL,
    lines         INTEGER[],          -- every line the finding is about, ascending
    finding_key   VARCHAR NOT NULL    -- schemas.findings.finding_key: hand|code|index|seat
);
-- A store made before `lines` existed gains the column (NULL on its old rows).
ALTER TABLE audit_findings ADD COLUMN IF NOT EXISTS lines INTEGER[];
-- A store made before `finding_key` existed gains the column; schemas.upgrade fills it.
ALTER TABLE audit_findings ADD COLUMN IF NOT EXISTS finding_key VARCHAR;

-- One row per rule that could not be checked on a hand (cards recorded as ??).
CREATE TABLE IF NOT EXISTS audit_unverifiable (
    hand_id   VARCHAR NOT NULL,
    table_id  VARCHAR NOT NULL,
    code      VARCHAR NOT NULL,
    seat      INTEGER,
    reason    VARCHAR NOT NULL,
    profile   VARCHAR NOT NULL
);

-- Public: one row per finding.
CREATE OR REPLACE VIEW findings AS
SELECT code, severity, hand_id, table_id, line, action_index, seat, message, evidence, source,
       name, profile, coalesce(lines, CASE WHEN line IS NULL THEN [] ELSE [line] END) AS lines,
       finding_key
FROM audit_findings;

-- Public: one row per unverifiable check.
CREATE OR REPLACE VIEW unverifiable AS
SELECT code, hand_id, table_id, seat, reason, profile
FROM audit_unverifiable;
