"""Players and their styles: how tight or loose, how passive or aggressive they play."""

from __future__ import annotations

import random
from dataclasses import dataclass


@dataclass(frozen=True, slots=True)
class Style:
    """A playing style. ``looseness``: how often marginal hands continue; ``aggression``:
    how often strong hands bet or raise rather than check or call."""

    name: str
    looseness: float
    aggression: float


STYLES: tuple[Style, ...] = (
    Style("tight-passive", 0.15, 0.25),
    Style("tight-aggressive", 0.2, 0.75),
    Style("loose-passive", 0.55, 0.2),
    Style("loose-aggressive", 0.6, 0.7),
)
#: How common each style is at a table (rocks and calling stations outnumber maniacs).
STYLE_WEIGHTS: tuple[float, ...] = (0.35, 0.25, 0.3, 0.1)


@dataclass(slots=True)
class Player:
    """A player of one table's pool: an id, a style, the chips they own, where they sit."""

    player_id: str
    style: Style
    stack: int
    buy_in: int


class PlayerPool:
    """The regulars of one table: players come and go between deals, drawn from here."""

    def __init__(self, rng: random.Random, prefix: str, big_bet: int, size: int = 24) -> None:
        self._rng = rng
        self._prefix = prefix
        self._big_bet = big_bet
        self._next = 0
        self.waiting: list[Player] = [self._new_player() for _ in range(size)]

    def _new_player(self) -> Player:
        self._next += 1
        style = self._rng.choices(STYLES, STYLE_WEIGHTS)[0]
        # Buy-ins between 10 and 60 big bets, in whole currency units.
        buy_in = self._rng.randint(10, 60) * self._big_bet
        return Player(f"P-{self._prefix}{self._next:04d}", style, buy_in, buy_in)

    def take(self) -> Player:
        """A player who sits down now (a waiting regular, or a new face)."""
        if not self.waiting or self._rng.random() < 0.1:
            return self._new_player()
        return self.waiting.pop(self._rng.randrange(len(self.waiting)))

    def release(self, player: Player) -> None:
        """A player who gets up; busted players rebuy before they come back."""
        if player.stack < player.buy_in // 4:
            player.stack = player.buy_in
        self.waiting.append(player)
