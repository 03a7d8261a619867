"""Group commit (docs/daemon.md "Durability", "The input path"): the core's one-transaction group,
and the pruning of referee command ids past the freshness window. Real SQLite files."""

from __future__ import annotations

import asyncio
import time
from collections.abc import Callable
from pathlib import Path
from typing import Any

import daemon_kit
import pytest
from conftest import running_service

from daemon.config import Config
from daemon.eventlog import EventLog
from daemon.intake import Intake
from daemon.log_values import LinkPosition
from daemon.table import Applied, CommandStamp, Pending, Repeated, TableCore
from daemon.tracking.records import KIND_MARKER
from drivers.link.reports import RxPosition
from hil.kit import commit_one


def _fault_body(code: int) -> dict[str, Any]:
    """A table fault's marker body (no rules state needed to fold it)."""
    return {"type": "table_fault", "code": code, "name": "unknown", "seat": None}


def _fault(code: int, **kw: Any) -> Pending:
    return Pending(KIND_MARKER, "table", _fault_body(code), time.monotonic_ns(), time.time_ns(),
                   "b", **kw)


def _core(path: Path) -> TableCore:
    return TableCore(EventLog(path, "g"), daemon_kit.engine(), "g", checkpoint_every=0)


def test_a_group_is_one_transaction_with_its_link_position(tmp_path: Path) -> None:
    core = _core(tmp_path / "g.sqlite")
    out = core.submit_group([_fault(1), _fault(2, link=LinkPosition("table", RxPosition(0xC0, 1))),
                             LinkPosition("table", RxPosition(0xC0, 2))])
    assert [type(o) for o in out] == [Applied, Applied, type(None)]
    assert [r.seq for r in core.log.records()] == [1, 2]
    assert core.log.link_position("table") == LinkPosition("table", RxPosition(0xC0, 2))


def test_a_group_that_fails_leaves_nothing_and_the_state_unchanged(tmp_path: Path) -> None:
    core = _core(tmp_path / "g.sqlite")
    core.submit_group([_fault(1)])
    before = core.state

    def broken(applied: Applied) -> dict[str, Any]:
        raise OSError("disk gone")

    stamp = CommandStamp("alice", "c1", time.time_ns(), broken)
    with pytest.raises(OSError):
        core.submit_group([_fault(2, link=LinkPosition("table", RxPosition(0xC0, 5))),
                           _fault(3, command=stamp)])
    assert core.state == before
    assert [r.seq for r in core.log.records()] == [1]
    assert core.log.link_position("table") is None
    assert core.log.command_reply("alice", "c1") is None


def test_the_same_command_twice_in_a_group_is_applied_once(tmp_path: Path) -> None:
    core = _core(tmp_path / "g.sqlite")

    def reply(applied: Applied) -> dict[str, Any]:
        return {"status": "ok", "input_seq": applied.record.seq}

    stamp = CommandStamp("alice", "c1", time.time_ns(), reply)
    first, again = core.submit_group([_fault(1, command=stamp), _fault(1, command=stamp)])
    assert isinstance(first, Applied) and first.reply == {"status": "ok", "input_seq": 1}
    assert again == Repeated({"status": "ok", "input_seq": 1})
    assert core.log.last_seq() == 1


async def test_command_ids_are_pruned_past_the_freshness_window(
    broker: daemon_kit.Broker, make_config: Callable[..., Config]
) -> None:
    config = make_config(broker.port)
    skew_ns = int(config.referee.max_skew_seconds * 1e9)
    now = time.time_ns()
    log = EventLog(config.eventlog.path, config.table.id)
    log.save_command("alice", "old", now - 2 * skew_ns - 61 * 10**9, {"status": "ok"})
    log.save_command("alice", "fresh", now - skew_ns, {"status": "ok"})  # could still be replayed
    log.close()
    async with running_service(config) as service:
        async with asyncio.timeout(10):
            while await service.db(service.eventlog.command_reply, "alice", "old") is not None:
                await asyncio.sleep(0.05)
        assert await service.db(service.eventlog.command_reply, "alice", "fresh") is not None


