"""The referee console: a touch web app served by the daemon at ``/console/`` (docs/console.md).

Every action a referee takes in the console becomes **one** signed referee command that goes
through exactly the MQTT command path, in process: the console signs the command with the logged-in
user's configured key (the key the password derives, daemon/auth.py) and hands it to
:meth:`daemon.service.Service.handle_command`, which checks it (schema, user, HMAC, clock skew,
role, args), logs one input with ``source = "referee:<user>"`` and returns the reply the console
shows. Nothing here changes the table by any other route.

This module holds the console of one table (what it shows, what a request stands for, how a command
is signed); the HTTP API is console_routes.py (the API handlers), console_login.py (login, logout,
session) and console_http.py (request and response plumbing, CSRF, security headers).
"""

from __future__ import annotations

import asyncio
import hashlib
import json
import time
from collections.abc import Callable
from typing import Any, Final

from daemon import auth
from daemon import clocks as dc
from daemon import commands as dcmd
from daemon.mqtt import Incoming
from daemon.port import TablePort
from daemon.table import iso
from daemon.topics import SCHEMA_COMMAND
from daemon.web.console_actions import (
    ConsoleError,
    command_input,
    dry_run,
    seat_name,
    standings_rows,
    value_picked,
)
from daemon.web.console_auth import Clock, ConsoleSettings, Session, SessionStore
from daemon.web.console_history import HandHistory
from daemon.web.hub import Pulse
from daemon.web.login_gate import LoginGate
from rules.ruleset import BUILTIN
from rules.scoring.hand_values import fu_table

RECENT_INPUTS: Final = 14


