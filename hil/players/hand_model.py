"""The players' own model of a seat's hand: concealed tiles, melds, river, riichi, furiten and
kuikae as the player sees them. It never reads the reducer's state, so the games played with it
stay independent of the engine they test."""

from __future__ import annotations

from dataclasses import dataclass, field

from rules import hand_shape
from rules.outcome import Meld
from rules.tiles import Tile


@dataclass
class SeatModel:
    hand: list[Tile] = field(default_factory=list)
    melds: list[Meld] = field(default_factory=list)
    river: list[Tile] = field(default_factory=list)
    riichi: bool = False
    missed: bool = False  # passed a winning tile after riichi (permanent furiten, S §51(3))
    passed: bool = False  # passed a winning tile since its own last discard (S §51(2))
    kuikae: tuple[int, ...] = ()

    def counts(self) -> hand_shape.Counts:
        return hand_shape.counts_of(self.hand)

    def held(self) -> hand_shape.Counts:
        tiles = list(self.hand)
        for m in self.melds:
            tiles.extend(m.tiles)
        return hand_shape.counts_of(tiles)

    def waits(self) -> tuple[int, ...]:
        return hand_shape.waits(self.counts(), self.held())

    def wins_on(self, tile: Tile) -> bool:
        return hand_shape.wins_on(self.counts(), tile.kind.value, self.held())

    @property
    def closed(self) -> bool:
        return all(m.kind == "ankan" for m in self.melds)