@pytest.mark.parametrize("ruleset", ["wmc", "saikouisen", "mleague"])
def test_every_rulesets_state_checkpoints(tmp_path: Path, ruleset: str) -> None:
    """Rulesets and inputs keep read-only mappings (MappingProxyType): a state holding them must
    still pickle, or checkpoints are disabled and every restart replays the whole log."""
    path = tmp_path / "c.sqlite"
    core = TableCore(EventLog(path, "c"), daemon_kit.engine(), "c", checkpoint_every=5)
    for body in daemon_kit.game_inputs(1, ruleset=ruleset)[:12]:
        commit_one(core, "input", "table", body, time.monotonic_ns(), time.time_ns(), "b")
    assert core.checkpoint() is True
    got = core.log.load_checkpoint(core.engine.code, core.state.input_seq)
    assert got is not None
    assert got.state == core.state


def test_the_outbox_hears_of_a_commit_before_its_submitter_is_answered(tmp_path: Path) -> None:
    """The link's ACK is written after the events were handed to the broker link (the outbox
    task is woken first), and still after the commit."""
    async def go() -> None:
        core = _core(tmp_path / "g.sqlite")
        seen: list[str] = []
        subs: list[asyncio.Future[Applied]] = []

        async def db(fn: Callable[..., Any], *args: Any) -> Any:
            return fn(*args)

        def committed(applied: list[Applied]) -> None:
            assert core.log.records(), "after the commit"
            assert not subs[0].done(), "before the submitter is answered"
            seen.append(f"committed {len(applied)}")

        async def after(applied: list[Applied]) -> None:
            seen.append("applied")

        intake = Intake(core, db, "b", on_committed=committed, on_applied=after)
        task = asyncio.create_task(intake.run())
        sub = intake.put(KIND_MARKER, "table", _fault_body(1))
        subs.append(sub)
        sub.add_done_callback(lambda _: seen.append("answered"))
        await asyncio.wait_for(sub, 5)
        await asyncio.sleep(0)
        task.cancel()
        assert seen[0] == "committed 1" and "answered" in seen

    asyncio.run(go())


def test_one_bad_item_is_refused_alone_and_the_rest_of_its_group_commits(tmp_path: Path) -> None:
    """A group with an item that raises (its command's reply cannot be built) rolls back whole;
    the intake then commits its items one by one: the bad one is refused with its own error, the
    others are logged and answered, in order."""
    async def go() -> None:
        core = _core(tmp_path / "g.sqlite")

        async def db(fn: Callable[..., Any], *args: Any) -> Any:
            return fn(*args)

        def broken(applied: Applied) -> dict[str, Any]:
            raise KeyError("no such field")

        intake = Intake(core, db, "b")
        items = [_fault(1), _fault(2, command=CommandStamp("alice", "c1", 0, broken)), _fault(3),
                 LinkPosition("table", RxPosition(0xC0, 9))]
        subs = [await intake.enqueue(i) for i in items]  # waiting together: one group
        runner = asyncio.create_task(intake.run())
        try:
            results = await asyncio.gather(*(s.done for s in subs), return_exceptions=True)
        finally:
            runner.cancel()
        assert isinstance(results[1], KeyError)
        assert isinstance(results[0], Applied) and isinstance(results[2], Applied)
        assert results[3] is None
        assert [r.body["code"] for r in core.log.records()] == [1, 3]
        assert core.log.link_position("table") == LinkPosition("table", RxPosition(0xC0, 9))
        assert core.log.command_reply("alice", "c1") is None
        assert intake.queue.qsize() == 0 and intake.waiting == 0

    asyncio.run(go())


