"""Scenario files: a game, the faults a venue produces in it, and the outcome expected.

A scenario (TOML, ``hil/scenarios/*.toml``, format in docs/hil.md)::

    name = "misread-wrong-tile"
    ruleset = "mleague"
    seed = 5
    hands = 2
    [[fault]]
    kind = "misread"                          # see FAULTS
    at = { hand = 1, input = "draw", nth = 4 }  # the 4th draw of the first hand
    [expect]
    equal = true                # final event stream and scores == the fault-free run
    violations = []             # rules violations in the daemon's stream (exactly these codes)
    rejections = ["manifest_mismatch"]   # tracker/sensor rejections (each at least once)
    reader_faults = 1           # at least this many reader faults
    outbox_drained = true       # (broker faults) every event reached the broker

:func:`run_scenario` plays it through :func:`hil.runner.session.run_game` and checks the
expectation; ``equal = true`` means the daemon's stream equals the simulator's fault-free run of
the same seed, i.e. the fault was recovered without a trace in the game.
"""

from __future__ import annotations

import asyncio
import random
import shutil
import tempfile
import tomllib
from collections import Counter
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any, Final, assert_never

from drivers.link import messages as m
from drivers.tiles.places import Place, Zone
from hil.errors import EmulatorTimeout, ScenarioError
from hil.rig import tag_of
from hil.runner.lockstep import HilRunner, Perform
from hil.runner.result import GameResult
from hil.runner.session import run_game
from rules import inputs as ri
from rules.seats import SEATS, Seat
from rules.tiles import Tile
from rules.wall import Position

FAULTS: Final = (
    "garbled_link",  # random bytes on the table link before the step
    "truncated_link",  # the first bytes of a frame, as when a cable is pulled mid-frame
    "corrupt_link",  # a frame with one bit flipped (CRC catches it)
    "unplug_link",  # the table's USB-serial cable out for `seconds`, then back
    "unplug_reader",  # the step's RFID reader unplugged for `seconds`, then back
    "broker_down",  # the MQTT broker stopped for `seconds` (private broker)
    "misread",  # the reader reports another wall tile first (a misread tag), then the right one
    "double_read",  # the tag read twice in a row on the same reader
    "missed_read",  # the reader loses the frame (truncated), the player re-seats the tile
    "unknown_tag",  # a tag of another tile set on the reader
    "wrong_break",  # the table opens the wall one stack off
    "wrong_indicator",  # the table turns the tile one stack off
    "out_of_turn_draw",  # the next seat takes the tile before the seat whose turn it is
    "late_clock",  # the clock button pressed late: after the next seat's discard
    "kill9",  # after the step, the daemon process is killed (SIGKILL) and started again
)


@dataclass(frozen=True, slots=True)
class Trigger:
    hand: int
    input: str
    nth: int = 1
    seat: int | None = None


@dataclass(frozen=True, slots=True)
class Fault:
    kind: str
    at: Trigger
    seconds: float = 0.5
    tiles: int = 0  # kill9 in a deal or a meld: after this many of the step's tiles were read


@dataclass(frozen=True, slots=True)
class Expect:
    equal: bool = True
    violations: tuple[str, ...] = ()
    other_violations: bool = False  # more violations than listed may follow (a dead hand plays)
    rejections: tuple[str, ...] = ()
    reader_faults: int = 0
    outbox_drained: bool = False
    clock: tuple[str, ...] = ()  # clock event types that must occur (e.g. clock_rejected)


@dataclass(frozen=True, slots=True)
class Scenario:
    name: str
    ruleset: str
    seed: int
    hands: int
    faults: tuple[Fault, ...]
    expect: Expect
    description: str = ""
    source: Path | None = None
    steps: int | None = None  # play only the first N steps (a fault after which play cannot go on)


def load_scenario(path: Path) -> Scenario:
    try:
        doc = tomllib.loads(path.read_text(encoding="utf-8"))
    except (OSError, tomllib.TOMLDecodeError) as exc:
        raise ScenarioError(f"{path}: {exc}") from None
    return parse_scenario(doc, path)


