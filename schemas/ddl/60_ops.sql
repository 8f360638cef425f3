-- Ops layer: the quarantine (public contract: file, line, hand_id, error, raw_text).
-- A hand that could not be read or validated, a conflict (same hand id, other text:
-- both versions kept, the stored one in other_*), or a file that could not be read.
-- The key makes re-ingesting the same input add nothing.

CREATE TABLE IF NOT EXISTS quarantine (
    file              VARCHAR NOT NULL,
    line              INTEGER NOT NULL,   -- first line of the hand (1 for a file problem)
    hand_id           VARCHAR,            -- when known
    kind              VARCHAR NOT NULL,   -- ingest.errors.ErrorKind value
    error             VARCHAR NOT NULL,   -- what and where: line, token, what was expected
    error_line        INTEGER NOT NULL,   -- the line the error is at
    raw_text          VARCHAR NOT NULL,
    sha256            VARCHAR NOT NULL,   -- of raw_text
    other_sha256      VARCHAR,            -- conflict: the stored version's hash
    other_file        VARCHAR,            -- conflict: where the stored version came from
    other_line        INTEGER,
    other_raw_text    VARCHAR,            -- conflict: the stored version's text
    ingested_at       TIMESTAMPTZ NOT NULL,
    PRIMARY KEY (file, line, kind, sha256)
);
