"""Seeded mutants of certified hands: a certificate must survive every one of them.

Each clean hand the card certifier certifies is changed the way a dealer or a table
system goes wrong (a card, a reading, a collector, a split pot, a dropped proof, the
opener's deal, the draw order or counts, a split declared, a header, or known cards
written ``??`` anywhere), read again by the reference parser (mutants it rejects are
dropped) and certified again: whatever is still certified must be clean under the
certifier's codes for the reference engine.
"""

from __future__ import annotations

import random

import pytest

from audit.engine import audit_hand
from ingest.parser import parse_hand
from ingest.writer import write_hand
from schemas.records import HandRecord
from tests.audit.fast.corpus import corpus, profile
from tests.audit.fast.test_certify_cards import certify, mine
from tests.audit.mutants import HIDING_PLACES, hide, mutate


@pytest.mark.parametrize("name", ("robert", "foster", "laws"))
def test_mutants_of_certified_hands(name: str) -> None:
    prof = profile(name)
    records = corpus(name, 600, 7, 0.0, 0.0).records
    base = [r for r, ok in zip(records, certify(records, prof), strict=True) if ok]
    assert len(base) > 300
    rng = random.Random(f"mutants-{name}")
    mutants: list[HandRecord] = []
    for record in base:
        text = write_hand(record)
        for _ in range(4):
            changed = mutate(text, rng)
            if rng.random() < 0.3:
                changed = mutate(changed, rng)
            if changed == text:
                continue
            try:
                mutants.append(parse_hand(changed))
            except Exception:  # a mutant the reader rejects is no hand
                continue
    assert len(mutants) > 1000
    certified = certify(mutants, prof)
    refused: list[HandRecord] = []
    for mutant, ok in zip(mutants, certified, strict=True):
        if not ok:
            refused.append(mutant)
            continue
        reported = mine(audit_hand(mutant, prof))
        assert not reported, (write_hand(mutant), reported)
    print(f"{name}: {len(mutants)} mutants, {int(certified.sum())} certified")
    # The mutants must matter: many refused ones break one of the certifier's rules.
    sample = random.Random(1).sample(refused, min(300, len(refused)))
    assert sum(1 for m in sample if mine(audit_hand(m, prof))) > len(sample) // 3


@pytest.mark.parametrize("name", ("robert", "foster"))
def test_unknown_cards_in_every_position(name: str) -> None:
    prof = profile(name)
    records = corpus(name, 600, 7, 0.0, 0.0).records
    base = [r for r, ok in zip(records, certify(records, prof), strict=True) if ok]
    rng = random.Random(f"unknown-{name}")
    mutants: list[tuple[str, HandRecord]] = []
    for record in base:
        text = write_hand(record)
        for place in rng.sample(sorted(HIDING_PLACES), 4):
            changed = hide(text, place, rng)
            if changed == text:
                continue
            try:
                mutants.append((place, parse_hand(changed)))
            except Exception:  # a mutant the reader rejects is no hand
                continue
    assert len(mutants) > 600
    certified = certify([m for _, m in mutants], prof)
    tried: dict[str, int] = {}
    passed: dict[str, int] = {}
    for (place, mutant), ok in zip(mutants, certified, strict=True):
        tried[place] = tried.get(place, 0) + 1
        if ok:
            passed[place] = passed.get(place, 0) + 1
            reported = mine(audit_hand(mutant, prof))
            assert not reported, (place, write_hand(mutant), reported)
    print(name, {p: f"{passed.get(p, 0)}/{n}" for p, n in sorted(tried.items())})
    # Every position was tried, and unknown cards of hands nobody needs stay certified.
    assert {"opener's deal", "collector's deal", "a shown hand", "discards", "drawn cards",
            "a burn", "a proof"} <= set(tried)
    assert passed.get("a burn", 0) > 0.8 * tried["a burn"]
    assert passed.get("a deal", 0) > 0
    assert passed.get("a shown hand", 0) == 0
