"""The controller's end of the table link (docs/protocol/table-link.md §7): handshake, stop-and-
wait delivery with acks, NAKs and retransmission, duplicate suppression, heartbeats, link loss.

Pure: bytes and the time (integer milliseconds, never wrapping: the board's clock unwraps
``time.ticks_ms``) come in as arguments; what to write and what happened are collected and
handed out by :meth:`Link.drain`. Integer milliseconds because MicroPython's floats on the
RP2040 are 30-bit: seconds as floats would lose the millisecond within hours.
"""

from firmware import frame as fr
from firmware import messages as m

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from collections.abc import Callable

SILENCE = "silence"  # nothing valid heard for link_timeout
NO_ACK = "no_ack"  # an event went unacknowledged max_retries times
TRANSPORT = "transport"  # the port went away

# what Link reports (Output.what)
DELIVERED = 1  # a command, delivered once (kind, payload, seq)
ACKED = 2  # an event was acknowledged (handle)
REJECTED = 3  # the host refused an event (handle, kind, payload)
CONNECTED = 4  # handshake done (seq: the host's boot id)
LOST = 5  # link lost (reason)
GARBLED = 6  # a damaged or unusable chunk was heard (reason)


class Timings:
    """The link's timings in milliseconds (defaults: §7, the host's ``LinkTimings``)."""

    def __init__(self, heartbeat_interval: int = 250, link_timeout: int = 1000,
                 ack_timeout: int = 150, max_retries: int = 4, nak_holdoff: int = 20) -> None:
        if min(heartbeat_interval, link_timeout, ack_timeout, max_retries, nak_holdoff) <= 0:
            raise ValueError("every timing must be > 0")
        if link_timeout < 2 * heartbeat_interval:
            raise ValueError("link_timeout must be at least two heartbeat intervals")
        self.heartbeat_interval = heartbeat_interval
        self.link_timeout = link_timeout
        self.ack_timeout = ack_timeout
        self.max_retries = max_retries
        self.nak_holdoff = nak_holdoff


class Counters:
    """The same counters as the host's ``LinkCounters``."""

    def __init__(self) -> None:
        self.frames_rx = 0
        self.frames_tx = 0
        self.delivered = 0
        self.duplicates = 0
        self.retransmits = 0
        self.naks_rx = 0
        self.naks_tx = 0
        self.errors = 0
        self.rejected_rx = 0
        self.rejected_tx = 0
        self.ignored = 0
        self.connects = 0
        self.link_losses = 0
        self.overflows = 0  # events refused because the queue was full


class Output:
    def __init__(self, what: int, handle: int = 0, kind: int = 0, payload: bytes = b"",
                 seq: int = 0, reason: str = "") -> None:
        self.what = what
        self.handle = handle
        self.kind = kind
        self.payload = payload
        self.seq = seq
        self.reason = reason


class QueueFull(ValueError):
    """The event queue is full (the host has been away for long)."""


class _Pending:
    def __init__(self, handle: int, kind: int, payload: bytes, seq: int, sent_at: int) -> None:
        self.handle = handle
        self.kind = kind
        self.payload = payload
        self.seq = seq
        self.sent_at = sent_at
        self.retries = 0


