"""The kit the tests and the benches share: a free port, a polled wait, the slow switch, a
throwaway CA for a broker's TLS listener, and the steps production code has no use for (one input
committed alone, a link session's handshake, one audit of the log run to its end).

``SLOW`` is ``JANTAKU_SLOW=1`` (docs/engineering.md): soak, fuzz and power-cut runs take their long
form; by default each runs a bounded form that fits the suite's time. ``until`` polls a condition
with a hang guard: the guard makes a broken build fail instead of hanging and is never a measure
of speed (speed is measured by bench/, not by timed tests).
"""

from __future__ import annotations

import asyncio
import contextlib
import os
import shutil
import signal
import socket
import subprocess
import sys
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final

from hil.errors import EmulatorTimeout

if TYPE_CHECKING:  # the demo imports this module: it needs neither at run time
    from daemon.log_audit import LogAudit
    from daemon.table import Applied, TableCore
    from drivers.table.link import LinkState
    from drivers.table.session import LinkSession

#: the long forms of soak, fuzz and power-cut tests (``JANTAKU_SLOW=1``)
SLOW: Final = os.environ.get("JANTAKU_SLOW") == "1"


def bounded(ci: int, slow: int) -> int:
    """``slow`` with ``JANTAKU_SLOW=1``, else ``ci``: the size of a soak or fuzz run."""
    return slow if SLOW else ci


def free_port(host: str = "127.0.0.1") -> int:
    """A TCP port nothing listens on now (the kernel's pick, released for the caller)."""
    with socket.socket() as s:
        s.bind((host, 0))
        return int(s.getsockname()[1])


async def until(cond: Callable[[], object], timeout: float = 30.0, interval: float = 0.02) -> None:
    """Poll ``cond`` until it holds; :class:`EmulatorTimeout` (a ``TimeoutError``) after
    ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not cond():
                await asyncio.sleep(interval)
    except TimeoutError:
        raise EmulatorTimeout(f"condition not met in {timeout} s") from None


def die_with_parent() -> None:
    """In a child (``preexec_fn``): SIGTERM when the parent dies, even by SIGKILL (Linux prctl
    PR_SET_PDEATHSIG), so a killed test, bench or demo leaves no process behind."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


@contextlib.contextmanager
def reaped(proc: subprocess.Popen[bytes],
           grace_s: float = 10.0) -> Iterator[subprocess.Popen[bytes]]:
    """``proc`` is gone when the block ends, by return, exception or timeout alike: SIGTERM,
    then SIGKILL after ``grace_s`` seconds."""
    try:
        yield proc
    finally:
        if proc.poll() is None:
            proc.terminate()
            try:
                proc.wait(grace_s)
            except subprocess.TimeoutExpired:
                proc.kill()
                proc.wait()


def _openssl(*args: str, cwd: Path) -> None:
    subprocess.run(["openssl", *args], cwd=cwd, check=True, capture_output=True)


def make_ca(d: Path) -> None:
    """A throwaway CA (``ca.crt``) and a broker certificate for ``localhost`` and 127.0.0.1
    (``broker.crt``, ``broker.key``) in ``d``, made with the openssl CLI."""
    _openssl("req", "-x509", "-newkey", "rsa:2048", "-nodes", "-days", "2", "-subj",
             "/CN=jantaku test CA", "-keyout", "ca.key", "-out", "ca.crt", cwd=d)
    _openssl("req", "-newkey", "rsa:2048", "-nodes", "-subj", "/CN=localhost",
             "-keyout", "broker.key", "-out", "broker.csr", cwd=d)
    (d / "ext.cnf").write_text("subjectAltName=DNS:localhost,IP:127.0.0.1\n")
    _openssl("x509", "-req", "-in", "broker.csr", "-CA", "ca.crt", "-CAkey", "ca.key",
             "-CAcreateserial", "-days", "2", "-extfile", "ext.cnf", "-out", "broker.crt", cwd=d)


def jantaku() -> str:
    """The ``jantaku`` console script of this environment (beside the interpreter, else on PATH):
    what a test or bench runs as the real process."""
    beside = Path(sys.executable).with_name("jantaku")
    found = str(beside) if beside.exists() else shutil.which("jantaku")
    assert found, "the jantaku console script is not installed (make setup)"
    return found


async def connected(link: LinkSession) -> LinkState:
    """Wait until ``link``'s handshake has completed (again); its state then."""
    await link._connected.wait()
    return link.state


def audit_now(audit: LogAudit) -> None:
    """One audit of the whole log on the audit's own thread (its low priority), waited for: what
    the daemon's task does once READY. Its outcome is in ``audit.state`` and ``audit.fault``."""
    audit._executor.submit(audit._audit).result()


def commit_one(core: TableCore, kind: str, source: str, body: dict[str, Any], mono_ns: int,
               wall_ns: int, boot: str) -> Applied:
    """Log ``body`` (fsync'ed) and apply it, as a group of one: what the tests and benches that
    drive a :class:`~daemon.table.TableCore` without the intake need."""
    from daemon.table import Applied, Pending  # at run time only: the demo imports this module

    applied = core.submit_group([Pending(kind, source, body, mono_ns, wall_ns, boot)])[0]
    assert isinstance(applied, Applied), applied
    return applied