def parse_scenario(doc: dict[str, Any], source: Path | None = None) -> Scenario:
    where = str(source or "<scenario>")
    known = {"name", "description", "ruleset", "seed", "hands", "steps", "fault", "expect"}
    unknown = sorted(set(doc) - known)
    if unknown:
        raise ScenarioError(f"{where}: unknown key {unknown[0]!r}")
    faults = []
    for i, f in enumerate(doc.get("fault", [])):
        kind = f.get("kind")
        if kind not in FAULTS:
            raise ScenarioError(f"{where}: fault[{i}].kind {kind!r} is not one of {FAULTS}")
        at = f.get("at", {})
        if at.get("input") not in ri.INPUT_TYPES:
            raise ScenarioError(f"{where}: fault[{i}].at.input must be an input type")
        faults.append(Fault(kind, Trigger(int(at.get("hand", 1)), at["input"],
                                          int(at.get("nth", 1)), at.get("seat")),
                            float(f.get("seconds", 0.5)), int(f.get("tiles", 0))))
    e = doc.get("expect", {})
    expect = Expect(
        equal=bool(e.get("equal", True)),
        violations=tuple(e.get("violations", ())),
        other_violations=bool(e.get("other_violations", False)),
        rejections=tuple(e.get("rejections", ())),
        reader_faults=int(e.get("reader_faults", 0)),
        outbox_drained=bool(e.get("outbox_drained", False)),
        clock=tuple(e.get("clock", ())),
    )
    try:
        return Scenario(name=str(doc["name"]), ruleset=str(doc["ruleset"]), seed=int(doc["seed"]),
                        hands=int(doc.get("hands", 2)), faults=tuple(faults), expect=expect,
                        steps=None if doc.get("steps") is None else int(doc["steps"]),
                        description=str(doc.get("description", "")), source=source)
    except KeyError as exc:
        raise ScenarioError(f"{where}: missing {exc.args[0]!r}") from None


@dataclass
class Report:
    scenario: Scenario
    result: GameResult | None
    problems: list[str] = field(default_factory=list)
    fired: list[str] = field(default_factory=list)

    @property
    def ok(self) -> bool:
        return not self.problems

    def summary(self) -> dict[str, Any]:
        out: dict[str, Any] = {"scenario": self.scenario.name, "ok": self.ok,
                               "problems": self.problems, "fired": self.fired}
        if self.result is not None:
            out["game"] = self.result.summary()
        return out


