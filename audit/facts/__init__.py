"""The audit's facts: what replaying a batch of hands establishes, as typed tables.

:mod:`audit.facts.tables` defines the tables; :mod:`audit.facts.replay` (compiled,
from the flat arrays of :mod:`ingest.scan.layout`) and :mod:`audit.facts.reference`
(the Python replay, from records) produce them, equal column for column.
"""

from pathlib import Path

from ingest.scan.cache import ensure_fresh

#: The compiled modules here, and the files outside this folder whose constants or
#: tables end up inside their compiled code.
COMPILED = ("tables.py", "replay*.py", "evaluate.py", "layout.py")
DEPENDENCIES = ("ingest/scan/layout.py", "schemas/records.py", "audit/evaluator.py",
                "audit/openers_test.py", "audit/profiles.py", "audit/replay/state.py")

ensure_fresh(Path(__file__).resolve().parent, COMPILED, DEPENDENCIES)
