"""``jantaku export`` as users run it: the installed command in a subprocess."""

from __future__ import annotations

import json
import subprocess
from pathlib import Path

import pytest
from console_script import jantaku_command

from rules.records.mjai import import_mjai
from rules.records.tenhou6 import import_tenhou6
from rules.ruleset import load_ruleset

JANTAKU = jantaku_command()
DATA = Path(__file__).resolve().parent.parent / "data"
LOGS = DATA / "game-logs"
TENHOU = load_ruleset("tenhou")


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JANTAKU, "export", *args], capture_output=True, text=True,
                          timeout=120, check=False)


@pytest.mark.parametrize("name", ["mjai-reviewer/suukantsu_1.json",
                                  "riichi-rs/notable-features/furiten.json"])
def test_export_to_mjai_and_back(tmp_path: Path, name: str) -> None:
    out = tmp_path / "game.mjson"
    proc = run(str(LOGS / name), "--to", "mjai", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    assert proc.stdout == ""
    events = [json.loads(x) for x in out.read_text(encoding="utf-8").splitlines()]
    assert events[0]["type"] == "start_game" and events[-1]["type"] == "end_game"
    original = import_tenhou6((LOGS / name).read_text(encoding="utf-8"), TENHOU)
    back = import_mjai(out.read_text(encoding="utf-8"), TENHOU)
    assert back.inputs == original.inputs
    assert [h.deltas for h in back.hands] == [h.deltas for h in original.hands]


def test_export_to_tenhou6_on_stdout() -> None:
    name = "mjai-reviewer/double_kakan_then_chankan.json"
    proc = run(str(LOGS / name), "--to", "tenhou6")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    original = json.loads((LOGS / name).read_text(encoding="utf-8"))
    assert data["log"] == original["log"]
    assert data["name"] == original["name"]


def test_mjai_to_tenhou6_with_engine_results(tmp_path: Path) -> None:
    src = DATA / "mjai/mortal_riichi_ippatsu.jsonl"
    out = tmp_path / "game.json"
    proc = run(str(src), "--to", "tenhou6", "--results", "engine", "-o", str(out))
    assert proc.returncode == 0, proc.stderr
    data = json.loads(out.read_text(encoding="utf-8"))
    assert data["rule"]["disp"] == "般東喰" and data["rule"]["aka"] == 0
    assert data["log"][0][-1][1] == [8700, -7700, 0, 0]
    assert data["log"][1][-1] == ["九種九牌"]  # as Tenhou writes it (issue 28)
    # The record itself has no results: exported as it is, the win has none either.
    proc = run(str(src), "--to", "tenhou6")
    assert json.loads(proc.stdout)["log"][0][-1][1] is None


def test_full_game_with_engine_results_keeps_the_final_points() -> None:
    name = "riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json"
    proc = run(str(LOGS / name), "--to", "tenhou6", "--results", "engine")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    original = json.loads((LOGS / name).read_text(encoding="utf-8"))
    assert data["sc"][0::2] == original["sc"][0::2]
    assert [e[-1][1] for e in data["log"]] == [e[-1][1] for e in original["log"]]


def test_bad_input_exits_2(tmp_path: Path) -> None:
    bad = tmp_path / "bad.json"
    bad.write_text("nope", encoding="utf-8")
    proc = run(str(bad), "--to", "mjai")
    assert proc.returncode == 2 and len(proc.stderr.splitlines()) == 1
    assert proc.stderr.startswith("jantaku export: ")
    assert run(str(LOGS / "mjai-reviewer/rinshan.json")).returncode == 2  # --to missing
    proc = run(str(LOGS / "mjai-reviewer/rinshan.json"), "--to", "mjai",
               "-o", str(tmp_path / "no" / "such" / "dir" / "x"))
    assert proc.returncode == 2 and "cannot write" in proc.stderr


def test_an_unwritable_history_exits_1(tmp_path: Path) -> None:
    # A record with an unseen tile (the impossible fifth 5s) cannot be written as tenhou.net/6.
    proc = run(str(LOGS / "mjai-reviewer/confusing_nakis_2.json"), "--to", "tenhou6")
    assert proc.returncode == 1
    assert "unseen tile" in proc.stderr.splitlines()[-1]
    assert "warning" in proc.stderr.splitlines()[0]


FULL_GAMES = sorted((LOGS / "riichi-rs/random-games").glob("*.json"))


@pytest.mark.parametrize("path", FULL_GAMES, ids=lambda p: p.name)
def test_engine_results_in_tenhous_words_c22(path: Path) -> None:
    """C22: an engine-scored export reads as Tenhou's own record: every win's point text
    (``30符3飜1000-2000点``, a dealer's ``…点∀``, ``満貫8000点``) and its yaku in Tenhou's
    Japanese names are the phoenix-room record's; ``ver``, ``ref``, ``dan``, ``rate``, ``sx``
    and ``rule`` (its ``disp``) come back as they came."""
    original = json.loads(path.read_text(encoding="utf-8"))
    proc = run(str(path), "--to", "tenhou6", "--results", "engine")
    assert proc.returncode == 0, proc.stderr
    data = json.loads(proc.stdout)
    for key in ("ver", "ref", "dan", "rate", "sx", "rule"):
        assert data[key] == original[key], key
    wins = 0
    for mine, theirs in zip(data["log"], original["log"], strict=True):
        if theirs[16][0] != "和了":
            continue
        for a, b in zip(mine[16][2::2], theirs[16][2::2], strict=True):
            assert a[3] == b[3]
            assert sorted(a[4:]) == sorted(b[4:])
            wins += 1
    assert wins > 0


def test_the_records_final_pt_stays_in_sc_c22() -> None:
    """C22: with the record's own results the final pt of ``sc`` is the record's (it was 0.0),
    and with the engine's it is the engine's standings, equal for a phoenix game."""
    name = "riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json"
    original = json.loads((LOGS / name).read_text(encoding="utf-8"))
    record = json.loads(run(str(LOGS / name), "--to", "tenhou6").stdout)
    assert record["sc"][1::2] == original["sc"][1::2]
    engine = json.loads(run(str(LOGS / name), "--to", "tenhou6", "--results", "engine").stdout)
    assert engine["sc"][1::2] == original["sc"][1::2]
