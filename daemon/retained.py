"""The retained topics an input moves: ``state`` (the view model), ``state/scores`` and
``state/timers`` (docs/mqtt.md).

Kept off the path of an event to its subscribers: after a group commit the scores come from
:func:`rules.table_view.scoreboard` (a few microseconds), the timers are encoded only when they
changed, and the whole view model (``table_view(state)``, most of a millisecond, more with
many open violations) is built only when a ``state`` publication is due: at most once per
``mqtt.state_interval`` and only if the table state is another object than the one last looked
at (the reducer returns the same object for an input that changed nothing). What is published
is what the previous per-input form published: the ``state`` when its content (the view model
without its input counter) changed, the newest one at the end of the interval.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from typing import Any

from daemon import clocks as dc
from daemon.mqtt import BrokerLink
from daemon.table import TableCore, iso
from daemon.topics import SCHEMA_SCORES, SCHEMA_STATE, SCHEMA_TIMERS, Topics
from rules.table_state import TableState
from rules.table_view import scoreboard


class RetainedState:
    def __init__(
        self,
        core: TableCore,
        link: BrokerLink,
        topics: Topics,
        *,
        interval: float,
        last_event: Callable[[], dict[str, Any] | None],
        wall_ns: Callable[[], int] = time.time_ns,
        mono_ns: Callable[[], int] = time.monotonic_ns,
    ) -> None:
        self.core, self.link, self.topics = core, link, topics
        self.table_id = topics.table
        self.interval = interval
        self._last_event = last_event
        self._wall_ns, self._mono_ns = wall_ns, mono_ns
        self._state_sent: dict[str, Any] | None = None
        self._state_sent_mono = float("-inf")
        self._state_later: asyncio.TimerHandle | None = None
        #: the table state the last published or compared view model was built from
        self._state_seen: TableState | None = None
        self._scores_sent: dict[str, Any] | None = None
        self._timers_sent: dict[str, Any] | None = None
        self.views = 0  # view models built for ``state`` (benches read it)
        #: what the last scoreboard was built from (the table's ``game``, ``hand`` and
        #: ``progress``: all that rules.table_view.scoreboard reads), and that scoreboard: the
        #: retained ``state/scores`` and the drivers' displays read it after the same input
        self._board_of: tuple[object, object, object] | None = None
        self._board: dict[str, Any] = {}
        #: the clocks the last ``state/timers`` body was built from, when it could not change
        #: with time (no clock state: the body names the mode only)
        self._timers_of: dc.Clocks | None = None

    def scoreboard(self) -> dict[str, Any]:
        """What the score and honba displays show (the same values as the view model's), built
        once per table state (the reducer returns the same object for an input that changed
        nothing). Callers must not change it."""
        table = self.core.state.table
        key = (table.game, table.hand, table.progress)
        board = self._board_of
        # frozen values: the same three objects make the same scoreboard (an input the
        # reducer only notes, a rejected one, a clock event, leaves them as they are)
        if board is None or key[0] is not board[0] or key[1] is not board[1] \
                or key[2] is not board[2]:
            self._board, self._board_of = scoreboard(table), key
        return self._board

    def refresh(self) -> dict[str, Any]:
        """After a group commit (and at start): every retained topic the table feeds. Returns
        the scoreboard (:meth:`scoreboard`: the displays show it next)."""
        cs = self.core.state
        self._refresh_state()
        scores = self.scoreboard()
        # as the state: only when a number changed (the same board object: nothing did)
        if scores is not self._scores_sent and scores != self._scores_sent:
            self._scores_sent = scores
            self.link.set_retained_json(
                self.topics.scores,
                {"schema": SCHEMA_SCORES, "table": self.table_id, "seq": cs.event_seq,
                 "game": cs.game or None, "hand": cs.hand, **scores},
            )
        self.refresh_timers(changed_only=True)
        return scores

    def refresh_timers(self, *, changed_only: bool = False) -> None:
        """The clocks now; ``changed_only``: not when only the time stamp would differ (after an
        input; the health loop republishes them once a second while a hand is played)."""
        clocks = self.core.state.clocks
        if changed_only and clocks is self._timers_of:
            return  # the same clocks without a clock state: the same body
        view = dc.view_json(clocks, self._mono_ns())
        self._timers_of = clocks if clocks.state is None else None
        if changed_only and view == self._timers_sent:
            return
        self._timers_sent = view
        self.link.set_retained_json(
            self.topics.timers,
            {"schema": SCHEMA_TIMERS, "table": self.table_id, "ts": iso(self._wall_ns()), **view},
        )

    def flush(self) -> None:
        """At shutdown: the state a rate limit is holding back goes out now, not never."""
        if self._state_later is not None:
            self._state_later.cancel()
            self._state_later = None
            self._publish_if_changed()

    def _refresh_state(self) -> None:
        """Publish the retained ``state`` when the view model changed (an input that changed
        nothing, a clock event, is no reason), at most once per ``mqtt.state_interval``: a
        change inside the interval goes out at its end, as the latest view model then."""
        if self.core.state.table is self._state_seen:
            return
        wait = self._state_sent_mono + self.interval - time.monotonic()
        if wait > 0:
            if self._state_later is None:
                loop = asyncio.get_running_loop()
                self._state_later = loop.call_later(wait, self._publish_late)
            return
        self._publish_if_changed()

    def _publish_late(self) -> None:
        self._state_later = None
        self._publish_if_changed()

    def _publish_if_changed(self) -> None:
        self._state_seen = self.core.state.table
        snap = self.core.view()
        self.views += 1
        if _content(snap) == _content(self._state_sent):
            return
        cs = self.core.state
        last = self._last_event()
        self.link.set_retained_json(
            self.topics.state,
            {
                "schema": SCHEMA_STATE,
                "table": self.table_id,
                "seq": cs.event_seq,
                "game": cs.game or None,
                "hand": cs.hand,
                "input_seq": cs.input_seq,
                "ts": last["ts"] if last is not None else None,
                "state": snap,
            },
        )
        self._state_sent = snap
        self._state_sent_mono = time.monotonic()


def _content(view: dict[str, Any] | None) -> dict[str, Any] | None:
    """A view model without its input counter: what a viewer of the state could see change."""
    if view is None:
        return None
    return {k: v for k, v in view.items() if k != "seq"}
