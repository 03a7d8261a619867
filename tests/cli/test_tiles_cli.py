"""``jantaku tiles`` through a real subprocess: enrolment from stdin and from an emulated serial
reader, resume, refusals; ``detect`` on a composed image."""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import threading
from collections.abc import Iterator
from pathlib import Path

import pytest

from drivers.tiles.detector import load_detector
from drivers.tiles.enroll import Enrolment, load, save
from hil.camera_emulator import Shot, render_shot
from hil.kit import reaped
from hil.rfid_emulator import SerialReaderEmulator
from rules.tiles import Kind, Tile

ROOT = Path(__file__).resolve().parents[2]
CLI = [sys.executable, "-c", "import sys; from daemon.cli import main; sys.exit(main())"]


def jantaku(*args: str, stdin: str = "") -> subprocess.CompletedProcess[str]:
    return subprocess.run([*CLI, "tiles", *args], input=stdin,
                          capture_output=True, text=True, cwd=ROOT, timeout=60)


@contextlib.contextmanager
def enrolling(state: Path, *reader: str) -> Iterator[subprocess.Popen[str]]:
    """``jantaku tiles enroll STATE READER...`` as a process, gone (SIGKILL) when the block ends;
    killed after 60 s too, so that a read of its output that would block for good gets EOF (the
    hang guard of a test that reads it line by line)."""
    proc = subprocess.Popen(
        [*CLI, "tiles", "enroll", str(state), *reader],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.PIPE, text=True,
        env={**os.environ, "PYTHONUNBUFFERED": "1"},
    )
    guard = threading.Timer(60, proc.kill)
    guard.start()
    try:
        with reaped(proc, grace_s=0):
            yield proc
    finally:
        guard.cancel()


def tag(i: int) -> str:
    return f"E0040000{i:04X}"


def test_guided_enrolment_refuses_a_duplicate_and_resumes(tmp_path: Path) -> None:
    state = tmp_path / "set-a.json"
    first = jantaku("enroll", str(state), stdin=f"{tag(0)}\n{tag(1)}\n\n{tag(0)}\n{tag(2)}\n")
    assert first.returncode == 0, first.stderr
    lines = first.stdout.splitlines()
    assert lines[0] == f"{state}: 0/136 enrolled"
    assert lines[1] == "scan 1m copy 1 of 4 [tile 0] (1/136):"
    assert f"ok: {tag(0)} is 1m copy 1 of 4 [tile 0]" in lines
    refused = [ln for ln in lines if ln.startswith("refused:")]
    assert refused == [f"refused: tag {tag(0)} is already enrolled for 1m copy 1 of 4 [tile 0]; "
                       "refused for 1m copy 3 of 4 [tile 2] (same tile scanned twice, or two "
                       "tiles with the same UID)"]
    assert lines[-1] == f"stopped at 3/136; run again with {state} to resume"
    assert load(state).by_tile == {Tile(0): tag(0), Tile(1): tag(1), Tile(2): tag(2)}

    second = jantaku("enroll", str(state), stdin=f"{tag(1)}\n{tag(3)}\n")
    out = second.stdout.splitlines()
    assert out[0] == f"{state}: 3/136 enrolled (resumed)"
    assert out[1] == "scan 1m copy 4 of 4 [tile 3] (4/136):"
    assert out[2].startswith(f"refused: tag {tag(1)} is already enrolled for 1m copy 2 of 4")
    assert load(state).by_tile[Tile(3)] == tag(3)


def test_one_tile_by_id_refused_twice_then_replaced_after_forget(tmp_path: Path) -> None:
    state = tmp_path / "s.json"
    assert jantaku("enroll", str(state), "--tile", "52", stdin="0A0B0C0D\n").returncode == 0
    again = jantaku("enroll", str(state), "--tile", "52", stdin="0A0B0C0E\n")
    assert "refused: 5p (red) [tile 52] already has tag 0A0B0C0D" in again.stdout
    assert jantaku("enroll", str(state), "--forget", "0a0b0c0d").returncode == 0
    assert jantaku("enroll", str(state), "--tile", "52", stdin="0A0B0C0E\n").returncode == 0
    assert load(state).by_tile == {Tile(52): "0A0B0C0E"}


