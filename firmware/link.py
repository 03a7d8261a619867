"""The controller's end of the table link (docs/protocol/table-link.md §7): handshake, stop-and-
wait delivery with acks, NAKs and retransmission, duplicate suppression, heartbeats, link loss.

Pure: bytes and the time (integer milliseconds, never wrapping: the board's clock unwraps
``time.ticks_ms``) come in as arguments. What happened goes to a :class:`Listener`, one method
per kind of report, so a listener that forgets one is a type error (``mypy --strict``), not a
report dropped at run time; what to write accumulates in the preallocated ``tx`` buffer
(``tx_len`` bytes), which the transport empties with :meth:`Link.consume`. Integer milliseconds
because MicroPython's floats on the RP2040 are 30-bit: seconds as floats would lose the
millisecond within hours.

A frame without payload (ack, heartbeat, NAK) is encoded and decoded without allocating
(docs/firmware.md "Memory and timing").
"""

from firmware import crc
from firmware import frame as fr
from firmware import messages as m
from firmware.errors import FirmwareConfigError, FrameError

try:
    from typing import TYPE_CHECKING
except ImportError:  # MicroPython has no typing module
    TYPE_CHECKING = False  # type: ignore[misc,unused-ignore]
if TYPE_CHECKING:
    from typing import Protocol

    class Listener(Protocol):
        """What a :class:`Link` reports. ``accepts`` may refuse a command (NAK ``rejected``)."""

        def accepts(self, kind: int, payload: bytes) -> bool: ...

        def delivered(self, kind: int, payload: bytes, seq: int, now: int) -> None:
            """A command, delivered once (its ack is already written)."""

        def acked(self, handle: int, kind: int, seq: int) -> None: ...

        def rejected(self, handle: int, kind: int, payload: bytes, seq: int) -> None:
            """The host refused an event (NAK ``rejected``): it is dropped."""

        def connected(self, peer_boot_id: int, now: int) -> None: ...

        def lost(self, reason: str, now: int) -> None: ...

        def garbled(self, reason: str) -> None:
            """A damaged or unusable chunk was heard."""

SILENCE = "silence"  # nothing valid heard for link_timeout
NO_ACK = "no_ack"  # an event went unacknowledged max_retries times
TRANSPORT = "transport"  # the port went away

TX_SIZE = 2048  # bytes the transport may leave unwritten (a host that does not read) before
# frames are dropped: the protocol recovers a lost frame (retransmit, NAK, hello)


class Timings:
    """The link's timings in milliseconds (defaults: §7, the host's ``LinkTimings``)."""

    def __init__(self, heartbeat_interval: int = 250, link_timeout: int = 1000,
                 ack_timeout: int = 150, max_retries: int = 4, nak_holdoff: int = 20) -> None:
        if min(heartbeat_interval, link_timeout, ack_timeout, max_retries, nak_holdoff) <= 0:
            raise FirmwareConfigError("every timing must be > 0")
        if link_timeout < 2 * heartbeat_interval:
            raise FirmwareConfigError("link_timeout must be at least two heartbeat intervals")
        self.heartbeat_interval = heartbeat_interval
        self.link_timeout = link_timeout
        self.ack_timeout = ack_timeout
        self.max_retries = max_retries
        self.nak_holdoff = nak_holdoff


class Counters:
    """The same counters as the host's ``LinkCounters``, and the controller's own."""

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
        self.tx_dropped = 0  # frames not written: the transport left ``tx`` full


class Recorder:
    """A :class:`Listener` that keeps every report as a tuple (tests and tools; the board's
    listener is :class:`firmware.table.Table`). It accepts every command."""

    def __init__(self) -> None:
        self.reports: list[tuple[object, ...]] = []

    def accepts(self, kind: int, payload: bytes) -> bool:
        return True

    def delivered(self, kind: int, payload: bytes, seq: int, now: int) -> None:
        self.reports.append(("delivered", kind, payload, seq))

    def acked(self, handle: int, kind: int, seq: int) -> None:
        self.reports.append(("acked", handle, kind, seq))

    def rejected(self, handle: int, kind: int, payload: bytes, seq: int) -> None:
        self.reports.append(("rejected", handle, kind, payload, seq))

    def connected(self, peer_boot_id: int, now: int) -> None:
        self.reports.append(("connected", peer_boot_id))

    def lost(self, reason: str, now: int) -> None:
        self.reports.append(("lost", reason))

    def garbled(self, reason: str) -> None:
        self.reports.append(("garbled", reason))


class _Pending:
    def __init__(self, handle: int, kind: int, payload: bytes, seq: int, sent_at: int) -> None:
        self.handle = handle
        self.kind = kind
        self.payload = payload
        self.seq = seq
        self.sent_at = sent_at
        self.retries = 0