class _Faults:
    """Runner hooks that fire each fault at its trigger."""

    def __init__(self, sc: Scenario, broker: Any) -> None:
        self.sc = sc
        self.broker = broker
        self.counts: Counter[tuple[int, str, int | None]] = Counter()
        self.fired: list[str] = []
        self.rng = random.Random(sc.seed)
        self.pending_clock: list[tuple[float, Seat]] = []

    def _due(self, p: Perform) -> list[Fault]:
        name = ri.input_type(p.step.input)
        seat = getattr(p.step.input, "seat", None)
        self.counts[(p.hand, name, None)] += 1
        if seat is not None:
            self.counts[(p.hand, name, int(seat))] += 1
        due = []
        for f in self.sc.faults:
            t = f.at
            if t.hand == p.hand and t.input == name and (t.seat is None or t.seat == seat) and (
                    self.counts[(p.hand, name, t.seat)] == t.nth):
                due.append(f)
        return due

    async def replace(self, r: HilRunner, p: Perform) -> bool:
        """Perform the step with its faults; True when the step was performed here."""
        done = False
        for f in self._due(p):
            self.fired.append(f"{f.kind}@{p.index}")
            done = await self._fire(f, r, p) or done
        return done

    async def _fire(self, f: Fault, r: HilRunner, p: Perform) -> bool:
        rig, inp = r.rig, p.step.input
        ctl = rig.controller
        if f.kind == "garbled_link":
            ctl.inject(bytes(self.rng.randrange(256) for _ in range(64)))
        elif f.kind == "truncated_link":
            ctl.send_truncated(m.Dice((3, 4)), keep=4)
        elif f.kind == "corrupt_link":
            ctl.send_corrupted(m.Dice((3, 4)), bit=13)
        elif f.kind == "unplug_link":
            assert rig.table is not None
            rig.table.unplug()
            await asyncio.sleep(f.seconds)
            rig.table.plug()
        elif f.kind == "unplug_reader":
            place = _place_of(inp)
            em = rig.readers[place]
            tracker = r.daemon.tracker
            connects = tracker.reader_connects
            em.unplug()
            await asyncio.sleep(f.seconds)
            em.plug()
            deadline = asyncio.get_running_loop().time() + 10
            while tracker.reader_connects <= connects:  # the daemon's reader reopened it
                if asyncio.get_running_loop().time() > deadline:
                    raise EmulatorTimeout("the daemon's reader did not reopen the replugged port")
                await asyncio.sleep(0.02)
        elif f.kind == "broker_down":
            if self.broker is None:
                raise ScenarioError("broker_down needs the scenario's private broker")
            self.broker.stop()
            await r.perform(p.step, r.following())
            await asyncio.sleep(f.seconds)
            self.broker.start()
            return True
        elif f.kind in ("misread", "double_read", "missed_read", "unknown_tag"):
            return await self._tile_fault(f, r, p)
        elif f.kind == "wrong_break":
            assert isinstance(inp, ri.BreakOpened)
            rig.open_break(inp.seat, inp.count + 1 if inp.count < 12 else inp.count - 1)
            await r.sync()
            return True
        elif f.kind == "wrong_indicator":
            assert isinstance(inp, ri.IndicatorShown) and inp.position is not None
            pos = inp.position
            wrong = Position(pos.seat, pos.stack + 1 if pos.stack < 17 else pos.stack - 1,
                             pos.layer)
            ring = next(i for i in range(136) if r.wall_position(i) == wrong)
            tile = r.wall_tile(ring)
            rig.turn_indicator(wrong, tile)
            await r.sync()
            rig.tag(Place(Zone.DORA), tile)
            await r.sync()
            return True
        elif f.kind == "out_of_turn_draw":
            assert isinstance(inp, ri.Draw) and inp.tile is not None
            rig.tag(Place(Zone.HAND, inp.seat.plus(1)), inp.tile)
            await r.sync()
        elif f.kind == "late_clock":
            r.late_clock = f.seconds
        elif f.kind == "kill9" and f.tiles > 0:
            return await self._kill_in_step(f, r, p)
        elif f.kind == "kill9":
            await r.perform(p.step, r.following())
            await r.daemon.step_done(r.expected_inputs)
            r.daemon.kill9()
            await asyncio.sleep(f.seconds)
            await r.daemon.start()
            return True
        return False

    async def _kill_in_step(self, f: Fault, r: HilRunner, p: Perform) -> bool:
        """Kill the daemon after ``f.tiles`` of a deal's or a meld's reads: the tracker must
        take the rest after its restart as if nothing happened."""
        inp, rig = p.step.input, r.rig
        moves: list[tuple[Place, Tile]]
        if isinstance(inp, ri.DealDone) and inp.hands is not None:
            what = "deal"
            moves = [(Place(Zone.HAND, s), t) for s in SEATS for t in inp.hands[s]]
        elif isinstance(inp, ri.Call) and inp.tiles is not None and r.last_discard is not None:
            what = "meld"
            moves = [(Place(Zone.MELDS, inp.seat), t) for t in (*inp.tiles, r.last_discard)]
        else:
            raise ScenarioError(f"kill9 with tiles applies to a deal or a call, not {inp!r}")
        daemon = r.daemon
        before = daemon.holds(what)
        for place, tile in moves[:f.tiles]:
            rig.tag(place, tile)
        await daemon.wait_holds(what, before + f.tiles)
        daemon.kill9()
        await asyncio.sleep(f.seconds)
        await daemon.start()
        for place, tile in moves[f.tiles:]:
            rig.tag(place, tile)
        r.count_step(p.step)
        await r.sync(ordering=isinstance(inp, ri.Call))
        await daemon.step_done(r.expected_inputs)
        return True

    async def _tile_fault(self, f: Fault, r: HilRunner, p: Perform) -> bool:
        inp, rig = p.step.input, r.rig
        tile: Tile | None = getattr(inp, "tile", None)
        if not isinstance(inp, ri.Draw | ri.Discard | ri.RinshanDraw) or tile is None:
            raise ScenarioError(f"{f.kind} applies to a draw or a discard, not {inp!r}")
        zone = Zone.RIVER if isinstance(inp, ri.Discard) else Zone.HAND
        place = Place(zone, inp.seat)
        reader = rig.readers[place]
        if f.kind == "misread":
            # another tile of a different kind still in the wall: the tag the reader misread
            wrong = r.unseen_tile_not_of(tile)
            rig.tag(place, wrong)
            await r.sync()
        elif f.kind == "unknown_tag":
            reader.tag("DEADBEEF01")
            rig.events += 1
            await r.sync()
        elif f.kind == "missed_read":
            reader.truncated(tag_of(tile), keep=6)
            await asyncio.sleep(0.15)  # the reader's frame gap: the fragment is reported
        await r.perform(p.step, r.following())
        if f.kind == "double_read":
            reader.tag(tag_of(tile))
            rig.events += 1
            await r.sync()
        return True


def _place_of(inp: ri.Input) -> Place:
    """Where the reader sits that reads the tile of ``inp`` (a fault aims at that reader)."""
    match inp:
        case ri.Discard():
            return Place(Zone.RIVER, inp.seat)
        case ri.Draw() | ri.RinshanDraw():
            return Place(Zone.HAND, inp.seat)
        case ri.Call() | ri.Ankan() | ri.Kakan():
            return Place(Zone.MELDS, inp.seat)
        case ri.IndicatorShown():
            return Place(Zone.DORA)
        case ri.GameStart() | ri.HandStart() | ri.WallRaised() | ri.DiceRolled() \
                | ri.BreakOpened() | ri.UraRevealed() | ri.DealDone() | ri.Tsumo() | ri.Ron() \
                | ri.WinShown() | ri.ExhaustiveDraw() | ri.AbortiveDraw() | ri.RefereeOverride():
            raise ScenarioError(f"no reader takes {inp!r}")
        case _:
            assert_never(inp)


