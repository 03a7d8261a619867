"""The link's reliable-delivery state machine, one per end (docs/protocol/table-link.md §7).

Pure in the python-chess sense: no I/O and no clock. Bytes and the time arrive as arguments
(``receive(data, now)``, ``tick(now)``); the bytes to write and what happened are collected and
handed out by :meth:`Endpoint.drain`. The asyncio session (``drivers/table/session.py``) and the
table-controller emulator (``hil/table_controller.py``) both drive this one class.

Delivery is stop-and-wait per direction: one sequenced frame outstanding, acknowledged by seq,
retransmitted after ``ack_timeout`` up to ``max_retries`` times; a repeated seq is acknowledged
again but not delivered again. Sequence state survives a reconnect (the hello/welcome exchange says
which seq each side last delivered), so an event is delivered exactly once across unplug/replug.
"""

from __future__ import annotations

import itertools
import math
from collections import deque
from collections.abc import Callable
from dataclasses import dataclass, fields
from typing import assert_never

from drivers.link import messages as m
from drivers.link.compat import firmware_refusal
from drivers.link.errors import LinkConfigError, UnsupportedCommandError
from drivers.link.frame import Decoder, ErrorSpan, encode_frame
from drivers.link.reports import (
    Acked,
    Connected,
    Delivered,
    Garbled,
    Incompatible,
    LinkCounters,
    LinkRejected,
    LossReason,
    Lost,
    Output,
    Role,
    RxPosition,
)
from drivers.link.timings import LinkTimings

#: the ACK frame of each seq (256 of them), encoded once: one goes out per table event
_ACKS: dict[int, bytes] = {}


def _ack_frame(seq: int) -> bytes:
    frame = _ACKS.get(seq)
    if frame is None:
        frame = _ACKS[seq] = encode_frame(m.Ack(), seq)
    return frame


#: the heartbeat frame (seq 0), encoded once
_HEARTBEAT = encode_frame(m.Heartbeat())

PROTOCOL_VERSIONS = (1, 1)


@dataclass(slots=True)
class _Pending:
    handle: int
    message: m.TableEvent | m.Command
    seq: int
    sent_at: float
    retries: int = 0


