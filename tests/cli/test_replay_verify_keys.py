"""Issue 28 item 8, ``jantaku replay`` as a process: keys known to be informational (the mjai
server's ``logs`` on every event, gimite/mjai and mjai-manue) are a note, not a difference; an
unknown key is reported but does not fail ``--verify``; only what changes the replay fails it,
and the count printed is that of ``verify.differences``. A folder replay reads the mjai server's
``.mjson`` files and names every file it skipped, with why."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

from console_script import jantaku_command

DATA = Path(__file__).resolve().parent.parent / "data"
ORIGINAL = DATA / "mjai/original_riichi_ippatsu.jsonl"  # gimite/mjai's dialect


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([jantaku_command(), "replay", *args], capture_output=True, text=True,
                          timeout=120)


def events() -> list[dict[str, Any]]:
    return [json.loads(x) for x in ORIGINAL.read_text(encoding="utf-8").splitlines() if x]


def write(path: Path, evs: list[dict[str, Any]]) -> Path:
    path.write_text("".join(json.dumps(e) + "\n" for e in evs), encoding="utf-8")
    return path


def with_server_logs(evs: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """As the mjai server archives a game: each event with its ``logs`` (per player)."""
    return [{**e, "logs": {str(i): f"player {i} thinks" for i in range(4)}} for e in evs]


def test_the_mjai_server_s_logs_key_is_not_a_difference(tmp_path: Path) -> None:
    evs = with_server_logs(events())
    path = write(tmp_path / "server.mjson", evs)
    r = run(str(path), "--verify")
    assert r.returncode == 0, r.stdout + r.stderr
    assert f"{path}: verified: every hand matches the record" in r.stdout
    assert (f"note: the mjai server's player logs ('logs', on {len(evs)} event(s)): "
            "informational, left aside") in r.stdout
    assert "difference" not in r.stdout + r.stderr
    r = run(str(path), "--verify", "--json")
    assert r.returncode == 0 and r.stderr == ""
    out = json.loads(r.stdout)
    assert out["verify"] == {"ok": True, "differences": []} and out["issues"] == []


def test_an_unknown_key_is_reported_and_changes_nothing(tmp_path: Path) -> None:
    evs = events()
    hora = next(e for e in evs if e["type"] == "hora")
    hora["uradora_marker"] = hora["uradora_markers"][0]  # a misspelt field: said, left aside
    path = write(tmp_path / "odd.jsonl", evs)
    r = run(str(path), "--verify")
    assert r.returncode == 0, r.stdout
    assert "hora: unknown key 'uradora_marker' ignored" in r.stdout
    assert "verified: every hand matches the record" in r.stdout
    r = run(str(path), "--verify", "--json")
    out = json.loads(r.stdout)
    assert out["verify"] == {"ok": True, "differences": []}
    [issue] = out["issues"]
    assert issue["affects_replay"] is False and "uradora_marker" in issue["reason"]


def test_what_changes_the_replay_fails_it_and_the_count_is_the_differences(
        tmp_path: Path) -> None:
    evs = with_server_logs(events())
    hora = next(e for e in evs if e["type"] == "hora")
    hora["deltas"] = [d + (100 if i == hora["actor"] else -100 if i == hora["target"] else 0)
                      for i, d in enumerate(hora["deltas"])]
    path = write(tmp_path / "wrong.mjson", evs)
    r = run(str(path), "--verify", "--json")
    assert r.returncode == 1
    diffs = json.loads(r.stdout)["verify"]["differences"]
    assert diffs and [d["what"] for d in diffs] == ["deltas"]
    assert r.stderr.splitlines()[0] == f"{path}: {len(diffs)} difference(s) with the record"
    # an import issue that changes the replay counts apart, and fails it
    r = run(str(DATA / "game-logs/mjai-reviewer/confusing_nakis_2.json"), "--verify", "--json")
    assert r.returncode == 1
    out = json.loads(r.stdout)
    n = len(out["verify"]["differences"])
    assert r.stderr.splitlines()[0].endswith(
        f": {n} difference(s) with the record, 1 import issue(s) that change the replay")


def test_a_folder_reads_mjson_and_names_what_it_skipped(tmp_path: Path) -> None:
    folder = tmp_path / "archive"
    folder.mkdir()
    write(folder / "2024-01-01.mjson", with_server_logs(events()))
    with gzip.open(folder / "2024-01-02.mjson.gz", "wt", encoding="utf-8") as fh:
        fh.write(ORIGINAL.read_text(encoding="utf-8"))
    (folder / "README.txt").write_text("the server's games", encoding="utf-8")
    (folder / "game.html").write_text("<html>", encoding="utf-8")
    r = run(str(folder), "--verify")
    assert r.returncode == 0, r.stdout + r.stderr
    lines = r.stdout.splitlines()
    assert [ln.split(": ")[0].rsplit("/", 1)[-1] for ln in lines[:2]] == [
        "2024-01-01.mjson", "2024-01-02.mjson.gz"]
    assert all("verified" in ln for ln in lines[:2])
    assert lines[-1] == "2 record(s): 2 verified, 0 failed"
    skipped = sorted(r.stderr.splitlines())
    assert len(skipped) == 2
    for line, name in zip(skipped, ("README.txt", "game.html"), strict=True):
        assert line.startswith(f"jantaku replay: skipped {folder / name}: not a record file "
                               "name (.json, .jsonl, .json.gz, .jsonl.gz, .mjson, .mjson.gz)")
    r = run(str(folder), "--json")
    assert r.returncode == 0 and len(json.loads(r.stdout)) == 2  # stdout stays one JSON value
