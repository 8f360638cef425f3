"""Open the DuckDB store and bring its schema up to date.

The schema is the ``ddl/NN_layer.sql`` files, applied in file-name order every
time the store is opened for writing. Every statement is idempotent
(``CREATE ... IF NOT EXISTS``, ``CREATE OR REPLACE VIEW``), so opening an
existing store changes no data, except what :mod:`schemas.upgrade` fills in on rows an
earlier version wrote.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

import duckdb

from schemas.upgrade import upgrade_rows

DDL_DIR = Path(__file__).with_name("ddl")
DEFAULT_DB = "openers.duckdb"

__all__ = ["DDL_DIR", "DEFAULT_DB", "apply_ddl", "connect", "ddl_files", "empty_table",
           "transaction"]


def ddl_files() -> list[Path]:
    """The DDL files, in the order they are applied."""
    return sorted(DDL_DIR.glob("*.sql"), key=lambda p: p.name)


def apply_ddl(con: duckdb.DuckDBPyConnection) -> None:
    """Apply every DDL file to ``con``, then fill old rows' new columns, in one transaction."""
    with transaction(con):
        for path in ddl_files():
            con.execute(path.read_text(encoding="utf-8"))
        upgrade_rows(con)


def connect(path: str | Path = DEFAULT_DB, read_only: bool = False) -> duckdb.DuckDBPyConnection:
    """Open the store at ``path`` (``":memory:"`` for a throw-away one).

    Opened for writing, the schema is created or completed first; opened
    read-only, the store is used as it is (it must already exist).
    """
    target = str(path)
    if not read_only and target != ":memory:":
        Path(target).parent.mkdir(parents=True, exist_ok=True)
    con = duckdb.connect(target, read_only=read_only)
    if not read_only:
        apply_ddl(con)
    return con


def empty_table(con: duckdb.DuckDBPyConnection, table: str) -> None:
    """Remove every row of ``table`` (of the store's own schema), inside the caller's
    transaction, by dropping it and creating it again from the definition the store holds.

    DuckDB takes each key out of a primary key's index when a ``DELETE`` commits: emptying
    the audit queue of a million-hand night that way cost 22 s of its closing commit, a
    re-created table nothing. The table must be one no foreign key refers to.
    """
    rows = con.execute(
        "SELECT sql FROM duckdb_tables() WHERE database_name = current_database() "
        "AND schema_name = current_schema() AND table_name = ?", [table]).fetchall()
    if not rows:
        raise ValueError(f"no table {table!r} in the store")
    con.execute(f'DROP TABLE "{table}"')
    con.execute(rows[0][0])


@contextmanager
def transaction(con: duckdb.DuckDBPyConnection) -> Iterator[duckdb.DuckDBPyConnection]:
    """Run a block in one transaction: committed if it ends, rolled back if it raises."""
    con.begin()
    try:
        yield con
    except BaseException:
        con.rollback()
        raise
    con.commit()
