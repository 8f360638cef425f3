"""How many hands the ingest reads, writes and commits at a time (defined once, below
:mod:`ingest.load` and :mod:`ingest.commit`, which both name them)."""

#: Hands per transaction: a row group of DuckDB's (122,880 rows). A transaction that appends
#: at least a row group's rows to a table has them written straight to the database file at
#: commit, compressed once (DuckDB's "optimistic writes"); a smaller one goes through the
#: write-ahead log, and each checkpoint compresses the table's last, partly filled row group
#: again. Measured on 100,000 hands: DuckDB's share of the ingest 2.9 CPU s in one
#: transaction against 3.6 in transactions of 20,000 hands.
BATCH_SIZE = 122_880
#: Hands handed to the writing thread at a time (a *flush*): the transaction is written in
#: parts of this size while the next part is read, so no more than two parts are held as
#: Arrow tables at once (about 25 MB each). Small flushes start DuckDB's writes early (the
#: writing thread bounds the ingest and waits for the first flush) and keep each flush's
#: tables in the processor's caches: on 100,000 hands, 5,000 against 20,000 hands per flush
#: gave the job 150 MiB less at its peak and the reading thread 0.3 to 0.8 CPU s less.
WRITE_SIZE = 5000
#: Hands per read batch: what the scanner reads and the row builders build at a time (a
#: flush is whole read batches).
READ_SIZE = 5000
