"""The compiled fast path of ``openers check``: certify clean hands without the engine.

Most hands of a day break no rule. The fast path reads a file's bytes with a
compiled scanner (:mod:`ingest.scan.scanner`) into flat integer arrays
(:mod:`ingest.scan.layout`), and compiled certifiers replay each hand strictly
(:mod:`audit.fast.certify_betting`, :mod:`audit.fast.certify_cards`) and each
table's consecutive deals (:mod:`audit.fast.certify_sequence`). A hand they
certify is one the reference engine would pass with no finding and nothing
unverifiable; every other hand (anything unusual, not only what is wrong) goes to
the reference parser and engine, which alone write findings. Certifying is
conservative by design: a false "needs the engine" costs time, never a finding.
"""

from ingest.scan.cache import configure

configure()  # before any module of the fast path hands numba a function to cache
