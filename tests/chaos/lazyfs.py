"""A FUSE passthrough that loses, on a "power cut", everything not yet synced (the approach of
LazyFS, github.com/dsrhaslab/lazyfs): the test's power switch.

    python lazyfs.py BACKING MOUNT      # foreground; commands on stdin, one answer line each

Commands: ``cut`` (drop every write not fsync'ed and undo every create, rename and unlink whose
directory was not fsync'ed since; answers ``cut <pages dropped> <entries undone>``), ``stats``,
``dirsync PATH`` (the directory PATH, as seen in the mount, gets synchronous entries: a create,
rename or unlink in it is durable at once, as ext4's ``chattr +D`` or the ``dirsync`` mount
option make it).

What is modelled: file data is kept in memory, page by page, until ``fsync``/``fdatasync`` of
that file writes it to BACKING (and fsyncs it there); a size change likewise. Directory entries
(create, rename, unlink) reach BACKING at once, but are undone by a cut until an ``fsync`` of
their directory. ``close`` makes nothing durable. Not modelled: torn writes inside a page, and
reordering of synced writes (a synced write is durable, which is what fsync promises).

The mount uses ``attr_timeout=0,entry_timeout=0`` and the default ``keep_cache`` off, so the
kernel asks again after a cut instead of serving what it cached before it.
"""

from __future__ import annotations

import errno
import os
import sys
import threading
from dataclasses import dataclass, field
from typing import Any

from fuse import FUSE, FuseOSError, Operations  # type: ignore[import-untyped]

PAGE = 4096


@dataclass
class Pending:
    """A file's writes not synced yet: pages as the file would read now, and its size."""

    size: int
    floor: int  # BACKING's bytes at and past this are gone (a truncate not synced yet)
    pages: dict[int, bytearray] = field(default_factory=dict)


@dataclass
class Entry:
    """A directory change not synced: undone by a cut."""

    op: str  # create | rename | unlink
    path: str  # create/unlink: the name; rename: the new name
    old: str = ""  # rename: the old name
    trash: str = ""  # unlink / rename over a file: where the replaced file waits
    dirs: set[str] = field(default_factory=set)


