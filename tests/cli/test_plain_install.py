"""Issue 13 item 3: a plain ``pip install .`` is slim and works without the camera stack.

A copy of this checkout (its tracked and new files, as a clone has them) is installed into a fresh
venv made without pip, so its site-packages holds exactly what the runtime pulls in. Then, as an
operator would, through the installed console script: the size stays within the goal, none of
the camera distributions is there, a config without a camera checks and the demo plays, and a
config with ``[tiles.camera]`` or ``jantaku tiles detect`` is refused in one line naming the extra.
pip's cache is warm on CI and here (about 15 s).
"""

from __future__ import annotations

import fcntl
import os
import shutil
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest

REPO = Path(__file__).resolve().parents[2]
GOAL_MB = 60
CAMERA_MODULES = ("numpy", "PIL", "cv2", "onnxruntime", "mahjong_detector")
NEEDS_EXTRA = "needs the 'camera' extra"
HINT = "pip install 'jantaku[camera]'"


def _copy_checkout(dest: Path) -> None:
    out = subprocess.run(["git", "ls-files", "-z", "--cached", "--others", "--exclude-standard"],
                         cwd=REPO, capture_output=True, check=True)
    for name in out.stdout.decode().split("\0"):
        src = REPO / name
        if name and src.is_file():
            (dest / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(src, dest / name)


@pytest.fixture(scope="module")
def venv(tmp_path_factory: pytest.TempPathFactory) -> Iterator[Path]:
    """One install for the whole run: pytest-xdist's workers share the base temp directory's
    parent, and the first to take the lock installs while the other waits (the tests only read
    the venv; each runs in its own tmp_path)."""
    shared = tmp_path_factory.getbasetemp()
    if os.environ.get("PYTEST_XDIST_WORKER"):
        shared = shared.parent
    root = shared / "plain-install"
    root.mkdir(exist_ok=True)
    src, env, done = root / "clone", root / "venv", root / "installed"
    with open(root / "lock", "w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)
        if not done.exists():
            shutil.rmtree(src, ignore_errors=True)  # what a failed attempt left
            shutil.rmtree(env, ignore_errors=True)
            _copy_checkout(src)
            subprocess.run([sys.executable, "-m", "venv", "--without-pip", str(env)], check=True)
            subprocess.run([sys.executable, "-m", "pip", "--python", str(env / "bin" / "python"),
                            "install", "-q", str(src)], check=True, capture_output=True,
                           timeout=900)
            done.touch()
    yield env


def site_packages(env: Path) -> Path:
    [found] = list((env / "lib").glob("python3*/site-packages"))
    return found


def size_mb(path: Path) -> float:
    return sum(f.stat().st_size for f in path.rglob("*") if f.is_file()) / 1e6


def jantaku(env: Path, *args: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    return subprocess.run([str(env / "bin" / "jantaku"), *args], capture_output=True, text=True,
                          timeout=120, cwd=cwd, env={**os.environ, "PYTHONPATH": ""})


def config(tmp_path: Path, camera: str | None) -> Path:
    text = (f'config_version = 1\n[table]\nid = "plain{os.getpid()}"\nruleset = "mleague"\n'
            f'[eventlog]\npath = "{tmp_path / "t.sqlite"}"\n'
            '[mqtt]\nhost = "127.0.0.1"\nport = 1883\n[devices.table]\nkind = "none"\n')
    if camera is not None:
        text += (f'[tiles.camera]\nsource = "{camera}"\n[[tiles.camera.zones]]\nname = "river0"\n'
                 'seat = 0\nzone = "river"\nrect = [0, 0, 640, 360]\n')
    path = tmp_path / "t.toml"
    path.write_text(text)
    return path


def test_the_runtime_fits_the_size_goal_without_the_camera_stack(venv: Path) -> None:
    site = site_packages(venv)
    mb = size_mb(site)
    print(f"plain `pip install .`: site-packages {mb:.1f} MB (goal {GOAL_MB} MB)")
    assert mb <= GOAL_MB
    probe = "import importlib.util as u; print(*[m for m in %r if u.find_spec(m)])"
    res = subprocess.run([str(venv / "bin" / "python"), "-c", probe % (CAMERA_MODULES,)],
                         capture_output=True, text=True, check=True)
    assert res.stdout.split() == []


def test_a_config_without_a_camera_checks_and_the_demo_plays(venv: Path, tmp_path: Path) -> None:
    res = jantaku(venv, "run", "--config", str(config(tmp_path, None)), "--check", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
    demo = jantaku(venv, "demo", "--headless", "--hands", "1", "--speed", "1000",
                   "--http-port", "0", "--table-id", f"plain{os.getpid()}", cwd=tmp_path)
    # it plays to its summary without the extra (whether the daemon equalled the simulator is
    # tests/cli/test_demo_cli.py's question: exit 1 says it did not)
    assert demo.returncode in (0, 1) and "Traceback" not in demo.stderr, demo.stderr[-2000:]
    assert '"event": "summary", "games": 1, "hands": 1' in demo.stdout


@pytest.mark.parametrize("source", ["picamera2", "opencv:0"])
def test_a_camera_config_is_refused_in_one_line_naming_the_extra(
    venv: Path, tmp_path: Path, source: str
) -> None:
    cfg = config(tmp_path, source)
    res = jantaku(venv, "run", "--config", str(cfg), "--check", cwd=tmp_path)
    assert res.returncode == 2
    [line] = res.stderr.splitlines()
    assert line.startswith(f"jantaku run: {cfg}: tiles.camera {NEEDS_EXTRA}")
    assert line.endswith(HINT)
    assert ("opencv-python-headless" in line) == (source == "opencv:0")
    # Without --check the daemon refuses the same way, before it starts anything.
    run = jantaku(venv, "run", "--config", str(cfg), cwd=tmp_path)
    assert run.returncode == 2 and run.stderr.splitlines() == [line]
    assert not (tmp_path / "t.sqlite").exists()


def test_tiles_detect_names_the_extra(venv: Path, tmp_path: Path) -> None:
    image = tmp_path / "frame.png"
    image.write_bytes(b"\x89PNG\r\n\x1a\n")
    res = jantaku(venv, "tiles", "detect", str(image), cwd=tmp_path)
    assert res.returncode == 2
    [line] = res.stderr.splitlines()
    assert line.startswith(f"jantaku tiles detect: camera detection {NEEDS_EXTRA}")
    assert "mahjong-detector" in line and line.endswith(HINT)


def test_with_the_extra_the_same_camera_config_checks(tmp_path: Path) -> None:
    # The dev venv (make setup) has the extra: the camera config above is valid there.
    here = Path(sys.executable).parent
    cfg = config(tmp_path, "opencv:0")
    res = jantaku(here.parent, "run", "--config", str(cfg), "--check", cwd=tmp_path)
    assert res.returncode == 0, res.stderr
