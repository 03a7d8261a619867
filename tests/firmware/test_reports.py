"""What the board says about itself (docs/protocol/table-link.md §12), on the host: the reset
cause and the lost count read from the RP2040's registers (a stand-in ``mem32``), the overflow
report's place in the queue, every command delivered to its handler; and the daemon's sentence
for each report (daemon/controller_reports.py)."""

from __future__ import annotations

from daemon.controller_reports import ControllerReports, notice
from drivers.link.arq import Endpoint
from drivers.link.messages import (
    ConfigFault,
    ConfigProblem,
    ControllerReset,
    Dice,
    EventsDropped,
    ResetCause,
)
from drivers.link.reports import Delivered, Role
from drivers.link.timings import LinkTimings
from firmware import messages as m
from firmware import resets
from firmware.link import Link
from firmware.table import Outputs, Table


class Mem32(dict[int, int]):
    """``machine.mem32`` as the RP2040 reads after a reset of some kind."""

    def __missing__(self, addr: int) -> int:
        return 0


def test_the_cause_and_the_lost_count_come_from_the_chip() -> None:
    mem = Mem32({resets.WATCHDOG_REASON: resets.REASON_TIMER,
                 resets.SCRATCH_MAGIC: resets.MAGIC, resets.SCRATCH_COUNT: 3})
    r = resets.ResetMemory(mem, 3)
    assert (r.cause, r.lost) == (m.RESET_WATCHDOG, 3)
    assert mem[resets.SCRATCH_COUNT] == 0 and mem[resets.SCRATCH_MAGIC] == resets.MAGIC
    r.note(2)
    assert mem[resets.SCRATCH_COUNT] == 2
    mem[resets.SCRATCH_COUNT] = 9  # written only when the count changes
    r.note(2)
    assert mem[resets.SCRATCH_COUNT] == 9
    # the firmware's own reset keeps the count; a power-on or RUN reset clears the scratch
    forced = resets.ResetMemory(Mem32({resets.WATCHDOG_REASON: resets.REASON_FORCE,
                                       resets.SCRATCH_MAGIC: resets.MAGIC,
                                       resets.SCRATCH_COUNT: 0}), 3)
    assert (forced.cause, forced.lost) == (m.RESET_SOFTWARE, 0)
    run = resets.ResetMemory(Mem32({resets.CHIP_RESET: resets.HAD_RUN | resets.HAD_POR}), 1)
    assert (run.cause, run.lost) == (m.RESET_PIN, None)
    power = resets.ResetMemory(Mem32({resets.CHIP_RESET: resets.HAD_POR}), 1)
    assert (power.cause, power.lost) == (m.RESET_POWER_ON, None)
    # a watchdog reset without this firmware's mark: the count is not known
    stray = resets.ResetMemory(Mem32({resets.WATCHDOG_REASON: resets.REASON_TIMER,
                                      resets.SCRATCH_COUNT: 7}), 3)
    assert (stray.cause, stray.lost) == (m.RESET_WATCHDOG, None)
    # no registers (an RP2350, the host's simulation): machine.reset_cause()
    assert resets.ResetMemory(None, 3).cause == m.RESET_WATCHDOG
    assert resets.ResetMemory(None, 1).cause == m.RESET_POWER_ON


def test_the_overflow_report_takes_the_place_of_the_events_it_stands_for() -> None:
    link = Link(0xB0A7, 0, "jantaku-ctl 1.0.0 test", max_queue=2)
    link.attach(0)
    handles = [link.send(m.DICE, m.dice(1, i), 0) for i in range(1, 6)]
    assert handles == [1, 2, 0, 0, 0] and link.counters.overflows == 3 and link.dropped == 3
    host = Endpoint(Role.HOST, boot_id=5, timings=LinkTimings())
    host.attach(0.0)
    got: list[object] = []
    for t in range(1, 30):
        data, outs = host.drain()
        link.receive(data, t)
        host.receive(link.take_tx(), t / 1000)
        for out in outs:
            if isinstance(out, Delivered):
                got.append(out.message)
                host.confirm(out.at.peer_boot_id, out.at.seq, t / 1000)
        if t == 10:  # after the gap: behind the report
            link.send(m.DICE, m.dice(2, 2), t)
    assert got[:4] == [Dice((1, 1)), Dice((1, 2)), EventsDropped(3), Dice((2, 2))]
    assert link.dropped == 0


def test_every_command_reaches_its_handler() -> None:
    table = Table(Link(9, m.ALL_CAPABILITIES, "t"), Outputs())
    done: list[int] = []
    logs: list[str] = []
    table.on_command = lambda kind, payload: done.append(kind)
    table.on_log = logs.append
    payloads = {m.HONBA_DISPLAY: b"\x01\x02", m.SCORE_DISPLAY: bytes(16),
                m.BUZZER: b"\x64\x00\x01", m.LED: b"\xff\x01\x01\x02\x03", m.PRESS_START: b""}
    commands = [k for k in m.KNOWN_TYPES if m.is_command(k)]
    assert sorted(payloads) == commands  # a new command needs its handler and a line here
    for kind in commands:
        table.delivered(kind, payloads[kind], 0, 0)
    assert done == commands and logs == []


def test_each_report_is_one_sentence_in_log_health_and_console() -> None:
    assert notice(ControllerReset(int(ResetCause.WATCHDOG), 3)) == \
        "controller reset (watchdog): its unsent events were lost (3)"
    assert notice(ControllerReset(int(ResetCause.POWER_ON), None)) == \
        "controller reset (power-on): its unsent events were lost (count not known)"
    assert notice(ControllerReset(77, 0)) == \
        "controller reset (unknown cause): its unsent events were lost (0)"
    assert notice(EventsDropped(12)).startswith("controller queue full: 12 events dropped")
    assert notice(ConfigFault(int(ConfigProblem.JSON))) == \
        "controller config.json: config.json is not a JSON object; the controller runs the " \
        "link only"
    reports = ControllerReports()
    reports.take(ConfigFault(int(ConfigProblem.TYPE), "buzzer"), "t0")
    reports.take(ControllerReset(int(ResetCause.WATCHDOG), 2), "t1")
    reports.take(ConfigFault(int(ConfigProblem.PIN_CONFLICT), "buzzer", 3), "t1")
    reports.take(EventsDropped(4), "t2")
    health = reports.health()
    assert health["resets"] == 1 and health["events_dropped"] == 4
    assert health["last_reset"] == {"cause": "watchdog", "lost": 2, "at": "t1"}
    # a new boot checks its configuration afresh: the earlier boot's faults are gone
    assert health["config_faults"] == [{"problem": "pin_conflict", "key": "buzzer", "pin": 3}]
    assert health["notices"][0] == "controller reset (watchdog): its unsent events were lost (2)"