class LazyFS(Operations):  # type: ignore[misc]
    def __init__(self, root: str) -> None:
        self.root = os.path.realpath(root)
        self.trash = self.root + ".lazyfs-trash"
        os.makedirs(self.trash, exist_ok=True)
        self.mutex = threading.RLock()
        self.pending: dict[str, Pending] = {}
        self.journal: list[Entry] = []
        self.serial = 0
        self.dirsync: set[str] = set()  # directories whose entries are durable at once

    # ------------------------------------------------------------------ helpers
    def _full(self, path: str) -> str:
        return os.path.join(self.root, path.lstrip("/"))

    def _parent(self, path: str) -> str:
        return os.path.dirname(path.rstrip("/")) or "/"

    def _page(self, path: str, p: Pending, n: int) -> bytearray:
        page = p.pages.get(n)
        if page is None:
            page = bytearray(PAGE)
            start = n * PAGE
            if start < p.floor:
                with open(self._full(path), "rb") as fh:
                    fh.seek(start)
                    data = fh.read(min(PAGE, p.floor - start))
                page[:len(data)] = data
            p.pages[n] = page
        return page

    def _pending(self, path: str) -> Pending:
        p = self.pending.get(path)
        if p is None:
            size = os.lstat(self._full(path)).st_size
            p = self.pending[path] = Pending(size, size)
        return p

    def _sync(self, path: str) -> None:
        p = self.pending.pop(path, None)
        if p is None:
            return
        fd = os.open(self._full(path), os.O_WRONLY)
        try:
            os.ftruncate(fd, min(p.floor, p.size))
            for n, page in sorted(p.pages.items()):
                end = min(PAGE, p.size - n * PAGE)
                if end > 0:
                    os.pwrite(fd, bytes(page[:end]), n * PAGE)
            os.ftruncate(fd, p.size)
            os.fsync(fd)
        finally:
            os.close(fd)

    def _journal(self, entry: Entry) -> None:
        entry.dirs -= self.dirsync
        if entry.dirs:
            self.journal.append(entry)

    def _to_trash(self, full: str) -> str:
        self.serial += 1
        target = os.path.join(self.trash, str(self.serial))
        os.rename(full, target)
        return target

    # ------------------------------------------------------------------ the switch
    def cut(self) -> str:
        with self.mutex:
            dropped = sum(len(p.pages) for p in self.pending.values())
            self.pending.clear()
            undone = len(self.journal)
            for e in reversed(self.journal):
                match e.op:
                    case "create":
                        if os.path.lexists(self._full(e.path)):
                            os.unlink(self._full(e.path))
                    case "unlink":
                        os.rename(e.trash, self._full(e.path))
                    case "rename":
                        os.rename(self._full(e.path), self._full(e.old))
                        if e.trash:
                            os.rename(e.trash, self._full(e.path))
            self.journal.clear()
            return f"cut {dropped} {undone}"

    # ------------------------------------------------------------------ files
    def getattr(self, path: str, fh: Any = None) -> dict[str, Any]:
        with self.mutex:
            try:
                st = os.lstat(self._full(path))
            except OSError as exc:
                raise FuseOSError(exc.errno) from None
            attrs = {k: getattr(st, k) for k in ("st_atime", "st_ctime", "st_gid", "st_mode",
                                                 "st_mtime", "st_nlink", "st_size", "st_uid")}
            p = self.pending.get(path)
            if p is not None:
                attrs["st_size"] = p.size
            return attrs

    def open(self, path: str, flags: int) -> int:
        with self.mutex:
            fd = os.open(self._full(path), flags & ~(os.O_TRUNC | os.O_APPEND))
            if flags & os.O_TRUNC:
                self.truncate(path, 0)
            return fd

    def create(self, path: str, mode: int, fi: Any = None) -> int:
        with self.mutex:
            full = self._full(path)
            existed = os.path.lexists(full)
            fd = os.open(full, os.O_RDWR | os.O_CREAT, mode)
            if not existed:
                self._journal(Entry("create", path, dirs={self._parent(path)}))
            else:
                self.truncate(path, 0)
            return fd

    def read(self, path: str, size: int, offset: int, fh: int) -> bytes:
        with self.mutex:
            p = self.pending.get(path)
            if p is None:
                return os.pread(fh, size, offset)
            end = min(offset + size, p.size)
            out = bytearray()
            at = offset
            while at < end:
                n, within = divmod(at, PAGE)
                take = min(PAGE - within, end - at)
                if n in p.pages:
                    out += p.pages[n][within:within + take]
                elif at < p.floor:
                    data = os.pread(fh, min(take, p.floor - at), at)
                    out += data + bytes(take - len(data))
                else:
                    out += bytes(take)
                at += take
            return bytes(out)

    def write(self, path: str, data: bytes, offset: int, fh: int) -> int:
        with self.mutex:
            p = self._pending(path)
            at, view = offset, memoryview(data)
            while view:
                n, within = divmod(at, PAGE)
                take = min(PAGE - within, len(view))
                self._page(path, p, n)[within:within + take] = view[:take]
                view, at = view[take:], at + take
            p.size = max(p.size, offset + len(data))
            return len(data)

    def truncate(self, path: str, length: int, fh: Any = None) -> None:
        with self.mutex:
            p = self._pending(path)
            for n in [n for n in p.pages if n * PAGE >= length]:
                del p.pages[n]
            n, within = divmod(length, PAGE)
            if n in p.pages:
                p.pages[n][within:] = bytes(PAGE - within)
            p.size = length
            p.floor = min(p.floor, length)

    def fsync(self, path: str, datasync: int, fh: int) -> int:
        with self.mutex:
            self._sync(path)
        return 0

    def fsyncdir(self, path: str, datasync: int, fh: int) -> int:
        with self.mutex:
            for e in self.journal:
                e.dirs.discard(path)
            self.journal = [e for e in self.journal if e.dirs]
            fd = os.open(self._full(path), os.O_RDONLY)
            try:
                os.fsync(fd)
            finally:
                os.close(fd)
        return 0

    def flush(self, path: str, fh: int) -> int:
        return 0  # close() promises nothing about the disk

    def release(self, path: str, fh: int) -> int:
        os.close(fh)
        return 0

    # ------------------------------------------------------------------ names
    def unlink(self, path: str) -> None:
        with self.mutex:
            self.pending.pop(path, None)
            trash = self._to_trash(self._full(path))
            self._journal(Entry("unlink", path, trash=trash, dirs={self._parent(path)}))

    def rename(self, old: str, new: str) -> None:
        with self.mutex:
            trash = ""
            if os.path.lexists(self._full(new)):
                self.pending.pop(new, None)
                trash = self._to_trash(self._full(new))
            os.rename(self._full(old), self._full(new))
            if old in self.pending:
                self.pending[new] = self.pending.pop(old)
            self._journal(Entry("rename", new, old=old, trash=trash,
                                dirs={self._parent(old), self._parent(new)}))

    def readdir(self, path: str, fh: int) -> list[str]:
        return [".", "..", *os.listdir(self._full(path))]

    def mkdir(self, path: str, mode: int) -> None:
        os.mkdir(self._full(path), mode)

    def rmdir(self, path: str) -> None:
        os.rmdir(self._full(path))

    def access(self, path: str, amode: int) -> None:
        if not os.access(self._full(path), amode):
            raise FuseOSError(errno.EACCES)

    def chmod(self, path: str, mode: int) -> None:
        os.chmod(self._full(path), mode)

    def chown(self, path: str, uid: int, gid: int) -> None:
        os.chown(self._full(path), uid, gid)

    def utimens(self, path: str, times: Any = None) -> None:
        os.utime(self._full(path), times)

    def statfs(self, path: str) -> dict[str, Any]:
        st = os.statvfs(self._full(path))
        return {k: getattr(st, k) for k in ("f_bavail", "f_bfree", "f_blocks", "f_bsize",
                                            "f_favail", "f_ffree", "f_files", "f_flag",
                                            "f_frsize", "f_namemax")}


