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
import json
import os
import shutil
import signal
import socket
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable, Iterator, Mapping
from pathlib import Path
from typing import TYPE_CHECKING, Any, Final, TypeVar

from hil.errors import EmulatorTimeout, EmulatorUsageError

if TYPE_CHECKING:  # the demo imports this module: it needs neither at run time
    from daemon.log_audit import LogAudit
    from daemon.table import Applied, TableCore
    from daemon.tracking.records import Body
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


async def until(cond: Callable[[], object], timeout: float = 30.0, what: str = "condition", *,
                interval: float = 0.02) -> None:
    """Poll ``cond`` until it holds; :class:`EmulatorTimeout` (a ``TimeoutError``) naming
    ``what`` after ``timeout`` seconds."""
    try:
        async with asyncio.timeout(timeout):
            while not cond():
                await asyncio.sleep(interval)
    except TimeoutError:
        raise EmulatorTimeout(f"{what} not met in {timeout} s") from None


def until_sync(cond: Callable[[], object], timeout: float = 30.0, what: str = "condition", *,
               interval: float = 0.02) -> Any:
    """``until`` for callers without an event loop (browser tests, threads): polls ``cond`` and
    returns its first true value; :class:`EmulatorTimeout` after ``timeout`` seconds, naming
    ``what``."""
    deadline = time.monotonic() + timeout
    while True:
        got = cond()
        if got:
            return got
        if time.monotonic() > deadline:
            raise EmulatorTimeout(f"{what} not met in {timeout} s")
        time.sleep(interval)


#: a TOML table as :func:`daemon_config` takes it: keys to values, a dict a sub-table, a list of
#: dicts an array of tables
Section = Mapping[str, Any]


def _toml_value(v: object) -> str:
    match v:
        case bool():
            return "true" if v else "false"
        case int() | float():
            return repr(v)
        case str() | Path():
            return json.dumps(str(v))  # a TOML basic string: JSON's escapes are TOML's
        case list() | tuple():
            return "[" + ", ".join(_toml_value(x) for x in v) + "]"
    raise EmulatorUsageError(f"no TOML value for {v!r}")


def _toml_table(name: str, body: Section, out: list[str]) -> None:
    tables = {k: v for k, v in body.items() if isinstance(v, Mapping)}
    arrays = {k: v for k, v in body.items()
              if isinstance(v, list) and v and all(isinstance(x, Mapping) for x in v)}
    if len(tables) + len(arrays) < len(body) or not body:  # a header only for keys of its own
        out.append(f"\n[{name}]")
    out.extend(f"{k} = {_toml_value(v)}" for k, v in body.items()
               if k not in tables and k not in arrays)
    for k, sub in tables.items():
        _toml_table(f"{name}.{k}", sub, out)
    for k, items in arrays.items():
        for item in items:
            out.append(f"\n[[{name}.{k}]]")
            out.extend(f"{ik} = {_toml_value(iv)}" for ik, iv in item.items())


def _merged(base: Section, over: Section) -> dict[str, Any]:
    out = dict(base)
    for k, v in over.items():
        out[k] = _merged(out[k], v) if isinstance(v, Mapping) and isinstance(
            out.get(k), Mapping) else v
    return out


def daemon_config(table: str, db: Path | str, broker_port: int | None, *,
                  ruleset: str = "mleague", link: str | None = None, web: int | None = None,
                  sections: Section | None = None) -> str:
    """The config file ``jantaku run`` reads (docs/config.md), as every test and bench writes
    it: the table ``table`` (``ruleset``), its event log at ``db``, the broker on
    127.0.0.1:``broker_port`` (None: the config's default port); the table controller on the
    serial port ``link`` (else none); the web server on 127.0.0.1:``web`` (else off).
    ``sections`` adds or overrides keys, merged table by table (``{"mqtt": {"keepalive": 10},
    "referee": {"users": [...]}}``)."""
    device: dict[str, Any] = {"kind": "none"} if link is None else {
        "kind": "serial", "path": link, "baud": 115200}
    base: dict[str, Any] = {
        "table": {"id": table, "ruleset": ruleset},
        "eventlog": {"path": str(db)},
        "mqtt": {"host": "127.0.0.1"} if broker_port is None else {
            "host": "127.0.0.1", "port": broker_port},
        "devices": {"table": device},
    }
    if web is not None:
        base["web"] = {"host": "127.0.0.1", "port": web}
    out = ["config_version = 1"]
    for name, body in _merged(base, sections or {}).items():
        _toml_table(name, body, out)
    return "\n".join(out) + "\n"


def die_with_parent() -> None:
    """In a child (``preexec_fn``): SIGTERM when the parent dies, even by SIGKILL (Linux prctl
    PR_SET_PDEATHSIG), so a killed test, bench or demo leaves no process behind."""
    import ctypes

    with contextlib.suppress(OSError, AttributeError):
        ctypes.CDLL("libc.so.6", use_errno=True).prctl(1, signal.SIGTERM)


_Proc = TypeVar("_Proc", bound="subprocess.Popen[Any]")


def reap(proc: subprocess.Popen[Any], grace_s: float = 10.0) -> None:
    """Make sure ``proc`` is gone: SIGTERM, then SIGKILL after ``grace_s`` seconds (at once when
    ``grace_s`` is 0: a crash, no clean shutdown)."""
    if proc.poll() is not None:
        return
    if grace_s > 0:
        proc.terminate()
        try:
            proc.wait(grace_s)
            return
        except subprocess.TimeoutExpired:
            pass
    proc.kill()
    proc.wait()


@contextlib.contextmanager
def reaped(proc: _Proc, grace_s: float = 10.0) -> Iterator[_Proc]:
    """``proc`` is gone when the block ends, by return, exception or timeout alike: see
    :func:`reap`."""
    try:
        yield proc
    finally:
        reap(proc, grace_s)


@contextlib.contextmanager
def reaped_fork(pid: int) -> Iterator[int]:
    """A child made by ``os.fork`` (no Popen to reap) is gone when the block ends: SIGKILLed and
    waited for, unless the block waited for it already (then its pid is not looked at again: no
    other process can have taken it while it was this process's unwaited child)."""
    try:
        yield pid
    finally:
        with contextlib.suppress(ChildProcessError):  # waited for in the block
            if os.waitpid(pid, os.WNOHANG) == (0, 0):  # still running
                os.kill(pid, signal.SIGKILL)
                os.waitpid(pid, 0)


@contextlib.asynccontextmanager
async def reaped_async(proc: asyncio.subprocess.Process,
                       grace_s: float = 10.0) -> AsyncIterator[asyncio.subprocess.Process]:
    """:func:`reaped` for an asyncio child (``asyncio.create_subprocess_exec``)."""
    try:
        yield proc
    finally:
        if proc.returncode is None:
            with contextlib.suppress(ProcessLookupError):
                proc.terminate()
            with contextlib.suppress(TimeoutError):
                await asyncio.wait_for(proc.wait(), grace_s)
            if proc.returncode is None:
                with contextlib.suppress(ProcessLookupError):
                    proc.kill()
                await proc.wait()


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


def commit_one(core: TableCore, kind: str, source: str, body: Body, mono_ns: int,
               wall_ns: int, boot: str) -> Applied:
    """Log ``body`` (fsync'ed) and apply it, as a group of one: what the tests and benches that
    drive a :class:`~daemon.table.TableCore` without the intake need."""
    from daemon.table import Applied, Pending  # at run time only: the demo imports this module

    applied = core.submit_group([Pending(kind, source, body, mono_ns, wall_ns, boot)])[0]
    assert isinstance(applied, Applied), applied
    return applied
