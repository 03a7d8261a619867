"""Issue 13 items 1-2: the repository works from any clone location, with nothing beside it.

A static sweep of every tracked text file: no absolute path of a developer's machine (this
checkout's own folder, a work or home tree of a developer; the install location ``/opt/jantaku`` of
``docs/install.md`` and the unit is a deliberate, documented path) and no test data read
from ``../shared`` (the reference folder beside the development checkout, absent in a clone).
The runtime half is the rest of the suite: it runs from this checkout, wherever that is.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEXT = {".py", ".toml", ".md", ".cfg", ".ini", ".service", ".rules", ".sh", ".conf", ".txt",
        ".json", ".html", ".js", ".css", ""}
# Spelled in pieces so that this file does not match itself.
ABSOLUTE = re.compile("|".join(re.escape("/" + p + "/") for p in ("work", "home", "root", "Users")))
# A path expression that leaves the repository for the reference folder beside it.
OUTSIDE = re.compile(r"parents\[[3-9]\]|" + re.escape("shared" + "/data") + "|"
                     + re.escape("shared" + "/rules/source") + "|"
                     + re.escape("shared" + "/spec") + r"[^.\s`]*\.md\"")


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    files = [REPO / name for name in out.stdout.decode().split("\0") if name]
    return [f for f in files if f.is_file() and f.suffix in TEXT and "tests/data/" not in str(f)]


def test_no_file_names_an_absolute_path_of_a_machine() -> None:
    me = str(REPO)
    bad: list[str] = []
    for path in tracked():
        text = path.read_text(encoding="utf-8", errors="replace")
        for n, line in enumerate(text.splitlines(), 1):
            if me in line or ABSOLUTE.search(line):
                bad.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)


def test_no_test_reads_the_reference_folder_beside_the_checkout() -> None:
    bad = []
    for path in tracked():
        if path.suffix != ".py" or "tests" not in path.relative_to(REPO).parts[:1]:
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), 1):
            if OUTSIDE.search(line):
                bad.append(f"{path.relative_to(REPO)}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)