class Console:
    """The console of one table: the service it commands, its sessions and its settings."""

    def __init__(
        self,
        service: TablePort,
        settings: ConsoleSettings | None = None,
        *,
        clock: Clock = time.monotonic,
        wall: Callable[[], float] = time.time,
    ) -> None:
        self.service = service
        self.settings = settings or ConsoleSettings()
        self.sessions = SessionStore(self.settings, clock)
        self.wall = wall
        # PBKDF2 derivations: bounded, one per address, quiet addresses first (login_gate.py)
        self.login_gate = LoginGate()
        self.history = HandHistory()
        self._history_lock = asyncio.Lock()
        #: fired when a group commit moved the table (daemon/web/runtime.py's feed): it wakes
        #: the console's state streams (console_stream.py)
        self.moved = Pulse()

    @property
    def referee(self) -> Any:
        return self.service.config.referee

    # ------------------------------------------------------------------ commands
    async def submit(
        self, session: Session, name: str, args: dict[str, Any], cid: str
    ) -> dict[str, Any]:
        """Sign ``name``/``args`` as the session's user and run it through the command path."""
        user = self.referee.user(session.user)
        if user is None:  # removed from the config since the login
            self.sessions.drop_user(session.user)
            raise ConsoleError("unknown_user", f"no referee user {session.user!r} on this table")
        _, key = auth.parse_key(user.key.reveal())
        topic = self.service.topics.cmd(name)
        payload = {
            "schema": SCHEMA_COMMAND,
            "id": cid,
            "user": user.name,
            "ts": round(self.wall(), 3),
            "client": f"console-{user.name}"[:64],
            "args": args,
        }
        signed = auth.sign(key, topic, payload)
        incoming = Incoming(topic, json.dumps(signed).encode(), None, None, ())
        reply = await self.service.handle_command(incoming)
        assert reply is not None  # a client is named, so there is always a reply
        body: dict[str, Any] = json.loads(reply.payload)
        return body

    # ------------------------------------------------------------------ views
    def rulesets(self) -> list[str]:
        """The builtin rulesets and the table's own (a venue's TOML path): never a path typed
        into a browser."""
        own = self.service.config.table.ruleset
        return [*BUILTIN, *([] if own in BUILTIN else [own])]

    def allowed(self, session: Session) -> list[str]:
        return list(self.referee.roles.get(session.role, ()))

    async def hand_history(self) -> list[dict[str, Any]]:
        """The current game's hands (console_history.py), fed what the log gained."""
        svc = self.service
        async with self._history_lock:
            game = svc.core.state.game
            after = self.history.position(game)
            if game > 0:
                recs = await svc.db(lambda: list(svc.eventlog.records(after=after, game=game)))
                self.history.feed(recs)
            rs = getattr(svc.core.state.table, "ruleset", None)
            stick = rs.riichi.deposit if rs is not None else 0
            return self.history.rows(stick) if game > 0 else []

    def ruleset_info(self) -> dict[str, Any] | None:
        """What the forms need to know of the game's ruleset (which draws, pao, riichi)."""
        rs = getattr(self.service.core.state.table, "ruleset", None)
        if rs is None:
            return None
        return {
            "name": rs.name,
            "family": rs.meta.family,
            "riichi": rs.riichi.enabled,
            "abortive": list(rs.draws.abortive),
            "multiple_ron": rs.calls.multiple_ron,
            "pao": list(rs.pao.yaku),
            "noten_payment": rs.draws.noten_payment,
            # the (han, fu, win kind) a hand can have, for the fu picker (hand_values.py)
            "fu": fu_table(rs).to_json() if rs.meta.family == "riichi" else None,
        }

    def mark(self) -> tuple[object, ...]:
        """What moves :meth:`state` apart from time and the session: a stream builds a state
        only when this changed (or a clock runs), so an idle table builds none."""
        cs = self.service.core.state
        svc = self.service
        return (cs.input_seq, cs.event_seq, svc.alerts(), svc.controller_notices)

    async def state(self, session: Session) -> dict[str, Any]:
        svc = self.service
        history = await self.hand_history()
        cs = svc.core.state
        snap = svc.core.view()
        last = cs.input_seq
        recent = await svc.db(
            lambda: [r for r in svc.eventlog.records(after=max(0, last - RECENT_INPUTS))]
        )
        table = cs.table
        ref_log = [
            {"action": r.action, "by": r.by, "seq": r.seq}
            for r in getattr(table, "referee_log", ())
        ]
        return {
            "table": svc.table_id,
            # a damaged log or a broker ahead of it (health "problem"): shown above everything
            "alerts": svc.alerts(),
            "user": session.user,
            "role": session.role,
            "allowed": self.allowed(session),
            "expires_in": round(self.sessions.expires_in(session)),
            "input_seq": cs.input_seq,
            "event_seq": cs.event_seq,
            "game": cs.game or None,
            "snapshot": snap,
            "clocks": dc.view_json(cs.clocks, time.monotonic_ns()),
            "recent": [
                {
                    "seq": r.seq,
                    "ts": iso(r.wall_ns),
                    "source": r.source,
                    "kind": r.kind,
                    "body": r.body,
                }
                for r in reversed(recent)
            ],
            "referee_log": ref_log,
            "rulesets": self.rulesets(),
            "default_ruleset": svc.config.table.ruleset,
            "sensorless": svc.sensorless,
            "ruleset_info": self.ruleset_info(),
            "history": history,
            # game over: the final standings with pt on the page, not only as downloads
            "final": standings_rows(table, svc.table_id) if snap.get("game_over") else None,
            # what the table's controller said about itself (a reset, a bad config.json)
            "controller": svc.controller_notices,
        }

    # ------------------------------------------------------------------ requests
    def prepare(self, session: Session, body: dict[str, Any]) -> tuple[str, dict[str, Any], Any]:
        """``(name, args, valuation)``: the command a console request stands for (a picked hand
        valued, seat names with ids joined)."""
        name = body.get("name")
        args = body.get("args", {})
        if not isinstance(name, str) or not isinstance(args, dict):
            raise ConsoleError("bad_request", "expected {name: string, args: object}")
        valuation = None
        tiles = body.get("tiles")
        table = self.service.core.state.table
        if name == "manual_result" and tiles is not None:
            args, valuation = value_picked(table, args, tiles)
        if name == "new_game":
            args = dict(args)
            ids = body.get("player_ids")
            names = args.get("names")
            if ids is not None:
                if not (isinstance(ids, list) and isinstance(names, list) and len(ids) == 4
                        and len(names) == 4 and all(isinstance(x, str) for x in ids + names)):
                    raise ConsoleError("bad_args", "player_ids: four strings beside four names")
                args["names"] = [seat_name(n, i) for n, i in zip(names, ids, strict=True)]
            # the command path's own defaults, shown in the preview (daemon/commands.py)
            args = dcmd.executed_args(name, args, sensorless=self.service.sensorless)
            if args.get("ruleset") not in self.rulesets():
                raise ConsoleError(
                    "bad_args", f"ruleset {args.get('ruleset')!r}: one of {self.rulesets()}"
                )
        return name, args, valuation

    def preview(self, session: Session, body: dict[str, Any]) -> dict[str, Any]:
        name, args, valuation = self.prepare(session, body)
        if name not in self.allowed(session):
            raise ConsoleError("forbidden", f"role {session.role!r} may not {name}")
        inp = command_input(name, args, session.user, session.role)
        out: dict[str, Any] = {
            "name": name,
            "args": args,
            "input_seq": self.service.core.state.input_seq,
        }
        if valuation is not None:
            out["valuation"] = valuation
        if inp is not None:
            out.update(dry_run(self.service.engine, self.service.core.state.table, inp))
        out["digest"] = consequence_digest(out)
        return out


#: what a preview promises (not the event numbers, which move with any input)
CONSEQUENCE: Final = (
    "name", "args", "deltas", "scores_after", "names_after", "deposits_after", "honba_after",
    "settlement", "next", "standings",
)


def consequence_digest(preview: dict[str, Any]) -> str:
    """A digest of what a preview says will happen: the confirm is refused when the same
    command would now do something else (the table moved on in between)."""
    what = {k: preview.get(k) for k in CONSEQUENCE}
    text = json.dumps(what, sort_keys=True, separators=(",", ":"), ensure_ascii=False)
    return hashlib.sha256(text.encode()).hexdigest()[:32]