async def run_scenario(sc: Scenario, workdir: Path | None = None) -> Report:
    from hil.broker import PrivateBroker

    work = workdir or Path(tempfile.mkdtemp(prefix=f"jantaku-sc-{sc.name}-"))
    broker: PrivateBroker | None = None
    collector = None
    process = any(f.kind == "kill9" for f in sc.faults)
    needs_broker = process or any(f.kind == "broker_down" for f in sc.faults) or (
        sc.expect.outbox_drained)
    report = Report(sc, None)
    try:
        mqtt = None
        if needs_broker:
            broker = PrivateBroker(work / "broker").start()
            mqtt = ("127.0.0.1", broker.port)
        faults = _Faults(sc, broker)
        from hil.broker import EventCollector

        async def play() -> GameResult:
            return await run_game(sc.ruleset, sc.seed, sc.hands, workdir=work / "rig",
                                  table_id=f"sc-{abs(hash(sc.name)) % 10**6}", mqtt=mqtt,
                                  replace=faults.replace, drain=sc.expect.outbox_drained,
                                  max_steps=sc.steps, process=process)

        if mqtt is not None and not process:
            async with EventCollector(mqtt[0], mqtt[1],
                                      f"sc-{abs(hash(sc.name)) % 10**6}") as collector:
                result = await play()
                await _wait_all(collector, result)
        else:
            result = await play()
        report.result = result
        report.fired = faults.fired
        if process:
            collector = None  # the process daemon's own subscriber: every seq checked below
            seqs = sorted({int(e["seq"]) for e in result.envelopes})
            if seqs != list(range(1, result.published + 1)):
                report.problems.append(f"the subscriber got {len(seqs)} of {result.published}"
                                       " events or a gap")
        check(sc, result, report, collector)
    except Exception as exc:  # a crash is a failed scenario, reported as such
        report.problems.append(f"crashed: {exc!r}")
    finally:
        if broker is not None:
            broker.stop()
        if workdir is None:
            shutil.rmtree(work, ignore_errors=True)
    return report


async def _wait_all(collector: Any, result: GameResult, timeout: float = 15.0) -> None:
    want = result.published
    deadline = asyncio.get_running_loop().time() + timeout
    while len(collector.seqs()) < want and asyncio.get_running_loop().time() < deadline:
        await asyncio.sleep(0.1)


def check(sc: Scenario, res: GameResult, report: Report, collector: Any) -> None:
    e = sc.expect
    if len(report.fired) < len(sc.faults):
        report.problems.append(f"only {len(report.fired)} of {len(sc.faults)} faults fired")
    if e.equal and not res.equal:
        report.problems.append(f"stream differs from the fault-free run: {res.difference}")
    if not e.equal and res.equal and e.violations:
        report.problems.append("the stream equals the fault-free run: the fault did nothing")
    got = [str(v.get("code")) for v in res.violations]
    if e.other_violations:
        missing = [c for c in e.violations if c not in got]
        if missing:
            report.problems.append(f"violations {missing} expected, got {got}")
    elif sorted(got) != sorted(e.violations):
        report.problems.append(f"violations {list(e.violations)} expected, got {got}")
    reasons = res.rejection_reasons
    for r in e.rejections:
        if r not in reasons:
            report.problems.append(f"rejection {r!r} expected, got {sorted(reasons)}")
    if not e.rejections and reasons:
        report.problems.append(f"no rejection expected, got {sorted(reasons)}")
    for c in e.clock:
        if not res.clock_events.get(c):
            report.problems.append(f"clock event {c!r} expected, got {res.clock_events}")
    if "clock_rejected" not in e.clock and res.clock_events.get("clock_rejected"):
        report.problems.append(f"the clocks rejected a press: {res.clock_events}")
    if res.reader_faults < e.reader_faults:
        report.problems.append(f"{e.reader_faults} reader faults expected, got "
                               f"{res.reader_faults}")
    if e.outbox_drained:
        if res.outbox_depth != 0:
            report.problems.append(f"{res.outbox_depth} events still in the outbox")
        if collector is not None:
            seqs = collector.seqs()
            if seqs != list(range(1, res.published + 1)):
                lost = sorted(set(range(1, res.published + 1)) - set(seqs))
                report.problems.append(f"the subscriber missed events {lost[:10]} "
                                       f"(got {len(seqs)} of {res.published})")
