"""The table link: the protocol between the Pi and the controller board inside the table.

Pure (no I/O, no clock): messages (:mod:`.messages`), framing and the incremental decoder
(:mod:`.frame`), and the reliable-delivery state machine (:mod:`.arq`). The asyncio session and
transports are in :mod:`drivers.table`. Specification: docs/protocol/table-link.md.
"""

from drivers.link.errors import (
    CommandRejectedError,
    IncompatibleTableError,
    LinkClosedError,
    LinkError,
    MalformedMessageError,
    UnsupportedCommandError,
)
from drivers.link.frame import (
    Decoder,
    ErrorReason,
    ErrorSpan,
    Frame,
    decode_all,
    encode,
    encode_frame,
)
from drivers.link.messages import Command, Message, TableEvent, message_from_json

__all__ = [
    "Command",
    "CommandRejectedError",
    "Decoder",
    "ErrorReason",
    "ErrorSpan",
    "Frame",
    "IncompatibleTableError",
    "LinkClosedError",
    "LinkError",
    "MalformedMessageError",
    "Message",
    "TableEvent",
    "UnsupportedCommandError",
    "decode_all",
    "encode",
    "encode_frame",
    "message_from_json",
]
