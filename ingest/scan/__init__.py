"""The compiled byte scanner: one fast reader of the hand log format, below ingest and audit.

:func:`ingest.scan.scanner.scan` reads a log's bytes into the flat arrays of
:mod:`ingest.scan.layout` (hands, seats, events, cards) in one compiled pass. It reads
only a strict canonical subset of the format; every chunk it does not read goes to the
reference parser (:mod:`ingest.parser`), the only complete reader and the judge.
"""

from pathlib import Path

from ingest.scan.cache import ensure_fresh

#: The scanner's compiled modules, and the files outside this folder they inline.
COMPILED = ("layout.py", "chunks.py", "hand.py", "header.py", "lines.py", "scanner.py",
            "tokens.py")
DEPENDENCIES = ("schemas/records.py",)

ensure_fresh(Path(__file__).resolve().parent, COMPILED, DEPENDENCIES)
