"""Score displays: the table's own (through the table link, :class:`LinkBoardDisplay`) or a
standalone serial display (:class:`SerialDisplay`, line protocol in :mod:`.lines`)."""

from drivers.display.board import BoardDisplay, LinkBoardDisplay, Scoreboard
from drivers.display.errors import DisplayError, DisplayProtocolError, DisplayReplyError
from drivers.display.serial import SerialDisplay

__all__ = [
    "BoardDisplay",
    "DisplayError",
    "DisplayProtocolError",
    "DisplayReplyError",
    "LinkBoardDisplay",
    "Scoreboard",
    "SerialDisplay",
]
