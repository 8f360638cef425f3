"""The audit's facts: what replaying a batch of hands establishes, as typed tables.

:mod:`audit.facts.tables` defines the tables; :mod:`audit.facts.replay` (compiled,
from the flat arrays of :mod:`ingest.scan.layout`) and :mod:`audit.facts.reference`
(the Python replay, from records) produce them, equal column for column.
"""

from ingest.scan.cache import configure

configure()  # where numba keeps compiled code: before any module here hands it a function
