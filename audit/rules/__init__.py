"""The audit rules: one module per rule, named ``<code>_<name>.py`` (e.g. ``b101_over_cap_raise``).

Each module defines one :class:`~audit.rule.Rule` (or ``SequenceRule``) subclass;
``audit/registry.py`` lists them all, code by code.
"""