class Link:
    def __init__(self, boot_id: int, capabilities: int, firmware: str,
                 timings: Timings | None = None, versions: tuple[int, int] = (1, 1),
                 max_queue: int = 256, tx_size: int = TX_SIZE) -> None:
        if not 1 <= boot_id <= 0xFFFFFFFF:
            raise FirmwareConfigError("boot_id must be 1..2**32-1")
        m.welcome(1, capabilities, boot_id, None, firmware)  # fails early on a bad string
        self.boot_id = boot_id
        self.capabilities = capabilities
        self.firmware = firmware
        self.timings = timings or Timings()
        self.versions = versions
        self.max_queue = max_queue
        self.listener: Listener = Recorder()
        self.version = 0
        self.peer_boot_id: int | None = None
        self.counters = Counters()
        self.mute = False  # fault injection (hil): count frames, write none
        self.dropped = 0  # events refused for a full queue, not reported yet (events_dropped)
        self._attached = False
        self._connected = False
        self._decoder = fr.Decoder()
        self._now = 0  # the time of the input being decoded (the decoder's sink has none)
        self._last_rx = 0
        self._last_tx: int | None = None
        self._last_nak: int | None = None
        # sequencing: survives detach/attach; rx_last is reset when the host's boot id changes
        self._tx_seq = 0
        self._rx_last: int | None = None
        self._queue: list[tuple[int, int, bytes]] = []
        self._outstanding: _Pending | None = None
        self._next_handle = 1
        #: the last data frame's bytes, kept only when ``keep_last`` (the emulator's duplicates)
        self.keep_last = False
        self.last_data_frame: bytes | None = None
        self.tx = bytearray(tx_size)
        self.tx_len = 0
        self._body = bytearray(fr.MAX_BODY)
        self._halves = crc.new_halves()

    def listen(self, listener: "Listener") -> None:
        self.listener = listener

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

    def consume(self, n: int) -> None:
        """The transport wrote the first ``n`` bytes of ``tx``."""
        left = self.tx_len - n
        if left > 0:
            tx = self.tx
            i = 0
            while i < left:
                tx[i] = tx[n + i]
                i += 1
        self.tx_len = left if left > 0 else 0

    def take_tx(self) -> bytes:
        """What is to be written, as bytes (the host's emulator and tests; allocates)."""
        data = bytes(memoryview(self.tx)[:self.tx_len])
        self.tx_len = 0
        return data

    def write_raw(self, data: bytes) -> None:
        """Bytes for the wire that bypass the protocol (the emulator's fault injection)."""
        if self.tx_len + len(data) > len(self.tx):
            self.counters.tx_dropped += 1
            return
        self.tx[self.tx_len:self.tx_len + len(data)] = data
        self.tx_len += len(data)

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
            self._lose(TRANSPORT, now)
        self._attached = False
        self.tx_len = 0

    def send(self, kind: int, payload: bytes, now: int) -> int:
        """Queue a table event; returns the handle its ``acked``/``rejected`` report carries, or
        0 when the queue is full: the event is dropped, counted (``counters.overflows``) and
        reported to the host later (``events_dropped``)."""
        if not m.is_event(kind) or kind not in m.KNOWN_TYPES:
            raise FrameError("a controller sends table events (0x10..0x1F), not " + str(kind))
        error = m.payload_error(kind, payload)
        if error is not None:
            raise FrameError(error)
        if len(self._queue) >= self.max_queue:
            self.counters.overflows += 1
            self.dropped += 1
            return 0
        handle = self._next_handle
        self._next_handle += 1
        self._queue.append((handle, kind, bytes(payload)))
        self._pump(now)
        return handle

    def receive(self, data: "bytes | bytearray", now: int, size: int = -1) -> None:
        """Take ``data`` (its first ``size`` bytes: a preallocated read buffer)."""
        if not self._attached:
            return
        self._now = now
        self._decoder.feed_into(data, len(data) if size < 0 else size, self)

    def tick(self, now: int) -> None:
        if not self._connected:
            return
        t = self.timings
        pending = self._outstanding
        if now - self._last_rx >= t.link_timeout:
            self._lose(SILENCE, now)
        elif pending is not None and now - pending.sent_at >= t.ack_timeout:
            if pending.retries >= t.max_retries:
                self._lose(NO_ACK, now)
            else:
                pending.retries += 1
                self._retransmit(now)
        if self._connected and (self._last_tx is None
                                or now - self._last_tx >= t.heartbeat_interval):
            self._write(m.HEARTBEAT, b"", 0, False, now)

    # --- the decoder's sink --------------------------------------------------------------------

    def rx_frame(self, kind: int, payload: bytes, seq: int, retransmit: bool, offset: int,
                 length: int) -> None:
        self._on_frame(kind, payload, seq, self._now)

    def rx_garbled(self, reason: str, offset: int, length: int, seq: int, kind: int) -> None:
        self._on_error(reason, seq, kind, self._now)

    # --- internals -----------------------------------------------------------------------------

    def _write(self, kind: int, payload: bytes, seq: int, retransmit: bool, now: int) -> bool:
        """Encode one frame into ``tx``; False when it did not fit (dropped, counted)."""
        self.counters.frames_tx += 1
        self._last_tx = now
        if self.mute:
            return True
        if self.tx_len + fr.wire_size(len(payload)) > len(self.tx):
            self.counters.tx_dropped += 1
            return False
        self.tx_len = fr.encode_into(self.tx, self.tx_len, kind, payload, seq, retransmit,
                                     self._body, self._halves)
        return True

    def _write_data(self, pending: _Pending, retransmit: bool, now: int) -> None:
        start = self.tx_len
        if self._write(pending.kind, pending.payload, pending.seq, retransmit, now) \
                and self.keep_last and not self.mute:
            self.last_data_frame = bytes(memoryview(self.tx)[start:self.tx_len])

    def _lose(self, reason: str, now: int) -> None:
        self._connected = False
        if self._outstanding is not None:
            self._outstanding.retries = 0
        self.counters.link_losses += 1
        self.listener.lost(reason, now)

    def _connect(self, now: int) -> None:
        if not self._connected:
            self._connected = True
            self.counters.connects += 1
            self.listener.connected(self.peer_boot_id or 0, now)
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
        if self.dropped:
            # the queue just made room: the gap goes in where it happened, before any event
            # queued after it
            self._queue.append((0, m.EVENTS_DROPPED, m.events_dropped(self.dropped)))
            self.dropped = 0
        seq = self._tx_seq
        self._tx_seq = (seq + 1) & 0xFF
        pending = self._outstanding = _Pending(handle, kind, payload, seq, now)
        self._write_data(pending, False, now)

    def _retransmit(self, now: int) -> None:
        pending = self._outstanding
        if pending is None:
            return
        pending.sent_at = now
        self.counters.retransmits += 1
        self._write_data(pending, True, now)

    def _settle(self, now: int, rejected: bool, pump: bool = True) -> None:
        pending = self._outstanding
        if pending is None:
            return
        self._outstanding = None
        if rejected:
            self.counters.rejected_tx += 1
            self.listener.rejected(pending.handle, pending.kind, pending.payload, pending.seq)
        else:
            self.listener.acked(pending.handle, pending.kind, pending.seq)
        if pump:
            self._pump(now)

    def _nak(self, reason: int, seq: int, now: int) -> None:
        self.counters.naks_tx += 1
        self._write(m.NAK, m.NAK_PAYLOADS[reason], seq, False, now)

    def _on_error(self, reason: str, seq: int, kind: int, now: int) -> None:
        self.counters.errors += 1
        self.listener.garbled(reason)
        if not self._connected:
            return
        if reason in fr.INTACT:
            # read intact but unusable: refuse it for good; an unknown control frame (a newer
            # protocol's) is ignored (§6)
            if seq >= 0 and kind >= 0x10:
                self.counters.rejected_rx += 1
                self._nak(m.NAK_REJECTED, seq, now)
        elif self._last_nak is None or now - self._last_nak >= self.timings.nak_holdoff:
            self._last_nak = now
            self._nak(m.NAK_CORRUPT, 0, now)

    def _on_frame(self, kind: int, payload: bytes, seq: int, now: int) -> None:
        self.counters.frames_rx += 1
        if kind == m.HELLO:
            self._on_hello(m.Hello(payload), now)
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
            if pending is not None and seq == pending.seq:
                self._settle(now, False)
            return  # a late ack (of a seq already settled) changes nothing
        if kind == m.NAK:
            self.counters.naks_rx += 1
            if pending is None:
                return
            if payload[0] == m.NAK_REJECTED:
                if seq == pending.seq:
                    self._settle(now, True)
            else:
                # the host rate-limits its corrupt NAKs (nak_holdoff), which bounds these
                self._retransmit(now)
            return
        self._on_data(kind, payload, seq, now)

    def _on_data(self, kind: int, payload: bytes, seq: int, now: int) -> None:
        if seq == self._rx_last:
            self.counters.duplicates += 1
            self._write(m.ACK, b"", seq, False, now)
            return
        if not m.is_command(kind) or not self.listener.accepts(kind, payload):
            self.counters.rejected_rx += 1
            self._nak(m.NAK_REJECTED, seq, now)
            return
        self._rx_last = seq
        self.counters.delivered += 1
        self._write(m.ACK, b"", seq, False, now)
        self.listener.delivered(kind, payload, seq, now)

    def _on_hello(self, hello: m.Hello, now: int) -> None:
        lo, hi = self.versions
        if hello.max_version < lo or hello.min_version > hi:
            # no common version: say so (version 0) and stay unconnected (§7.1)
            self._write(m.WELCOME, m.welcome(0, self.capabilities, self.boot_id, None,
                                             self.firmware), 0, False, now)
            return
        self.version = hello.max_version if hello.max_version < hi else hi
        if hello.boot_id != self.peer_boot_id:
            # a new host process: its command seqs start afresh (§7.4)
            self.peer_boot_id = hello.boot_id
            self._rx_last = None
        self._write(m.WELCOME, m.welcome(self.version, self.capabilities, self.boot_id,
                                         self._rx_last, self.firmware), 0, False, now)
        pending = self._outstanding
        if (pending is not None and hello.rx_boot_id == self.boot_id
                and hello.rx_last == pending.seq):
            # delivered before the link broke, only the ack was lost (§7.7)
            self._settle(now, False, False)
        self._connect(now)
