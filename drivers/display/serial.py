"""A standalone serial score display (7-segment or LCD) speaking the line protocol of
:mod:`drivers.display.lines`, for tables whose controller has no displays of its own.

One request at a time; each waits ``reply_timeout`` for its reply line and is sent again up to
``retries`` times (every command sets absolute state, so repeating one is harmless). A transport
that fails is reopened by the next request.
"""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Self

from drivers.display.board import Scoreboard
from drivers.display.errors import DisplayReplyError
from drivers.display.lines import (
    Clear,
    DisplayCommand,
    Err,
    LineSplitter,
    Reply,
    SetClocks,
    SetHonba,
    SetScores,
    format_command,
    parse_reply,
)
from drivers.table.transport import Transport, TransportError


class SerialDisplay:
    def __init__(self, transport: Transport, *, reply_timeout: float = 0.5,
                 retries: int = 2) -> None:
        self.transport = transport
        self.reply_timeout = reply_timeout
        self.retries = retries
        self._replies: asyncio.Queue[Reply | None] = asyncio.Queue()
        self._lock = asyncio.Lock()
        self._reader: asyncio.Task[None] | None = None

    def __repr__(self) -> str:
        return f"<SerialDisplay {self.transport.name}>"

    async def __aenter__(self) -> Self:
        await self._open()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()

    async def close(self) -> None:
        if self._reader is not None:
            self._reader.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await self._reader
            self._reader = None
        await self.transport.close()

    async def show(self, board: Scoreboard) -> None:
        await self.request(SetHonba(board.honba, board.deposits))
        await self.request(SetScores(board.scores))

    async def show_clocks(self, clocks: SetClocks) -> None:
        await self.request(clocks)

    async def clear(self) -> None:
        await self.request(Clear())

    async def request(self, command: DisplayCommand) -> Reply:
        line = format_command(command)
        async with self._lock:
            broken = False
            for _ in range(self.retries + 1):
                if broken or self._reader is None or self._reader.done():
                    await self._reopen()
                    broken = False
                while not self._replies.empty():  # late replies to an earlier attempt
                    self._replies.get_nowait()
                try:
                    await self.transport.write(line)
                    async with asyncio.timeout(self.reply_timeout):
                        reply = await self._replies.get()
                except TransportError:
                    broken = True
                    continue
                except TimeoutError:
                    continue
                if reply is None:  # the transport failed while we waited
                    broken = True
                    continue
                if isinstance(reply, Err):
                    raise DisplayReplyError(f"{self.transport.name} refused {line!r}: ERR "
                                       f"{reply.code} {reply.text}")
                return reply
        raise DisplayReplyError(f"{self.transport.name} did not answer {line!r} "
                           f"({self.retries + 1} attempts)")

    async def _open(self) -> None:
        await self.transport.open()
        self._reader = asyncio.create_task(self._read(), name=f"display {self.transport.name}")

    async def _reopen(self) -> None:
        await self.close()
        with contextlib.suppress(TransportError):  # then the write fails: one attempt spent
            await self._open()

    async def _read(self) -> None:
        splitter = LineSplitter()
        try:
            while True:
                for line in splitter.feed(await self.transport.read()):
                    if line is None:
                        continue
                    with contextlib.suppress(ValueError):  # noise on the line is no reply
                        self._replies.put_nowait(parse_reply(line))
        except TransportError:
            self._replies.put_nowait(None)
