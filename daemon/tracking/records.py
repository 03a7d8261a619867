"""What the tracking fold asks the shell to log: one :class:`Entry` per record (pure).

An entry is a record of the event log as the intake takes it: ``kind`` (``input``, ``marker``,
``timer``), ``source`` (``table``, ``seat:N``, ``tracker``, ``button:N``, ``button:referee``) and
the ``body`` -- the typed ``rules.inputs`` value for an input, the JSON object of a marker or a
clock record -- with the instant a device saw it, when the device says (a GPIO edge). The input
stays that value up to the reducer; its JSON (:func:`body_json`, :func:`compact`) is written once,
by the event log, and read back once, when a restarted daemon folds the log. The fold reads its
own entries back (:func:`daemon.tracking.held.settle`) by the same function a restart uses, so
what it holds is a function of the log alone.

The record kinds below are the event log's, defined here once (``daemon/table.py``, the service
and the console import them).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from dataclasses import dataclass
from typing import Any, Final, TypeAlias

from rules.inputs import Input, input_to_compact_json
from rules.seats import Seat

KIND_INPUT: Final = "input"
KIND_MARKER: Final = "marker"
KIND_TIMER: Final = "timer"

#: the sources the tracker writes; a restart folds only these (a referee's input is not a device
#: event: the live tracker never sees it either)
TABLE: Final = "table"
TRACKER: Final = "tracker"
SEAT_PREFIX: Final = "seat:"
#: a seat's clock button, whichever device it came over (GPIO, the table link's key 0); the
#: referee's pause button. Clock records only: ``held`` never depends on them
BUTTON_PREFIX: Final = "button:"
REFEREE_BUTTON: Final = "button:referee"


def seat_source(seat: Seat) -> str:
    return f"{SEAT_PREFIX}{int(seat)}"


def button_source(seat: Seat) -> str:
    return f"{BUTTON_PREFIX}{int(seat)}"


def is_tracked(source: str) -> bool:
    """A record the tracker wrote (and folds on restore)."""
    return source in (TABLE, TRACKER) or source.startswith(SEAT_PREFIX)


#: a record's body: the typed input (kind ``input``) or a marker's / clock record's JSON object
Body: TypeAlias = Input | Mapping[str, Any]


@dataclass(frozen=True, slots=True)
class Entry:
    """One record to log, in order (``body`` is an :data:`Input` exactly when ``kind`` is
    ``input``)."""

    kind: str
    source: str
    body: Body
    mono_ns: int | None = None  # when the device saw it (None: when the intake takes it)

    def as_json(self) -> dict[str, Any]:
        """The body as the log holds it (:func:`body_json`)."""
        return body_json(self.body)


#: the input's JSON without the ``null`` fields that are its defaults: what the log holds
#: (``{"type": "hand_start"}``), the same input when read back (``input_from_json`` fills a
#: missing field with its default); a ``null`` whose default is something else keeps the whole
#: form (:func:`rules.inputs.input_to_compact_json`: the rules' own codec, in one pass)
compact: Callable[[Input], dict[str, Any]] = input_to_compact_json


def body_json(body: Body) -> dict[str, Any]:
    """What the log holds of ``body``: an input's :func:`compact` form, a marker as it is."""
    return dict(body) if isinstance(body, Mapping) else compact(body)


def input_entry(source: str, inp: Input) -> Entry:
    return Entry(KIND_INPUT, source, inp)


def marker(source: str, body: Mapping[str, Any]) -> Entry:
    return Entry(KIND_MARKER, source, dict(body))


def rejected(what: str, reason: str, **fields: Any) -> Entry:
    """A device event the tracker cannot place: never guessed into an input."""
    return marker(TRACKER, {"type": "tile_rejected", "what": what, "reason": reason, **fields})


def hold(what: str, **fields: Any) -> Entry:
    """A device event held without an input yet (a dealt tile, a riichi key, a meld tile)."""
    return marker(TRACKER, {"type": "tracker_hold", "what": what, **fields})
