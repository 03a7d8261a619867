"""The outbox as the broker link reads it (daemon/outbox.py): events handed over from memory
after a group commit are the bytes the outbox table holds (full and public), in seq order, with
no gap and no repeat, and every case the memory cannot serve falls back to the log. Real SQLite
files, the real core and reducer."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

import daemon_kit

from daemon.eventlog import EventLog
from daemon.outbox import LogOutbox, Outgoing
from daemon.table import KIND_INPUT, Applied, Pending, TableCore
from daemon.topics import Topics

TOPIC = Topics("o").events


def _core(path: Path) -> TableCore:
    return TableCore(EventLog(path, "o"), daemon_kit.engine(), "o", checkpoint_every=0)


def _commit(core: TableCore, bodies: list[dict[str, Any]]) -> list[Applied]:
    items = [Pending(KIND_INPUT, "table", b, time.monotonic_ns(), time.time_ns(), "b")
             for b in bodies]
    out = core.submit_group(list(items))
    return [a for a in out if isinstance(a, Applied)]


def _direct(hook: Callable[[], None] | None = None) -> Callable[..., Awaitable[Any]]:
    """A database runner in this thread; ``hook`` runs after each call returns (what the loop
    may do while a real database thread's result is on its way)."""

    async def db(fn: Callable[..., Any], *args: Any) -> Any:
        result = fn(*args)
        if hook is not None:
            hook()
        return result

    return db


async def _all(outbox: LogOutbox, limit: int = 64) -> list[Outgoing]:
    got: list[Outgoing] = []
    while rows := await outbox.fetch(limit):
        got.extend(rows)
    return got


def test_memory_gives_the_bytes_of_the_log_for_a_whole_game(tmp_path: Path) -> None:
    async def go() -> None:
        core = _core(tmp_path / "o.sqlite")
        outbox = LogOutbox(_direct(), core.log, TOPIC)
        outbox.restart()
        assert await outbox.fetch(64) == []  # an empty log: memory takes over
        script = daemon_kit.game_inputs(2, seed=5)
        served: list[Outgoing] = []
        for i in range(0, len(script), 3):  # groups of three inputs, as a burst commits them
            outbox.offer(_commit(core, script[i:i + 3]))
            served.extend(await _all(outbox))
        assert outbox.from_log == 0 and outbox.from_memory == len(served)
        rows = core.log.outbox(10**6)
        assert [o.seq for o in served] == [r.seq for r in rows] == list(
            range(1, core.state.event_seq + 1))
        # the same bytes as reading the row back and projecting it (the path before)
        assert served == [Outgoing.of_row(r) for r in rows]
        # and concealed facts are concealed: a draw's tile is blanked on the public form
        draws = [o for o in served if b'"type":"draw"' in o.full]
        assert draws and all(b'"tile":null' in o.public for o in draws)

    asyncio.run(go())


def test_a_commit_offered_while_the_log_is_read_is_not_lost(tmp_path: Path) -> None:
    async def go() -> None:
        core = _core(tmp_path / "o.sqlite")
        script = daemon_kit.game_inputs(1, seed=2)
        _commit(core, script[:2])  # in the log before the link starts (never offered)
        later: list[list[Applied]] = []

        def commit_meanwhile() -> None:
            if not later:  # once: a group committed after the read, offered before its result
                later.append(_commit(core, script[2:4]))
                outbox.offer(later[0])

        outbox = LogOutbox(_direct(commit_meanwhile), core.log, TOPIC)
        outbox.restart()
        got = await _all(outbox)
        assert [o.seq for o in got] == list(range(1, core.state.event_seq + 1))
        assert outbox.from_memory > 0

    asyncio.run(go())


def test_a_gap_an_overflow_and_a_restart_read_the_log(tmp_path: Path) -> None:
    async def go() -> None:
        core = _core(tmp_path / "o.sqlite")
        memory = 40
        outbox = LogOutbox(_direct(), core.log, TOPIC, memory=memory)
        script = daemon_kit.game_inputs(2, seed=3)
        outbox.restart()
        await outbox.fetch(64)
        _commit(core, script[:2])  # not offered: the next offer leaves a gap
        outbox.offer(_commit(core, script[2:4]))
        got = await _all(outbox)
        assert [o.seq for o in got] == list(range(1, core.state.event_seq + 1))
        assert outbox.from_log > 0
        # restart (a new connection): everything not acknowledged comes again, in order
        outbox.restart()
        again = await _all(outbox)
        assert [o.seq for o in again] == [o.seq for o in got]
        outbox.ack([o.seq for o in again])
        # the deletes wait (DELETE_AFTER, one statement for all): meanwhile a read of the log
        # (a new connection) leaves the acknowledged rows out
        assert core.log.outbox_depth() == len(again)
        outbox.restart()
        assert await _all(outbox) == []
        await outbox.flush()
        assert core.log.outbox_depth() == 0
        # more events offered than memory holds while the link is away: read from the log
        first = core.state.event_seq + 1
        i = 4
        while core.state.event_seq - first < memory + 10 and i < len(script):
            outbox.offer(_commit(core, script[i:i + 4]))
            i += 4
        assert core.state.event_seq - first >= memory, "the game is long enough"
        reads = outbox.from_log
        tail = await _all(outbox)
        assert [o.seq for o in tail] == list(range(first, core.state.event_seq + 1))
        assert outbox.from_log > reads

    asyncio.run(go())


def test_acknowledged_rows_are_deleted_together_after_the_delay(tmp_path: Path) -> None:
    async def go() -> None:
        core = _core(tmp_path / "d.sqlite")
        calls: list[int] = []
        direct = _direct()

        async def db(fn: Callable[..., Any], *args: Any) -> Any:
            if fn == core.log.ack:
                calls.append(len(args[0]))
            return await direct(fn, *args)

        outbox = LogOutbox(db, core.log, TOPIC, delete_after=0.05)
        outbox.restart()
        outbox.offer(_commit(core, daemon_kit.game_inputs(1, seed=5)[:6]))
        got = await _all(outbox)
        assert len(got) >= 3
        for o in got:  # one PUBACK window after another, as the link confirms them
            outbox.ack([o.seq])
        assert calls == [] and core.log.outbox_depth() == len(got)
        await asyncio.sleep(0.2)
        assert calls == [len(got)], "one delete for every row acknowledged meanwhile"
        assert core.log.outbox_depth() == 0

    asyncio.run(go())


def test_the_public_copy_of_a_committed_event_is_the_projection_encoded() -> None:
    """``Outgoing.of_envelope`` splices the public ``data`` into the full text where that gives
    the same bytes, and encodes the projection whole where it might not (a type that changes, an
    object or a list before ``data``); ``dumps`` is ``json.dumps`` compact, UTF-8."""
    import json

    from daemon import disclosure
    from daemon.outbox import dumps

    env = {"schema": "jantaku/event/1", "seq": 42, "id": "b:42", "type": "violation",
           "ts": "2026-12-05T07:09:12.457Z", "table": "b", "game": 1, "hand": None,
           "input_seq": 43, "source": "table",
           "data": {"type": "violation", "code": "out_of_phase", "seat": None,
                    "expected": "hand_start", "actual": "dice", "input": "dice", "id": 4200}}
    cases = [env,
             {**env, "type": "furiten", "data": {"type": "furiten", "seat": 1}},  # concealed
             {**env, "source": "referee:{x}", "data": {**env["data"], "actual": {"data": [1]}}},
             {**env, "data": {**env["data"], "expected": None, "actual": None}},  # as it is
             {**env, "data": {**env["data"], "actual": "été ✓ \u2028"}}]
    for e in cases:
        text = json.dumps(e, separators=(",", ":"), ensure_ascii=False)
        assert dumps(e) == text.encode()
        out = Outgoing.of_envelope(e, text, TOPIC)
        assert out.full == text.encode() and out.seq == 42
        assert out.public == json.dumps(disclosure.public_event(e), separators=(",", ":"),
                                        ensure_ascii=False).encode()
    assert Outgoing.of_envelope(cases[3], dumps(cases[3]).decode(), TOPIC).public \
        == dumps(cases[3])
