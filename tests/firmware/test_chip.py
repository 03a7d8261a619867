"""A board that resets, on the emulated RP2040 (the real MicroPython rp2 build running the real
firmware), against the real ``jantaku run``:

* the boot race: every host ``hello`` carries byte 0x03 (Ctrl-C to MicroPython while main.py
  starts); the daemon says hello every 0.2 s from the moment the board's USB port appears, on a
  cold boot and after each reset (RUN pin, watchdog; with ``JANTAKU_SLOW=1`` also its own reset
  and power cycles, four rounds); the board answers every time from the boot the reset began
  (no second boot), never in the REPL (before the fix it stopped in the raw REPL for good); how
  long it took only prints (-s): the emulator's speed under the machine's load, not the Pico's;
* every reset is reported: the board's first event says why it started (RUN pin, power-on,
  watchdog, its own reset) and how many unsent events went with its RAM, and the daemon's log,
  health and console say "controller reset (watchdog): its unsent events were lost (3)";
* the host away with more than the board's queue holds: the overflow is counted and reported.

One board boot serves the scenario; ``JANTAKU_SLOW=1`` resets it more often, in every way.
"""

from __future__ import annotations

import asyncio
from pathlib import Path

from chip_kit import FIRMWARE, SEATS, Chip, chip, needs_rp2040js, until

from hil.kit import SLOW, bounded

pytestmark = needs_rp2040js

#: (how the harness resets the board, the cause the board reports)
RESETS = [("run", "reset_pin"), ("watchdog", "watchdog")] + [
    ("force", "software"), ("power", "power_on"), ("run", "reset_pin"), ("watchdog", "watchdog"),
] * (3 if SLOW else 0)
#: the board's event queue (config.json ``event_queue``): 8 in CI so that it overflows soon, the
#: default 256 with JANTAKU_SLOW=1
QUEUE = bounded(8, 256)


def resets(c: Chip) -> list[dict[str, object]]:
    return [r.body for r in c.rows() if r.type == "table_controller_reset"]


def held_presses(c: Chip) -> int:
    return sum(1 for r in c.rows() if r.source.startswith("button:"))


def board_said(c: Chip, skip: int = 0) -> tuple[bytes, int]:
    """What the board sent on its USB port after the wire log's first ``skip`` lines, and the
    log's length now."""
    wire = (c.tmp / "board" / "usb.log").read_text().splitlines()
    said = "".join(line.split()[1] for line in wire[skip:] if line.startswith("< "))
    return bytes.fromhex(said), len(wire)


async def reset_while_the_host_says_hello(c: Chip, how: str, cause: str) -> None:
    """Reset the board under a connected daemon: the boot the reset began answers the hellos
    (before the fix a hello's 0x03 stopped main.py in the REPL; only another boot, such as the
    watchdog's, would have brought the link back, and that one reports its own cause)."""
    ups, reported = c.connections(), len(resets(c))
    boots, (_, wire_at) = len(c.board.outputs.boots), board_said(c)
    c.board.reset(how)
    took = await c.up_again(ups, 60)  # the hang guard: the board did not answer at all
    assert len(c.board.outputs.boots) == boots + 1, c.board.outputs.boots  # no second boot
    said, _ = board_said(c, wire_at)
    assert b"REPL" not in said and b"Traceback" not in said and b">>> " not in said, said
    print(f"{how}: the board answered after {took:.1f} s")  # a figure of the emulator's speed
    await until(lambda: len(resets(c)) == reported + 1, 60, f"the {how} reset reported")
    # a RUN or power reset clears the watchdog's scratch registers: how many were lost is not
    # known; a watchdog or the board's own reset keeps them (nothing was waiting here)
    kept = how in ("watchdog", "force")
    assert resets(c)[-1] == {"type": "table_controller_reset", "cause": resets(c)[-1]["cause"],
                             "name": cause, "lost": 0 if kept else None}
    # the report's ack reaches the board behind the hellos that piled up while it booted
    await c.settle_ms(600)


async def overflow(c: Chip) -> None:
    """The host away, more events than the queue holds: QUEUE kept, the rest dropped, counted
    and reported once the host is back."""
    before = held_presses(c)
    c.daemon.kill9()
    await c.link_lost_on_board()
    for i in range(0, QUEUE + 3, 4):  # the four seats' keys at once
        await asyncio.to_thread(c.board.press_together, list(SEATS[:min(4, QUEUE + 3 - i)]), 60)
    ups = c.connections()
    c.start()
    await c.up_again(ups)
    await until(lambda: any(r.type == "table_events_dropped" for r in c.rows()),
                bounded(60, 600), "the overflow reported")
    assert [r for r in c.rows() if r.type == "table_events_dropped"][-1].body == {
        "type": "table_events_dropped", "count": 3}
    assert held_presses(c) == before + QUEUE
    await until(lambda: c.health().get("controller", {}).get("events_dropped") == 3, 30,
                "health: events_dropped")


async def watchdog_with_events_waiting(c: Chip) -> None:
    """The host away, three events queued, the watchdog fires: the next boot says so."""
    before, reported = held_presses(c), len(resets(c))
    c.daemon.kill9()
    await c.link_lost_on_board()
    await asyncio.to_thread(c.board.press_together, list(SEATS[:3]), 60)
    boots = len(c.board.outputs.boots)
    c.board.reset("watchdog")  # the watchdog's timer runs out, as when the loop hangs
    await until(lambda: len(c.board.outputs.boots) > boots, 30, "the watchdog reset")
    ups = c.connections()
    c.start()
    await c.up_again(ups)
    # counted, not named: the round of resets before ended with a watchdog reset too
    await until(lambda: len(resets(c)) == reported + 1, 60, "the watchdog reset reported")
    assert resets(c)[-1] == {"type": "table_controller_reset", "cause": 3, "name": "watchdog",
                             "lost": 3}
    sentence = "controller reset (watchdog): its unsent events were lost (3)"
    await until(lambda: sentence in c.health().get("controller", {}).get("notices", []), 30,
                "health: the reset notice")
    health = c.health()["controller"]
    assert health["last_reset"]["cause"] == "watchdog" and health["last_reset"]["lost"] == 3
    assert sentence in c.log_text()
    assert held_presses(c) == before  # those three are gone: the board said how many


@needs_rp2040js
async def test_the_board_comes_back_from_every_reset_and_says_so(tmp_path: Path) -> None:
    async with chip(tmp_path, {"event_queue": QUEUE}) as c:
        await c.port()
        c.start()  # says hello every 0.2 s from the moment the port is there
        await c.up_again(0)
        await until(lambda: len(resets(c)) == 1, 60, "the power-on reported")
        assert resets(c)[0]["name"] == "power_on"
        await until(lambda: c.health().get("firmware") == FIRMWARE, 30, "health: firmware")
        for how, cause in RESETS:
            await reset_while_the_host_says_hello(c, how, cause)
        await overflow(c)
        await watchdog_with_events_waiting(c)
        assert len(c.board.outputs.boots) == len(RESETS) + 2
        assert b"raw REPL" not in board_said(c)[0]