class Link:
    """``accept(kind, payload)`` may refuse a command (answered NAK ``rejected``)."""

    def __init__(self, boot_id: int, capabilities: int, firmware: str,
                 timings: Timings | None = None, versions: tuple[int, int] = (1, 1),
                 accept: "Callable[[int, bytes], bool] | None" = None,
                 max_queue: int = 256) -> None:
        if not 1 <= boot_id <= 0xFFFFFFFF:
            raise ValueError("boot_id must be 1..2**32-1")
        m.welcome(1, capabilities, boot_id, None, firmware)  # fails early on a bad string
        self.boot_id = boot_id
        self.capabilities = capabilities
        self.firmware = firmware
        self.timings = timings or Timings()
        self.versions = versions
        self.max_queue = max_queue
        self._accept = accept
        self.version = 0
        self.peer_boot_id: int | None = None
        self.counters = Counters()
        self._attached = False
        self._connected = False
        self._decoder = fr.Decoder()
        self._last_rx = 0
        self._last_tx: int | None = None
        self._last_nak: int | None = None
        # sequencing: survives detach/attach; rx_last is reset when the host's boot id changes
        self._tx_seq = 0
        self._rx_last: int | None = None
        self._queue: list[tuple[int, int, bytes]] = []
        self._outstanding: _Pending | None = None
        self._next_handle = 1
        self.last_data_frame: bytes | None = None
        self._tx = bytearray()
        self._out: list[Output] = []

    def set_accept(self, accept: "Callable[[int, bytes], bool] | None") -> None:
        self._accept = accept

    # --- state ---------------------------------------------------------------------------------

    @property
    def connected(self) -> bool:
        return self._connected

    @property
    def attached(self) -> bool:
        return self._attached

    @property
    def pending(self) -> int:
        """Events not yet acknowledged (outstanding + queued)."""
        return len(self._queue) + (0 if self._outstanding is None else 1)

    @property
    def rx_last(self) -> int | None:
        return self._rx_last

    def drain(self) -> "tuple[bytes, list[Output]]":
        data = bytes(self._tx)
        out = self._out
        self._tx = bytearray()
        self._out = []
        return data, out

    def next_deadline(self) -> int | None:
        """When :meth:`tick` has something to do (``None``: only input can change state)."""
        if not self._connected:
            return None  # a controller waits for the host's hello
        t = self.timings
        deadline = self._last_rx + t.link_timeout
        beat = (self._last_tx if self._last_tx is not None else self._last_rx) \
            + t.heartbeat_interval
        if beat < deadline:
            deadline = beat
        pending = self._outstanding
        if pending is not None and pending.sent_at + t.ack_timeout < deadline:
            deadline = pending.sent_at + t.ack_timeout
        return deadline

    # --- inputs --------------------------------------------------------------------------------

    def attach(self, now: int) -> None:
        """The transport was (re)opened: a fresh byte stream."""
        if self._attached:
            self.detach(now)
        self._attached = True
        self._decoder = fr.Decoder()
        self._last_rx = now

    def detach(self, now: int) -> None:
        """The transport is gone; queued and outstanding events are kept for the next attach."""
        if self._connected:
            self._lose(TRANSPORT)
        self._attached = False
        self._tx = bytearray()

    def send(self, kind: int, payload: bytes, now: int) -> int:
        """Queue a table event; returns the handle its ACKED/REJECTED output carries."""
        if not m.is_event(kind) or kind not in m.KNOWN_TYPES:
            raise ValueError(f"a controller sends table events (0x10..0x17), not 0x{kind:02x}")
        error = m.payload_error(kind, payload)
        if error is not None:
            raise ValueError(error)
        if len(self._queue) >= self.max_queue:
            self.counters.overflows += 1
            raise QueueFull(f"event queue full ({self.max_queue})")
        handle = self._next_handle
        self._next_handle += 1
        self._queue.append((handle, kind, bytes(payload)))
        self._pump(now)
        return handle

    def receive(self, data: bytes | bytearray, now: int) -> None:
        if not self._attached:
            return
        for item in self._decoder.feed(data):
            if isinstance(item, fr.Frame):
                self._on_frame(item, now)
            else:
                self._on_error(item, now)

    def tick(self, now: int) -> None:
        if not self._connected:
            return
        t = self.timings
        pending = self._outstanding
        if now - self._last_rx >= t.link_timeout:
            self._lose(SILENCE)
        elif pending is not None and now - pending.sent_at >= t.ack_timeout:
            if pending.retries >= t.max_retries:
                self._lose(NO_ACK)
            else:
                pending.retries += 1
                self._retransmit(now)
        if self._connected and (self._last_tx is None
                                or now - self._last_tx >= t.heartbeat_interval):
            self._write(fr.encode_frame(m.HEARTBEAT, b""), now)

    # --- internals -----------------------------------------------------------------------------

    def _write(self, data: bytes, now: int) -> None:
        self._tx += data
        self._last_tx = now
        self.counters.frames_tx += 1

    def _lose(self, reason: str) -> None:
        self._connected = False
        if self._outstanding is not None:
            self._outstanding.retries = 0
        self.counters.link_losses += 1
        self._out.append(Output(LOST, reason=reason))

    def _connect(self, now: int) -> None:
        if not self._connected:
            self._connected = True
            self.counters.connects += 1
            self._out.append(Output(CONNECTED, seq=self.peer_boot_id or 0))
        self._last_rx = now
        if self._outstanding is not None:
            self._outstanding.retries = 0
            self._retransmit(now)
        else:
            self._pump(now)

    def _pump(self, now: int) -> None:
        if not self._connected or self._outstanding is not None or not self._queue:
            return
        handle, kind, payload = self._queue.pop(0)
        seq = self._tx_seq
        self._tx_seq = (seq + 1) & 0xFF
        self._outstanding = _Pending(handle, kind, payload, seq, now)
        data = fr.encode_frame(kind, payload, seq)
        self.last_data_frame = data
        self._write(data, now)

    def _retransmit(self, now: int) -> None:
        pending = self._outstanding
        if pending is None:
            return
        data = fr.encode_frame(pending.kind, pending.payload, pending.seq, True)
        self.last_data_frame = data
        pending.sent_at = now
        self.counters.retransmits += 1
        self._write(data, now)

    def _settle(self, now: int, rejected: bool, pump: bool = True) -> None:
        pending = self._outstanding
        if pending is None:
            return
        self._outstanding = None
        if rejected:
            self.counters.rejected_tx += 1
            self._out.append(Output(REJECTED, pending.handle, pending.kind, pending.payload,
                                    pending.seq))
        else:
            self._out.append(Output(ACKED, pending.handle, pending.kind, b"", pending.seq))
        if pump:
            self._pump(now)

    def _nak(self, reason: int, seq: int, now: int) -> None:
        self.counters.naks_tx += 1
        self._write(fr.encode_frame(m.NAK, m.nak(reason), seq), now)

    def _on_error(self, span: fr.Garbled, now: int) -> None:
        self.counters.errors += 1
        self._out.append(Output(GARBLED, reason=span.reason))
        if not self._connected:
            return
        if span.reason in fr.INTACT:
            # read intact but unusable: refuse it for good; an unknown control frame (a newer
            # protocol's) is ignored (§6)
            if span.seq is not None and span.kind is not None and span.kind >= 0x10:
                self.counters.rejected_rx += 1
                self._nak(m.NAK_REJECTED, span.seq, now)
        elif self._last_nak is None or now - self._last_nak >= self.timings.nak_holdoff:
            self._last_nak = now
            self._nak(m.NAK_CORRUPT, 0, now)

    def _on_frame(self, f: fr.Frame, now: int) -> None:
        self.counters.frames_rx += 1
        kind = f.kind
        if kind == m.HELLO:
            self._on_hello(m.Hello(f.payload), now)
            return
        if kind == m.WELCOME:
            return  # a host never sends one; another controller on the line is ignored
        if not self._connected:
            if not m.is_control(kind):
                self.counters.ignored += 1
            return
        self._last_rx = now
        if kind == m.HEARTBEAT:
            return
        pending = self._outstanding
        if kind == m.ACK:
            if pending is not None and f.seq == pending.seq:
                self._settle(now, False)
            return  # a late ack (of a seq already settled) changes nothing
        if kind == m.NAK:
            self.counters.naks_rx += 1
            if pending is None:
                return
            if f.payload[0] == m.NAK_REJECTED:
                if f.seq == pending.seq:
                    self._settle(now, True)
            else:
                # the host rate-limits its corrupt NAKs (nak_holdoff), which bounds these
                self._retransmit(now)
            return
        self._on_data(kind, f.payload, f.seq, now)

    def _on_data(self, kind: int, payload: bytes, seq: int, now: int) -> None:
        if seq == self._rx_last:
            self.counters.duplicates += 1
            self._write(fr.encode_frame(m.ACK, b"", seq), now)
            return
        if not m.is_command(kind) or (self._accept is not None
                                      and not self._accept(kind, payload)):
            self.counters.rejected_rx += 1
            self._nak(m.NAK_REJECTED, seq, now)
            return
        self._rx_last = seq
        self.counters.delivered += 1
        self._out.append(Output(DELIVERED, 0, kind, payload, seq))
        self._write(fr.encode_frame(m.ACK, b"", seq), now)

    def _on_hello(self, hello: m.Hello, now: int) -> None:
        lo, hi = self.versions
        if hello.max_version < lo or hello.min_version > hi:
            # no common version: say so (version 0) and stay unconnected (§7.1)
            self._write(fr.encode_frame(m.WELCOME, m.welcome(
                0, self.capabilities, self.boot_id, None, self.firmware)), now)
            return
        self.version = hello.max_version if hello.max_version < hi else hi
        if hello.boot_id != self.peer_boot_id:
            # a new host process: its command seqs start afresh (§7.4)
            self.peer_boot_id = hello.boot_id
            self._rx_last = None
        self._write(fr.encode_frame(m.WELCOME, m.welcome(
            self.version, self.capabilities, self.boot_id, self._rx_last, self.firmware)), now)
        pending = self._outstanding
        if (pending is not None and hello.rx_boot_id == self.boot_id
                and hello.rx_last == pending.seq):
            # delivered before the link broke, only the ack was lost (§7.7)
            self._settle(now, False, False)
        self._connect(now)
