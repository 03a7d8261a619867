"""systemd's notify protocol, stdlib only: datagrams to ``$NOTIFY_SOCKET`` (sd_notify(3)).

``READY=1`` once the daemon is up, ``WATCHDOG=1`` while it is healthy, ``STOPPING=1`` on the way
out, ``STATUS=...`` for ``systemctl status``. Without ``NOTIFY_SOCKET`` (not under systemd) every
call is a no-op that returns False. An abstract socket is written ``@name`` in the variable.
"""

from __future__ import annotations

import os
import socket


class Notifier:
    def __init__(self, address: str | None = None) -> None:
        self.address = os.environ.get("NOTIFY_SOCKET") if address is None else address
        self._sock: socket.socket | None = None
        if self.address:
            self._sock = socket.socket(socket.AF_UNIX, socket.SOCK_DGRAM | socket.SOCK_CLOEXEC)

    @property
    def enabled(self) -> bool:
        return self._sock is not None

    def _target(self) -> str | bytes:
        assert self.address
        if self.address.startswith("@"):
            return b"\0" + self.address[1:].encode()
        return self.address

    def notify(self, *fields: str) -> bool:
        """Send ``KEY=value`` fields in one datagram; False when not under systemd or on error."""
        if self._sock is None:
            return False
        data = "\n".join(fields).encode()
        try:
            # never waits: a manager slow to read its socket must not stall the daemon's loop
            # (a datagram socket's queue holds only net.unix.max_dgram_qlen messages)
            self._sock.sendto(data, socket.MSG_DONTWAIT, self._target())
        except OSError:
            return False
        return True

    def ready(self, status: str = "") -> bool:
        return self.notify("READY=1", *([f"STATUS={status}"] if status else []))

    def watchdog(self) -> bool:
        return self.notify("WATCHDOG=1")

    def stopping(self, status: str = "") -> bool:
        return self.notify("STOPPING=1", *([f"STATUS={status}"] if status else []))

    def status(self, text: str) -> bool:
        return self.notify(f"STATUS={text}")

    def close(self) -> None:
        if self._sock is not None:
            self._sock.close()
            self._sock = None


def watchdog_interval() -> float | None:
    """Seconds between WATCHDOG=1 (half of ``$WATCHDOG_USEC``), or None when no watchdog is set
    for this process (``$WATCHDOG_PID`` names another)."""
    usec = os.environ.get("WATCHDOG_USEC")
    pid = os.environ.get("WATCHDOG_PID")
    if not usec or not usec.isdigit() or int(usec) == 0:
        return None
    if pid and pid.isdigit() and int(pid) != os.getpid():
        return None
    return int(usec) / 1e6 / 2
