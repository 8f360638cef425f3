"""The audit's facts: what replaying a batch of hands establishes, as typed tables.

:mod:`audit.facts.tables` defines the tables; :mod:`audit.facts.replay` (compiled,
from the flat arrays of :mod:`audit.fast.layout`) and :mod:`audit.facts.reference`
(the Python replay, from records) produce them, equal column for column.
"""
