"""How many hands the ingest reads, writes and commits at a time (defined once, below
:mod:`ingest.load` and :mod:`ingest.commit`, which both name them)."""

#: Hands per transaction at most (a transaction commits before a flush would take it past them,
#: ``ingest.commit.Transaction``): a row group of DuckDB's (122,880 rows). A transaction that
#: appends at least a row group's rows to a table has them written straight to the database file at
#: commit, compressed once (DuckDB's "optimistic writes"); a smaller one goes through the
#: write-ahead log, and each checkpoint compresses the table's last, partly filled row group again.
#: Measured on 100,000 hands: DuckDB's share of the ingest 2.9 CPU s in one transaction against 3.6
#: in transactions of 20,000 hands. The commit compresses what is left in partial row groups (on a
#: night under a row group: every raw_hands and stg_hands row, raw_text's zstd most of it) and, the
#: log it would write being over DuckDB's checkpoint threshold, checkpoints instead of writing the
#: WAL: each row is compressed and written once. DuckDB's bulk-load settings change none of this for
#: the better (round 10, measured with ``benchmarks/bench_store_floor.py --set``).
BATCH_SIZE = 122_880
#: Hands handed to the writing thread at a time (a *flush*): the transaction is written in
#: parts of this size while the next part is read, so no more than two parts are held as
#: Arrow tables at once (about 100 MB each). Smaller flushes would start DuckDB's writes
#: sooner (the writing thread bounds the ingest and waits for the first flush) and hold
#: less (5,000: 150 MiB less at the peak of a 100,000-hand night), but every flush probes
#: the store's hand ids twice (its sorting, and the insert's anti-join of ``raw_hands``), a
#: scan of every stored id each: about 30 ms each on a million-hand store, so four times
#: the flushes cost a store with a history more than they save.
WRITE_SIZE = 20_000
#: Hands per read batch: what the scanner reads and the row builders build at a time (a
#: flush is whole read batches).
READ_SIZE = 5000
