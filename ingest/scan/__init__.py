"""The compiled byte scanner: one fast reader of the hand log format, below ingest and audit.

:func:`ingest.scan.scanner.scan` reads a log's bytes into the flat arrays of
:mod:`ingest.scan.layout` (hands, seats, events, cards) in one compiled pass. It reads
only a strict canonical subset of the format; every chunk it does not read goes to the
reference parser (:mod:`ingest.parser`), the only complete reader and the judge.
"""

from ingest.scan.cache import configure

configure()  # where numba keeps compiled code: before any module here hands it a function
