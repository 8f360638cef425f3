"""Which rule codes each certifier proves silent on the hands it certifies.

A certificate is only as good as the rules it was written against. A rule added to
the registry (or a code renamed) that no certifier covers would silently never run
on certified hands; so :func:`covers` is checked before the fast path is used, and
the fast path steps aside (every hand goes to the engine) for a profile that runs
any code not listed here. A test keeps this list equal to the registry, so adding a
rule means deciding, in the same change, how the fast path treats it.
"""

from __future__ import annotations

from audit.profiles import Profile
from audit.registry import hand_rules, sequence_rules

#: ``certify_betting``: betting, the money and the false-opener procedure.
BETTING = ("B101", "B102", "B103", "B104", "B105", "B106", "B107", "B108",
           "O203", "O204", "O205", "O206", "O211", "P402", "P403")
#: ``certify_cards``: openers, the deal and the draw, the showdown.
CARDS = ("O201", "O202", "O207", "O208", "O209", "O210",
         "D301", "D302", "D303", "D304", "D305", "D306", "D307", "D308", "P401", "P404")
#: ``certify_sequence``: each deal against the one before it at its table.
SEQUENCE = ("J501", "J502", "J503", "J504", "J505", "J506", "J507", "J508")

COVERED: frozenset[str] = frozenset(BETTING + CARDS + SEQUENCE)


def covers(profile: Profile) -> bool:
    """Whether every rule ``profile`` runs is one the certifiers prove silent."""
    running = {r.code for r in hand_rules(profile)} | {r.code for r in sequence_rules(profile)}
    return running <= COVERED