def _commands(fs: LazyFS) -> None:
    for line in sys.stdin:
        cmd = line.strip()
        if cmd == "cut":
            answer = fs.cut()
        elif cmd.startswith("dirsync /"):
            with fs.mutex:
                fs.dirsync.add(cmd.split(" ", 1)[1].rstrip("/") or "/")
            answer = cmd
        elif cmd == "stats":
            with fs.mutex:
                answer = f"stats {len(fs.pending)} {len(fs.journal)}"
        else:
            answer = f"unknown {cmd!r}"
        print(answer, flush=True)


def main() -> None:
    backing, mount = sys.argv[1], sys.argv[2]
    fs = LazyFS(backing)
    threading.Thread(target=_commands, args=(fs,), daemon=True).start()
    FUSE(fs, mount, foreground=True, nothreads=False, attr_timeout=0, entry_timeout=0,
         negative_timeout=0)


if __name__ == "__main__":
    main()


class Mount:
    """The test side: ``with Mount(backing, mount) as fs: ... fs.cut()``."""

    def __init__(self, backing: str | os.PathLike[str], mount: str | os.PathLike[str]) -> None:
        import subprocess

        self.backing, self.mount = os.fspath(backing), os.fspath(mount)
        os.makedirs(self.backing, exist_ok=True)
        os.makedirs(self.mount, exist_ok=True)
        self._proc = subprocess.Popen(
            [sys.executable, os.path.abspath(__file__), self.backing, self.mount],
            stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def __enter__(self) -> Mount:
        import time

        deadline = time.monotonic() + 20
        while not os.path.ismount(self.mount):
            if self._proc.poll() is not None or time.monotonic() > deadline:
                self._proc.kill()  # no __exit__ follows a failed __enter__
                self._proc.wait()
                raise RuntimeError(f"lazyfs did not mount {self.mount}")
            time.sleep(0.02)
        return self

    def ask(self, cmd: str) -> str:
        assert self._proc.stdin is not None and self._proc.stdout is not None
        self._proc.stdin.write(cmd + "\n")
        self._proc.stdin.flush()
        return self._proc.stdout.readline().strip()

    def dirsync(self, directory: str | os.PathLike[str]) -> None:
        """Entries in ``directory`` (under the mount) durable at once: ``chattr +D``."""
        path = "/" + os.path.relpath(os.fspath(directory), self.mount).strip("./")
        assert self.ask(f"dirsync {path}") == f"dirsync {path}"

    def cut(self) -> tuple[int, int]:
        """The power cut: every write and directory entry not synced is gone."""
        _, pages, entries = self.ask("cut").split()
        return int(pages), int(entries)

    def __exit__(self, *exc: object) -> None:
        import shutil
        import subprocess

        subprocess.run(["umount", "-l", self.mount], check=False, capture_output=True)
        try:
            self._proc.wait(10)
        except subprocess.TimeoutExpired:
            self._proc.kill()
            self._proc.wait()
        # the disk below (often on /dev/shm) and the unlinked files kept for a cut to restore
        shutil.rmtree(self.backing, ignore_errors=True)
        shutil.rmtree(os.path.realpath(self.backing) + ".lazyfs-trash", ignore_errors=True)


def available() -> str | None:
    """Why a FUSE mount cannot be made here (None: it can)."""
    if not os.path.exists("/dev/fuse"):
        return "no /dev/fuse"
    if os.geteuid() != 0:
        return "mounting a FUSE file system needs root here"
    return None
