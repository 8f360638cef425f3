-- Raw layer: the text of every stored hand exactly as read (line ends as \n), and the
-- files read. Written only by ingest; one row per hand id (the first version seen).
-- The hand id is unique by ingest's own check (ingest/load.py classifies every hand
-- against the store and its batch, in the transaction that writes it), not by an index:
-- a primary key's index costs insert time, commit time and memory that grow with the
-- store. The text is compressed with zstd, chosen here: DuckDB's default tries every
-- method on each block at commit, which cost more than writing the hands.

CREATE TABLE IF NOT EXISTS raw_hands (
    hand_id      VARCHAR NOT NULL,      -- `Hand` header (or hand_id of the JSONL record)
    sha256       VARCHAR NOT NULL,      -- SHA-256 of raw_text (UTF-8)
    source_file  VARCHAR NOT NULL,      -- the file as given to `openers ingest`
    first_line   INTEGER NOT NULL,      -- line of the hand's first line in source_file
    end_offset   BIGINT  NOT NULL,      -- byte offset just after the hand in the file
    form         VARCHAR NOT NULL,      -- 'text' or 'jsonl'
    raw_text     VARCHAR NOT NULL USING COMPRESSION zstd,
    ingested_at  TIMESTAMPTZ NOT NULL
);

CREATE TABLE IF NOT EXISTS raw_files (
    source_file    VARCHAR PRIMARY KEY,
    size_bytes     BIGINT,               -- size on disk when last read
    hands_read     INTEGER NOT NULL,     -- hands seen in the last read (stored or not)
    quarantined    INTEGER NOT NULL,     -- items sent to quarantine in the last read
    resume_offset  BIGINT  NOT NULL,     -- byte offset after the last complete hand read
    resume_line    INTEGER NOT NULL,     -- line number at resume_offset
    ingested_at    TIMESTAMPTZ NOT NULL
);
