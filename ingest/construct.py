"""Build records from values the parser has already checked, without re-validating.

Per-object pydantic validation costs more than parsing the line itself, so the
parser checks the grammar and every field constraint while it reads, then builds
the frozen models here. The result is the same object ``model_validate`` would
give (``tests/ingest/test_construct_equivalence.py`` proves it on generated
records and mutated texts).
"""

from __future__ import annotations

from typing import Any, TypeVar

from pydantic import BaseModel

from schemas.records import Action, Actor, HandRecord, Seat, Section, Verb

M = TypeVar("M", bound=BaseModel)

_setattr = object.__setattr__


def _defaults(cls: type[BaseModel]) -> dict[str, Any]:
    """The default of every field that has one (the required ones are left out)."""
    return {
        name: field.get_default(call_default_factory=True)
        for name, field in cls.model_fields.items()
        if not field.is_required()
    }


_DEFAULTS: dict[type[BaseModel], dict[str, Any]] = {
    cls: _defaults(cls) for cls in (Action, Seat, HandRecord)
}
_NAMES: dict[type[BaseModel], frozenset[str]] = {
    cls: frozenset(cls.model_fields) for cls in (Action, Seat, HandRecord)
}
_ORDER: dict[type[BaseModel], tuple[str, ...]] = {
    cls: tuple(cls.model_fields) for cls in (Action, Seat, HandRecord)
}


def trusted(cls: type[M], values: dict[str, Any]) -> M:
    """An instance of ``cls`` holding ``values`` plus defaults, every field marked as set.

    ``values`` must already satisfy the model's constraints; nothing is checked here.
    Fields keep the model's declaration order, as ``model_validate`` gives them.
    """
    defaults = _DEFAULTS[cls]
    data = {name: values[name] if name in values else defaults[name] for name in _ORDER[cls]}
    return _wrap(cls, data)


def _wrap(cls: type[M], data: dict[str, Any]) -> M:
    obj = cls.__new__(cls)
    _setattr(obj, "__dict__", data)
    _setattr(obj, "__pydantic_fields_set__", set(_NAMES[cls]))
    _setattr(obj, "__pydantic_extra__", None)
    _setattr(obj, "__pydantic_private__", None)
    return obj


def make_action(
    index: int,
    line: int,
    section: Section,
    actor: Actor,
    verb: Verb,
    seat: int | None = None,
    amount: int | None = None,
    to_amount: int | None = None,
    cards: tuple[str, ...] | None = None,
    drawn: tuple[str, ...] | None = None,
    all_in: bool = False,
    side_pot: int | None = None,
    reading: str | None = None,
    note: str | None = None,
) -> Action:
    """An :class:`Action` from checked values (the parser's hot path)."""
    return _wrap(
        Action,
        {
            "index": index,
            "line": line,
            "section": section,
            "actor": actor,
            "verb": verb,
            "seat": seat,
            "amount": amount,
            "to_amount": to_amount,
            "cards": cards,
            "drawn": drawn,
            "all_in": all_in,
            "side_pot": side_pot,
            "reading": reading,
            "note": note,
        },
    )