def test_bad_state_files_and_arguments_exit_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("{not json")
    res = jantaku("enroll", str(bad), stdin="0A0B0C0D\n")
    assert res.returncode == 2 and "is not JSON" in res.stderr and str(bad) in res.stderr
    assert jantaku("enroll", str(tmp_path / "x.json"), "--tile", "136").returncode == 2
    assert jantaku("bogus").returncode == 2


def test_enrolment_from_an_emulated_serial_reader_completes_the_set(tmp_path: Path) -> None:
    state = tmp_path / "set.json"
    full = Enrolment()
    for i in range(134):
        full = full.scan(tag(i))
    save(full, state)
    emu = SerialReaderEmulator(tmp_path / "by-path" / "usb-rfid-port0")
    emu.plug()
    try:
        with enrolling(state, "--serial", str(emu.path)) as proc:
            assert proc.stderr is not None
            assert proc.stderr.readline().startswith("reader connected: ")
            emu.write(b"\xffnoise")
            emu.tag(tag(5))  # already enrolled: refused
            emu.bad_checksum(tag(134))  # never enrolled
            emu.tag(tag(134))
            emu.tag(tag(135))
            out, err = proc.communicate(timeout=30)
    finally:
        emu.unplug()
    assert proc.returncode == 0, err
    assert "reader garbage: " in err and "reader bad-checksum: " in err
    assert f"refused: tag {tag(5)} is already enrolled for 2m copy 2 of 4 [tile 5]" in out
    assert out.splitlines()[-1] == "complete: all 136 tiles enrolled"
    done = load(state)
    assert done.complete and done.registry().tile(tag(135)) == Tile(135)


def test_detect_prints_tiles_left_to_right_as_json(tmp_path: Path) -> None:
    shot = Shot({"river0": ["2m", "7p", "S", "9s", "P", "4m", "1p", "6s", "N", "8m"]})
    frame, truth = render_shot(shot)
    from PIL import Image

    image = tmp_path / "river.png"
    Image.fromarray(frame.image).save(image)
    res = jantaku("detect", str(image), "--threshold", "0.5")
    assert res.returncode == 0, res.stderr
    got = json.loads(res.stdout)
    assert [d["box"][0] for d in got] == sorted(d["box"][0] for d in got)
    assert all(d["confidence"] >= 0.5 for d in got)
    expected = sorted((d for d in load_detector().detect(frame.image) if d.confidence >= 0.5),
                      key=lambda d: d.box[0])
    assert [d["tile"] for d in got] == [d.kind.mjai for d in expected]
    right = sum(
        any(p.box[0] <= (d["box"][0] + d["box"][2]) / 2 <= p.box[2]
            and Kind.from_mjai(p.mjai) == Kind.from_mjai(d["tile"]) for p in truth)
        for d in got)
    assert right >= len(truth) // 2
    missing = jantaku("detect", str(tmp_path / "nope.png"))
    assert missing.returncode == 2 and "nope.png" in missing.stderr


@pytest.mark.parametrize("args", [["enroll", "--help"], ["--help"]])
def test_help(args: list[str]) -> None:
    assert jantaku(*args).returncode == 0




def test_enrolment_from_an_emulated_keyboard_reader(tmp_path: Path) -> None:
    from hil.rfid_emulator import KeyboardReaderEmulator

    state = tmp_path / "set.json"
    emu = KeyboardReaderEmulator(tmp_path / "by-path" / "usb-0:1.1:1.0-event-kbd")
    emu.plug()
    try:
        with enrolling(state, "--evdev", str(emu.path)) as proc:  # killed when the block ends
            assert proc.stdout is not None and proc.stderr is not None
            assert proc.stderr.readline().startswith("reader connected: ")
            assert proc.stderr.readline().startswith("reader grab-failed: EVIOCGRAB")
            emu.tag("04A1B2C3")
            emu.keys("04XY")  # garbage: shown, not enrolled
            emu.tag("04A1B2C4")
            lines: list[str] = []
            while not any(ln.startswith("scan 1m copy 3 of 4") for ln in lines):
                line = proc.stdout.readline()
                assert line, f"enrol ended early: {lines}"
                lines.append(line.strip())
            assert "reader garbage: " in proc.stderr.readline()
    finally:
        emu.unplug()
    assert load(state).by_tile == {Tile(0): "04A1B2C3", Tile(1): "04A1B2C4"}
