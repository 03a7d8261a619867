"""What ``jantaku run`` checks before anything starts, beyond the config's own values: the places
it must write and the web port it must listen on.

Each of these used to pass ``--check`` and fail only later: a taken web port after READY (the web
task then restarted in a loop), an unwritable event-log directory and a log file in a missing
directory each in a long traceback. Under systemd every one became a restart loop. Here each is
one :class:`~daemon.errors.ConfigError` line (``jantaku run: FILE: key: why``, exit 2) before
READY, for ``--check`` (``ExecStartPre``) and for a start alike.

Writability is tried, not asked: ``os.access`` says yes to root on every directory, so a probe
file is created and removed (a read-only mount, an immutable directory or a path under a file
all refuse it, for root too).

For a start the web listener is bound here and kept (:func:`bind_web`): the port cannot be taken
between the check and the server, and a web task that dies later serves the same socket again.
"""

from __future__ import annotations

import contextlib
import errno
import os
import socket
from pathlib import Path

from daemon.config.values import Config, WebConfig
from daemon.errors import ConfigError


def check(config: Config) -> None:
    """The event log's directory and the log file can be written (raises ConfigError)."""
    file = config.source
    _writable_dir(file, "eventlog.path", config.eventlog.path.parent)
    _writable_file(file, "eventlog.path", config.eventlog.path)
    for suffix in ("-wal", "-shm"):  # SQLite's companions, written beside the log
        _writable_file(file, "eventlog.path", Path(f"{config.eventlog.path}{suffix}"))
    if config.logging.file != "-":
        log_file = Path(config.logging.file)
        _writable_dir(file, "logging.file", log_file.parent)
        _writable_file(file, "logging.file", log_file)


def _writable_dir(file: Path, key: str, directory: Path) -> None:
    if not directory.is_dir():
        what = "is not a directory" if directory.exists() else "does not exist"
        raise ConfigError(f"{file}: {key}: directory {directory} {what}")
    probe = directory / f".jantaku-write-probe-{os.getpid()}"
    try:
        fd = os.open(probe, os.O_WRONLY | os.O_CREAT | os.O_EXCL | os.O_CLOEXEC, 0o600)
    except OSError as exc:
        raise ConfigError(
            f"{file}: {key}: directory {directory} cannot be written ({exc.strerror})"
        ) from None
    os.close(fd)
    with contextlib.suppress(OSError):
        probe.unlink()


def _writable_file(file: Path, key: str, path: Path) -> None:
    """An existing file is opened for writing (nothing written, nothing truncated)."""
    if not path.exists():
        return
    if path.is_dir():
        raise ConfigError(f"{file}: {key}: {path} is a directory")
    try:
        fd = os.open(path, os.O_WRONLY | os.O_APPEND | os.O_CLOEXEC)
    except OSError as exc:
        raise ConfigError(f"{file}: {key}: {path} cannot be written ({exc.strerror})") from None
    os.close(fd)


def bind_web(config: Config) -> list[socket.socket]:
    """The web server's listening sockets, bound and listening (none without ``[web]``); a port
    that is taken or not allowed is a ConfigError. The caller owns the sockets."""
    web = config.web
    if web is None:
        return []
    return _bind(config.source, web)


def check_web(config: Config) -> None:
    """``--check``: the web port can be bound now (the sockets are closed again)."""
    for sock in bind_web(config):
        sock.close()


def _bind(file: Path, web: WebConfig) -> list[socket.socket]:
    from daemon.web.listener import bind

    where = f"{web.host}:{web.port}"
    try:
        return bind(web.host, web.port)
    except socket.gaierror as exc:
        raise ConfigError(f"{file}: web.host: cannot resolve {web.host!r} ({exc.strerror})") \
            from None
    except OSError as exc:
        why = "is taken" if exc.errno == errno.EADDRINUSE else "cannot be bound"
        raise ConfigError(f"{file}: web.port: {where} {why} ({exc.strerror})") from None
