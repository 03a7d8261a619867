"""The event loop `jantaku run` and `jantaku demo` run on (daemon/event_loop.py): uvloop by
default, asyncio's own with ``--loop asyncio``; a loop of neither kind is refused by name.
tests/daemon/test_broker_session_outside.py runs the real `jantaku run` on both."""

from __future__ import annotations

import asyncio

import pytest

from daemon import event_loop
from daemon.errors import DaemonError, UsageError


async def _loop_kind() -> str:
    await asyncio.sleep(0)
    return type(asyncio.get_running_loop()).__module__.partition(".")[0]


@pytest.mark.parametrize("kind", event_loop.LOOPS)
def test_run_runs_the_coroutine_on_the_loop_asked_for(kind: str) -> None:
    assert event_loop.run(_loop_kind(), kind) == kind


def test_the_default_loop_is_uvloop() -> None:
    assert event_loop.LOOPS[0] == "uvloop"
    assert event_loop.run(_loop_kind()) == "uvloop"


def test_an_unknown_loop_is_refused_by_name() -> None:
    coro = _loop_kind()
    with pytest.raises(UsageError, match="no event loop 'trio': one of uvloop, asyncio") as info:
        event_loop.run(coro, "trio")
    coro.close()
    assert isinstance(info.value, DaemonError) and isinstance(info.value, ValueError)