def test_an_idle_intake_commits_a_drivers_input_in_its_task_a_busy_one_queues_it(
        tmp_path: Path) -> None:
    """Nothing queued, nothing being committed: a driver's input is committed by the driver's
    own task (no hand-off to the intake's); while that commit waits for the disk, the next input
    queues behind it and the intake's task commits it after, in order; the queue's count of
    unfinished inputs stays right (the service's shutdown joins it)."""
    async def go() -> None:
        core = _core(tmp_path / "g.sqlite")
        disk = asyncio.Event()

        async def db(fn: Callable[..., Any], *args: Any) -> Any:
            await disk.wait()  # a commit on the database thread
            return fn(*args)

        intake = Intake(core, db, "b")
        runner = asyncio.create_task(intake.run())
        await asyncio.sleep(0)
        disk.set()
        first = await intake.submit(KIND_MARKER, "table", _fault_body(1))
        assert intake.inline == 1 and first.record.seq == 1
        disk.clear()
        second = asyncio.create_task(intake.submit(KIND_MARKER, "table", _fault_body(2)))
        await asyncio.sleep(0.01)
        third = asyncio.create_task(intake.submit(KIND_MARKER, "table", _fault_body(3)))
        await asyncio.sleep(0.01)
        assert intake.inline == 2 and intake.waiting == 2  # the one committing, the one behind
        disk.set()
        done = await asyncio.wait_for(asyncio.gather(second, third), 5)
        assert [a.record.seq for a in done] == [2, 3]
        assert intake.inline == 2
        await asyncio.wait_for(intake.queue.join(), 5)
        runner.cancel()
        assert [r.body["code"] for r in core.log.records()] == [1, 2, 3]

    asyncio.run(go())


def test_inputs_behind_a_drivers_commit_that_the_disk_refuses_keep_their_order(
        tmp_path: Path) -> None:
    """A commit made by the driver's task is refused by the disk and retried; what arrives
    meanwhile is queued, and the intake's task (holding the first of them) commits them after
    it, in arrival order: the retry does not take later inputs ahead of the one it holds."""
    async def go() -> None:
        import sqlite3

        core = _core(tmp_path / "g.sqlite")
        refusals = [sqlite3.OperationalError("database or disk is full")]

        async def db(fn: Callable[..., Any], *args: Any) -> Any:
            if refusals:
                raise refusals.pop()
            return fn(*args)

        intake = Intake(core, db, "b")
        runner = asyncio.create_task(intake.run())
        await asyncio.sleep(0)
        first = asyncio.create_task(intake.submit(KIND_MARKER, "table", _fault_body(1)))
        await asyncio.sleep(0.01)  # refused once: retried in 0.1 s
        later = [asyncio.create_task(intake.submit(KIND_MARKER, "table", _fault_body(c)))
                 for c in (2, 3, 4)]
        await asyncio.wait_for(asyncio.gather(first, *later), 5)
        runner.cancel()
        assert intake.inline == 1
        assert [r.body["code"] for r in core.log.records()] == [1, 2, 3, 4]

    asyncio.run(go())


def test_an_inline_commit_answers_its_submitter_and_frees_the_turn_whatever_fails_after_it(
        tmp_path: Path, caplog: pytest.LogCaptureFixture) -> None:
    """A driver's own commit: what fails after its input is answered (the retained state, a
    display) is logged, not the submitter's failure; what fails before (handing the events on)
    is; either way the next input commits, inline again (the commit turn is free)."""
    async def go() -> None:
        core = _core(tmp_path / "g.sqlite")
        fail_after, fail_before = [OSError("display gone")], [RuntimeError("outbox gone")]

        async def db(fn: Callable[..., Any], *args: Any) -> Any:
            return fn(*args)

        async def on_applied(applied: list[Applied]) -> None:
            if fail_after:
                raise fail_after.pop()

        def on_committed(applied: list[Applied]) -> None:
            if fail_before:
                raise fail_before.pop()

        intake = Intake(core, db, "b", on_applied=on_applied, on_committed=on_committed)
        runner = asyncio.create_task(intake.run())
        await asyncio.sleep(0)
        with pytest.raises(RuntimeError, match="outbox gone"):
            await intake.submit(KIND_MARKER, "table", _fault_body(1))
        second = await intake.submit(KIND_MARKER, "table", _fault_body(2))
        third = await intake.submit(KIND_MARKER, "table", _fault_body(3))
        assert (second.record.seq, third.record.seq, intake.inline) == (2, 3, 3)
        runner.cancel()

    with caplog.at_level("ERROR", logger="jantaku.intake"):
        asyncio.run(go())
    assert [r for r in caplog.records if "after_commit_failed" in r.getMessage()]