class Endpoint:
    """One end of the table link. ``accept`` may refuse a sequenced message (it is then answered
    with NAK ``rejected`` instead of being delivered).

    ``defer_ack`` (the host, docs §7.7): a delivered frame is acknowledged only when
    :meth:`confirm` says it is durable; until then a resend of it is neither delivered again nor
    acknowledged, and ``hello.rx_last`` names the last *confirmed* seq. ``resume`` is the position
    a previous process made durable (``hello`` reports it at once)."""

    def __init__(
        self,
        role: Role,
        *,
        boot_id: int,
        timings: LinkTimings | None = None,
        capabilities: frozenset[m.Capability] = frozenset(),
        firmware: str = "",
        versions: tuple[int, int] = PROTOCOL_VERSIONS,
        accept: Callable[[m.Message], bool] | None = None,
        defer_ack: bool = False,
        resume: RxPosition | None = None,
    ) -> None:
        if not 1 <= boot_id <= 0xFFFFFFFF:
            raise LinkConfigError(f"boot_id must be 1..2**32-1, got {boot_id!r}")
        self.role = role
        self.boot_id = boot_id
        self.timings = timings or LinkTimings()
        self.versions = versions
        self._accept = accept
        self._own_caps = capabilities
        self._own_firmware = firmware
        # what the handshake told us
        self.version = 0
        self.capabilities: frozenset[m.Capability] = capabilities if role is Role.CONTROLLER \
            else frozenset()
        self.firmware = firmware if role is Role.CONTROLLER else ""
        self.peer_boot_id: int | None = None
        # link state
        self._attached = False
        self._connected = False
        self._decoder = Decoder()
        self._last_rx = 0.0
        self._last_tx = -math.inf
        self._last_hello = -math.inf
        self._last_nak = -math.inf
        # sequencing: survives detach/attach, reset when the peer's boot id changes
        self._tx_seq = 0
        self._rx_last: int | None = None
        self._defer_ack = defer_ack
        self._rx_durable: int | None = None  # with defer_ack: the last confirmed seq
        self._awaiting: int | None = None  # with defer_ack: delivered, not yet confirmed
        if resume is not None:
            self.peer_boot_id = resume.peer_boot_id
            self._rx_last = self._rx_durable = resume.seq & 0xFF
        self._queue: deque[tuple[int, m.TableEvent | m.Command]] = deque()
        self._outstanding: _Pending | None = None
        self._handles = itertools.count(1)
        self.last_data_frame: bytes | None = None  # for fault injection (duplicates)
        # outputs
        self._tx = bytearray()
        self._out: list[Output] = []
        self._n = {f.name: 0 for f in fields(LinkCounters)}
        #: the direction of the sequenced messages this end takes
        incoming = m.Direction.EVENT if role is Role.HOST else m.Direction.COMMAND
        self._takes = frozenset(cls for kind, cls in m.MESSAGE_CLASSES.items()
                                if m.direction_of(kind) is incoming)
        self._positions: dict[int, RxPosition] = {}
        #: :meth:`next_deadline` may have moved earlier since this was last cleared (an attach,
        #: a connection made or lost, a frame sent that waits for its ACK): a driver that sleeps
        #: until the deadline and clears this need look again only then. Frames received and
        #: sent only move it later, which wakes the driver once for nothing at the old one.
        self.sooner = True

    def __repr__(self) -> str:
        state = "connected" if self._connected else "attached" if self._attached else "detached"
        return (f"<Endpoint {self.role.value} {state} boot_id={self.boot_id:#010x} "
                f"pending={self.pending} rx_last={self._rx_last}>")

    # --- state ---------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def pending(self) -> int:
        """Sequenced messages not yet acknowledged (outstanding + queued)."""
        return len(self._queue) + (self._outstanding is not None)

    @property
    def counters(self) -> LinkCounters:
        return LinkCounters(**self._n)

    def drain(self) -> tuple[bytes, list[Output]]:
        """The bytes to write and the outputs produced since the last drain."""
        out = self._out
        self._out = []
        tx = self._tx
        if not tx:
            return b"", out
        data = bytes(tx)
        tx.clear()
        return data, out

    def next_deadline(self) -> float | None:
        """When :meth:`tick` has something to do next (``None``: only input can change state)."""
        if not self._attached:
            return None
        t = self.timings
        if self._connected:
            deadline = min(self._last_rx + t.link_timeout, self._last_tx + t.heartbeat_interval)
            if self._outstanding is not None:
                deadline = min(deadline, self._outstanding.sent_at + t.ack_timeout)
            return deadline
        if self.role is Role.HOST:
            return self._last_hello + t.hello_interval
        return None

    # --- inputs --------------------------------------------------------------------------------

    def attach(self, now: float) -> None:
        """The transport was (re)opened: start a fresh byte stream; a host says hello."""
        if self._attached:
            self.detach(now)
        self._attached = True
        self.sooner = True
        self._decoder = Decoder()
        self._last_rx = now
        self._last_hello = -math.inf
        if self.role is Role.HOST:
            self._send_hello(now)

    def detach(self, now: float) -> None:
        """The transport is gone. Queued and outstanding messages are kept for the next attach."""
        if self._connected:
            self._lose(LossReason.TRANSPORT)
        self._attached = False
        self._tx.clear()

    def send(self, message: m.TableEvent | m.Command, now: float) -> int:
        """Queue a sequenced message; returns the handle its Acked/LinkRejected output carries."""
        wanted = m.Direction.COMMAND if self.role is Role.HOST else m.Direction.EVENT
        if m.direction_of(message.TYPE) is not wanted:
            raise UnsupportedCommandError(
                f"a {self.role.value} cannot send {message.TYPE.json_name!r} "
                f"(expected a {wanted.value} message)")
        handle = next(self._handles)
        self._queue.append((handle, message))
        self._pump(now)
        return handle

    def confirm(self, peer_boot_id: int, seq: int, now: float) -> None:
        """With ``defer_ack``: frame ``seq`` from the controller boot ``peer_boot_id`` is durable;
        acknowledge it now (when connected; otherwise the next ``hello`` says so). A confirmation
        for a controller that has rebooted since, or for a seq not awaited, changes nothing."""
        if self._awaiting != seq or peer_boot_id != self.peer_boot_id:
            return
        self._awaiting = None
        self._rx_durable = seq
        if self._connected:
            self._write(_ack_frame(seq), now)

    def receive(self, data: bytes, now: float) -> None:
        if not self._attached:
            return
        for item in self._decoder.messages(data):
            if isinstance(item, ErrorSpan):
                self._on_error(item, now)
            else:
                self._on_frame(item[0], item[1], now)

    def tick(self, now: float) -> None:
        if not self._attached:
            return
        t = self.timings
        if self._connected:
            pending = self._outstanding
            if now - self._last_rx >= t.link_timeout:
                self._lose(LossReason.SILENCE)
            elif pending is not None and now - pending.sent_at >= t.ack_timeout:
                if pending.retries >= t.max_retries:
                    self._lose(LossReason.NO_ACK)
                else:
                    pending.retries += 1
                    self._retransmit(now)
        if self._connected and now - self._last_tx >= t.heartbeat_interval:
            self._write(_HEARTBEAT, now)
        if (not self._connected and self.role is Role.HOST
                and now - self._last_hello >= t.hello_interval):
            self._send_hello(now)

    # --- internals -----------------------------------------------------------------------------

    def _count(self, name: str) -> None:
        self._n[name] += 1

    def _write(self, frame: bytes, now: float) -> None:
        self._tx += frame
        self._last_tx = now
        self._n["frames_tx"] += 1

    def _send_hello(self, now: float) -> None:
        lo, hi = self.versions
        rx_last = self._rx_durable if self._defer_ack else self._rx_last
        self._write(encode_frame(m.Hello(lo, hi, self.boot_id, self.peer_boot_id, rx_last)), now)
        self._last_hello = now

    def _lose(self, reason: LossReason) -> None:
        self._connected = False
        self.sooner = True
        self._last_hello = -math.inf
        if self._outstanding is not None:
            self._outstanding.retries = 0
        self._count("link_losses")
        self._out.append(Lost(reason))

    def _connect(self, now: float) -> None:
        was = self._connected
        self._connected = True
        self.sooner = True
        self._last_rx = now
        if not was:
            self._count("connects")
            self._out.append(Connected(self.version, self.capabilities, self.firmware,
                                       self.peer_boot_id or 0))
        if self._outstanding is not None:
            self._outstanding.retries = 0
            self._retransmit(now)
        else:
            self._pump(now)

    def _pump(self, now: float) -> None:
        if not self._connected or self._outstanding is not None or not self._queue:
            return
        handle, message = self._queue.popleft()
        seq = self._tx_seq
        self._tx_seq = (seq + 1) & 0xFF
        self._outstanding = _Pending(handle, message, seq, now)
        self.sooner = True
        frame = encode_frame(message, seq)
        self.last_data_frame = frame
        self._write(frame, now)

    def _retransmit(self, now: float) -> None:
        pending = self._outstanding
        assert pending is not None
        frame = encode_frame(pending.message, pending.seq, retransmit=True)
        self.last_data_frame = frame
        pending.sent_at = now
        self._count("retransmits")
        self._write(frame, now)

    def _settle(self, now: float, *, rejected: bool, pump: bool = True) -> None:
        pending = self._outstanding
        assert pending is not None
        self._outstanding = None
        if rejected:
            self._count("rejected_tx")
            self._out.append(LinkRejected(pending.handle, pending.message))
        else:
            self._out.append(Acked(pending.handle))
        if pump:
            self._pump(now)

    def _on_error(self, span: ErrorSpan, now: float) -> None:
        self._count("errors")
        self._out.append(Garbled(span))
        if not self._connected:
            return
        if span.reason.intact:
            # read intact but unusable: refuse it for good, unless it is an (unsequenced)
            # control frame of a newer protocol, which is ignored
            if span.seq is not None and span.message_type is not None \
                    and span.message_type >= 0x10:
                self._reject(span.seq, now)
        elif now - self._last_nak >= self.timings.nak_holdoff:
            self._last_nak = now
            self._count("naks_tx")
            self._write(encode_frame(m.Nak(m.NakReason.CORRUPT)), now)

    def _reject(self, seq: int, now: float) -> None:
        self._count("rejected_rx")
        self._count("naks_tx")
        self._write(encode_frame(m.Nak(m.NakReason.REJECTED), seq), now)

    def _on_frame(self, message: m.Message, seq: int, now: float) -> None:
        n = self._n
        n["frames_rx"] += 1
        # the cases by how often they come: an event (or a command) per input, the link's own
        # control between them, the handshake once a connection
        match message:
            case m.StartPressed() | m.WallRaised() | m.Dice() | m.BreakOpened() \
                    | m.IndicatorTurned() | m.WallManifest() | m.SeatButton() | m.Fault() \
                    | m.ControllerReset() | m.EventsDropped() | m.ConfigFault() \
                    | m.HonbaDisplay() | m.ScoreDisplay() | m.Buzzer() | m.Led() | m.PressStart():
                if not self._connected:
                    n["ignored"] += 1
                    return
                self._last_rx = now
                self._on_data(message, seq, now)
            case m.Heartbeat() | m.Ack() | m.Nak():
                if self._connected:
                    self._last_rx = now
                    self._on_control(message, seq, now)
            case m.Hello():
                if self.role is Role.CONTROLLER:
                    self._on_hello(message, now)
            case m.Welcome():
                if self.role is Role.HOST and self._attached and not self._connected:
                    self._on_welcome(message, now)
            case _:
                assert_never(message)

    def _on_control(self, message: m.Heartbeat | m.Ack | m.Nak, seq: int, now: float) -> None:
        """The connected session's own control frames."""
        pending = self._outstanding
        match message:
            case m.Heartbeat():
                return
            case m.Ack():
                if pending is not None and seq == pending.seq:
                    self._settle(now, rejected=False)
            case m.Nak():
                self._count("naks_rx")
                if pending is None:
                    return
                if message.reason is m.NakReason.REJECTED:
                    if seq == pending.seq:
                        self._settle(now, rejected=True)
                else:
                    # the receiver rate-limits its corrupt NAKs (nak_holdoff), which bounds these
                    self._retransmit(now)
            case _:
                assert_never(message)

    def _on_data(self, message: m.TableEvent | m.Command, seq: int, now: float) -> None:
        if self._awaiting is not None:
            # not durable yet: a resend of it waits for its ack like the original (§7.7); another
            # seq cannot come from a stop-and-wait sender before that ack, and is not taken
            self._count("duplicates" if seq == self._awaiting else "ignored")
            return
        if seq == self._rx_last:
            self._count("duplicates")
            self._write(_ack_frame(seq), now)
            return
        if type(message) not in self._takes or (
            self._accept is not None and not self._accept(message)
        ):
            self._reject(seq, now)
            return
        self._rx_last = seq
        self._n["delivered"] += 1
        self._out.append(Delivered(message, self._position(seq)))
        if self._defer_ack:
            self._awaiting = seq
        else:
            self._write(_ack_frame(seq), now)

    def _position(self, seq: int) -> RxPosition:
        """Where frame ``seq`` stands in the peer's stream: one value per (boot, seq), made once
        (a frozen dataclass costs ~4,000 instructions to build, one per input otherwise)."""
        boot = self.peer_boot_id or 0
        at = self._positions.get(seq)
        if at is None or at.peer_boot_id != boot:
            at = self._positions[seq] = RxPosition(boot, seq)
        return at

    def _on_hello(self, hello: m.Hello, now: float) -> None:
        lo, hi = self.versions
        if hello.max_version < lo or hello.min_version > hi:
            self._write(encode_frame(m.Welcome(0, self._own_caps, self.boot_id, None,
                                             self._own_firmware)), now)
            return
        self.version = min(hi, hello.max_version)
        if hello.boot_id != self.peer_boot_id:
            # a new host process: its sequence numbers start afresh
            self.peer_boot_id = hello.boot_id
            self._rx_last = None
        self._write(encode_frame(m.Welcome(self.version, self._own_caps, self.boot_id,
                                         self._rx_last, self._own_firmware)), now)
        pending = self._outstanding
        if (pending is not None and hello.rx_boot_id == self.boot_id
                and hello.rx_last == pending.seq):
            # delivered before the link broke, only the ack was lost
            self._settle(now, rejected=False, pump=False)
        self._connect(now)

    def _on_welcome(self, welcome: m.Welcome, now: float) -> None:
        lo, hi = self.versions
        if not lo <= welcome.version <= hi:
            self._out.append(Incompatible(self.versions, welcome.firmware))
            return
        refusal = firmware_refusal(welcome.firmware)
        if refusal is not None:
            self._out.append(Incompatible(self.versions, welcome.firmware, refusal))
            return
        if welcome.boot_id != self.peer_boot_id:
            # a rebooted controller: its sequence numbers start afresh (what was delivered from
            # the old boot is still confirmed by the daemon, but no longer acknowledged)
            self.peer_boot_id = welcome.boot_id
            self._rx_last = self._rx_durable = self._awaiting = None
        self.version = welcome.version
        self.capabilities = welcome.capabilities
        self.firmware = welcome.firmware
        pending = self._outstanding
        if pending is not None and welcome.rx_last == pending.seq:
            self._settle(now, rejected=False, pump=False)
        self._connect(now)
