"""The audit: replay every hand, judge it against the rule catalogue, report findings.

``audit.replay`` (the replay state), ``audit.rule`` (the rule framework),
``audit.rules`` (one module per rule), ``audit.registry`` (codes -> rules),
``audit.house`` / ``audit.profiles`` (the house profile / reading one from a file),
``audit.engine`` (running the rules), ``audit.batch`` / ``audit.store`` (files on a
process pool / the DuckDB store), ``audit.cli`` / ``audit.rules_cli`` (``openers
check``, ``audit``, ``rules``) with ``audit.output`` / ``audit.output_ci`` (check's
formats), ``audit.unreadable`` (the Q6xx codes of unreadable input) and
``audit.baseline``, plus the hand evaluator.
"""
