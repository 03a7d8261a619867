"""What one end of the table link reports (drivers/link/arq.py ``Endpoint.drain``): deliveries,
acknowledgements, refusals, connection changes, its counters, and the durable receive position a
restarted host starts from (docs/protocol/table-link.md §7.1, §7.7)."""

from __future__ import annotations

from dataclasses import dataclass
from enum import Enum, StrEnum

from drivers.link.frame import ErrorSpan
from drivers.link.messages import Capability, Command, TableEvent


class Role(Enum):
    HOST = "host"
    CONTROLLER = "controller"


class LossReason(StrEnum):
    SILENCE = "silence"  # nothing valid heard for link_timeout
    NO_ACK = "no_ack"  # a frame went unacknowledged max_retries times
    TRANSPORT = "transport"  # the port or device went away


@dataclass(frozen=True, slots=True)
class LinkCounters:
    frames_rx: int = 0
    frames_tx: int = 0
    delivered: int = 0
    duplicates: int = 0
    retransmits: int = 0
    naks_rx: int = 0
    naks_tx: int = 0
    errors: int = 0
    rejected_rx: int = 0  # frames we refused (NAK rejected sent)
    rejected_tx: int = 0  # our frames the peer refused
    ignored: int = 0  # data frames heard while not connected
    connects: int = 0
    link_losses: int = 0


# --- what an endpoint reports -----------------------------------------------------------------


@dataclass(frozen=True, slots=True)
class RxPosition:
    """A place in a peer's stream: the peer's boot id and the seq of a frame from it. As what a
    receiver has made durable of that stream (the last frame delivered *and* kept -- the host:
    committed to its log), a restarted host starts from it, so its ``hello`` tells the
    controller what is already safe. The one (boot, seq) value: a :class:`Delivered` frame's,
    the table driver's receipt (``drivers.table.link.Delivery``), the event log's link row."""

    peer_boot_id: int
    seq: int


@dataclass(frozen=True, slots=True)
class Delivered:
    """A sequenced message from the peer, delivered once (then acknowledged); ``at``: where it
    stands in the peer's stream."""

    message: TableEvent | Command
    at: RxPosition


@dataclass(frozen=True, slots=True)
class Acked:
    handle: int


@dataclass(frozen=True, slots=True)
class LinkRejected:
    """The peer refused a sequenced message (NAK ``rejected``, docs/firmware.md)."""

    handle: int
    message: TableEvent | Command


@dataclass(frozen=True, slots=True)
class Connected:
    version: int
    capabilities: frozenset[Capability]
    firmware: str
    peer_boot_id: int


@dataclass(frozen=True, slots=True)
class Incompatible:
    """The controller answered our hello with version 0 (no common protocol version), or with
    a firmware this host refuses (``reason``, docs/firmware.md)."""

    offered: tuple[int, int]
    firmware: str
    reason: str = ""  # set when the firmware itself is refused (drivers.link.compat)


@dataclass(frozen=True, slots=True)
class Lost:
    reason: LossReason


@dataclass(frozen=True, slots=True)
class Garbled:
    span: ErrorSpan


Output = Delivered | Acked | LinkRejected | Connected | Incompatible | Lost | Garbled
