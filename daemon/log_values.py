"""The event log's values (daemon/eventlog.py): an input as logged, an outbox row, a table link's
position, a referee command's reply, a checkpoint. Frozen; what the log and its group writer
(daemon/group_writer.py) take and give back."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Any

from drivers.link.reports import RxPosition
from rules.evolve import fast_init


@dataclass(frozen=True, slots=True)
class Record:
    """One logged input. ``kind``: ``"input"`` (a ``rules.inputs`` input), ``"timer"`` (a clock
    input: pause, resume, a seat's button) or ``"marker"`` (the daemon started: ``restart``)."""

    seq: int
    game: int
    kind: str
    source: str
    mono_ns: int
    wall_ns: int
    boot: str
    body: dict[str, Any]

    def to_json(self) -> dict[str, Any]:
        return {
            "seq": self.seq,
            "game": self.game,
            "kind": self.kind,
            "source": self.source,
            "mono_ns": self.mono_ns,
            "wall_ns": self.wall_ns,
            "boot": self.boot,
            "body": self.body,
        }


@dataclass(frozen=True, slots=True)
class OutboxRow:
    seq: int
    input_seq: int
    topic: str
    payload: str


@dataclass(frozen=True, slots=True)
class LinkPosition:
    """Where table link ``name``'s event stream stands in the log: ``at``, the controller's boot
    id and the seq of the last event from it whose input is committed (passed back to the link
    as it is after a restart: its ``hello`` says so)."""

    name: str
    at: RxPosition


#: one per input (and one per table event): the quick constructor (rules/evolve.py)
fast_init([Record, LinkPosition])


@dataclass(frozen=True, slots=True)
class CommandRow:
    """A referee command's ``(user, id)`` and its reply, written with the command's input."""

    user: str
    id: str
    received_ns: int
    reply: dict[str, Any]


@dataclass(frozen=True, slots=True)
class Checkpoint:
    input_seq: int
    event_seq: int
    state: Any
