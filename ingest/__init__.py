"""Ingest: hand logs (text or JSONL, plain or .gz) into validated records and the store.

Public entry points:

- :func:`ingest.parser.parse_hand` / :func:`ingest.writer.write_hand`: one hand's text
  to a :class:`~schemas.records.HandRecord` and back (:class:`ingest.errors.HandParseError`).
- :func:`ingest.reader.read_path` / :class:`ingest.reader.HandReader`: stream a file's
  hands as parsed hands or quarantine items; resumable at a byte offset.
- :func:`ingest.load.ingest_paths`: load files, folders and globs into the DuckDB store.
- :func:`ingest.validate.validate_paths`: read without storing, list every problem.
"""
