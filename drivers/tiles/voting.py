"""Voting over camera frames (pure): a tile is reported when it wins ``need`` of the last
``window`` frames above ``threshold``.

A camera cannot tell the four copies of a kind apart, and a tile's box moves a little from frame
to frame, so votes are counted per kind: in each frame a zone holds ``n_k`` detections of kind
``k`` at or above the threshold; the zone's stable count of ``k`` is the largest ``c`` such that at
least ``need`` of the last ``window`` frames held ``c`` or more (frames not yet seen count as
empty). When a stable count rises the kind *appeared*; when it falls it *vanished*. The confidence
of a change is the mean, over the frames that voted for it, of the ``c``-th best confidence of
that kind — a measure of the evidence, not a probability of being right.

One hand over the table, a blurred frame, a tile the detector misses once: none of them changes
what is reported while ``need`` of ``window`` frames still agree.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from types import MappingProxyType

from drivers.tiles.detection import Detection
from drivers.tiles.errors import SensorConfigError
from rules.tiles import Kind


@dataclass(frozen=True, slots=True)
class VoteRule:
    need: int = 3
    window: int = 5
    threshold: float = 0.5

    def __post_init__(self) -> None:
        if not 1 <= self.need <= self.window:
            raise SensorConfigError(f"need must be 1..window, got need={self.need} "
                                    f"window={self.window}")
        if not 0.0 <= self.threshold <= 1.0:
            raise SensorConfigError(f"threshold must be 0..1, got {self.threshold}")


@dataclass(frozen=True, slots=True)
class Change:
    kind: Kind
    appeared: bool  # False: vanished
    count: int  # the stable count of this kind after the change
    confidence: float  # evidence for the copy that appeared or was last seen


FrameVotes = Mapping[Kind, tuple[float, ...]]  # per kind, confidences ≥ threshold, best first


@dataclass(frozen=True, slots=True)
class ZoneVotes:
    rule: VoteRule = field(default_factory=VoteRule)
    history: tuple[FrameVotes, ...] = ()
    stable: Mapping[Kind, int] = field(default_factory=lambda: MappingProxyType({}))

    def feed(self, detections: Sequence[Detection]) -> tuple[ZoneVotes, list[Change]]:
        frame: dict[Kind, list[float]] = {}
        for d in detections:
            if d.confidence >= self.rule.threshold:
                frame.setdefault(d.kind, []).append(d.confidence)
        votes: FrameVotes = MappingProxyType(
            {k: tuple(sorted(v, reverse=True)) for k, v in frame.items()}
        )
        history = (*self.history, votes)[-self.rule.window :]
        stable: dict[Kind, int] = {}
        changes: list[Change] = []
        for kind in sorted({k for f in history for k in f} | set(self.stable)):
            counts = sorted((len(f.get(kind, ())) for f in history), reverse=True)
            count = counts[self.rule.need - 1] if len(counts) >= self.rule.need else 0
            if count:
                stable[kind] = count
            before = self.stable.get(kind, 0)
            if count == before:
                continue
            nth = max(count, before)  # the copy that appeared, or the last one that vanished
            confs = [f[kind][nth - 1] for f in history if len(f.get(kind, ())) >= nth]
            mean = sum(confs) / len(confs) if confs else 0.0
            changes.append(Change(kind, count > before, count, mean))
        return ZoneVotes(self.rule, history, MappingProxyType(stable)), changes

    def tiles(self) -> list[tuple[Kind, int]]:
        return sorted(self.stable.items())
