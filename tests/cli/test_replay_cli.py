"""``jantaku replay`` as users run it: the installed command in a subprocess."""

from __future__ import annotations

import gzip
import json
import subprocess
from pathlib import Path
from typing import Any

import pytest
from console_script import jantaku_command

JANTAKU = jantaku_command()
DATA = Path(__file__).resolve().parent.parent / "data"
LOGS = DATA / "game-logs"

TOP_KEYS = {"file", "format", "ruleset", "aka", "rounds", "hands", "final_scores", "scores",
            "deposits", "finished", "standings", "violations", "issues"}
HAND_KEYS = {"record_hand", "round", "round_wind", "dealer", "hand_in_round", "honba",
             "deposits", "result", "abort_kind", "deltas", "scores_before", "scores_after",
             "tenpai", "wins", "violations"}
WIN_KEYS = {"winner", "loser", "han", "fu", "yakuman", "points", "limit", "yaku"}


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JANTAKU, "replay", *args], capture_output=True, text=True,
                          timeout=120, check=False)


def as_json(proc: subprocess.CompletedProcess[str]) -> dict[str, Any]:
    lines = proc.stdout.splitlines()
    assert len(lines) == 1, proc.stdout
    data: dict[str, Any] = json.loads(lines[0])
    return data


def test_json_contract_keys_exact() -> None:
    proc = run(str(LOGS / "mjai-reviewer/double_ron.json"), "--json")
    assert proc.returncode == 0, proc.stderr
    out = as_json(proc)
    assert set(out) == TOP_KEYS
    assert (out["format"], out["ruleset"], out["aka"], out["rounds"]) == ("tenhou6", "tenhou",
                                                                          True, 2)
    assert len(out["hands"]) == 1
    hand = out["hands"][0]
    assert set(hand) == HAND_KEYS
    assert hand["deltas"] == [13000, 0, 2000, -14000]  # both wins of the double ron
    assert (hand["round"], hand["honba"], hand["result"]) == ("S4-0", 0, "win")
    assert [set(w) for w in hand["wins"]] == [WIN_KEYS, WIN_KEYS]
    assert [(w["winner"], w["loser"], w["han"], w["fu"]) for w in hand["wins"]] == [
        (0, 3, 6, 40), (2, 3, 2, 30)]
    assert hand["violations"] == []
    assert out["final_scores"] == [53800, 26300, 39400, 500]
    assert out["violations"] == 0 and out["issues"] == []
    assert out["standings"]["type"] == "standings"


def test_verify_json_adds_the_verdict() -> None:
    proc = run(str(LOGS / "riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json"),
               "--json", "--verify")
    assert proc.returncode == 0, proc.stderr
    out = as_json(proc)
    assert set(out) == TOP_KEYS | {"verify"}
    assert out["verify"] == {"ok": True, "differences": []}
    assert out["finished"] is True and out["rounds"] == 1
    data = json.loads((LOGS / "riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json")
                      .read_text(encoding="utf-8"))
    assert out["final_scores"] == data["sc"][0::2]


@pytest.mark.parametrize(
    "name",
    ["riichi-rs/random-games/2022080600gm-00a9-0000-06406b7f.json",
     "riichi-rs/notable-features/ron-3.json", "mjai-reviewer/four_reach.json"],
)
def test_verify_passes_with_exit_0(name: str) -> None:
    proc = run(str(LOGS / name), "--verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified" in proc.stdout.splitlines()[-1]


def test_text_summary_per_hand() -> None:
    proc = run(str(LOGS / "mjai-reviewer/ranked_game.json"))
    assert proc.returncode == 0
    lines = proc.stdout.splitlines()
    assert lines[1].startswith("E1-0") and "S3 ron from S2 4 han 30 fu" in lines[1]
    assert "violations 0" in lines[1]
    assert lines[-1] == "final points: 21100 55000 -4900 28800"


def test_mjai_is_detected_and_format_can_be_forced() -> None:
    path = str(DATA / "mjai/original_riichi_ippatsu.jsonl")
    auto = as_json(run(path, "--json"))
    forced = as_json(run(path, "--json", "--format", "mjai"))
    assert auto["format"] == forced["format"] == "mjai"
    assert auto["hands"] == forced["hands"]
    wrong = run(path, "--format", "tenhou6")
    assert wrong.returncode == 2 and len(wrong.stderr.splitlines()) == 1


def test_verify_mismatch_exits_1_with_a_diff(tmp_path: Path) -> None:
    data = json.loads((LOGS / "mjai-reviewer/rinshan.json").read_text(encoding="utf-8"))
    data["log"][0][-1][1] = [-2000, -4000, -2000, 8000]
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    proc = run(str(path), "--verify")
    assert proc.returncode == 1
    assert ("hand 1 (S2-0): deltas: record [-2000, -4000, -2000, +8000], computed "
            "[-2000, -4000, -2000, +9000]") in proc.stdout
    proc = run(str(path), "--verify", "--json")
    assert proc.returncode == 1
    out = as_json(proc)
    assert out["verify"]["ok"] is False
    assert out["verify"]["differences"][0]["what"] == "deltas"
    assert "difference" in proc.stderr


def test_a_defective_record_fails_verification() -> None:
    proc = run(str(LOGS / "mjai-reviewer/confusing_nakis_2.json"), "--verify")
    assert proc.returncode == 1
    assert "import: hand 1, at 22, input 26: 5s: no 5s left" in proc.stdout


@pytest.mark.parametrize(
    ("content", "why"),
    [("not json at all\n", "not a game record"), ("", "empty file"),
     ('{"title": ["", ""]}', "not a game record"), ('{"log": []}', "no 'log'"),
     ('{"type":"start_game"}\n', "no start_kyoku")],
)
def test_bad_file_exits_2_with_one_line(tmp_path: Path, content: str, why: str) -> None:
    path = tmp_path / "bad.json"
    path.write_text(content, encoding="utf-8")
    proc = run(str(path), "--json")
    assert proc.returncode == 2
    assert proc.stdout == ""
    assert len(proc.stderr.splitlines()) == 1 and why in proc.stderr
    assert proc.stderr.startswith("jantaku replay: ")


def test_missing_file_and_bad_arguments_exit_2(tmp_path: Path) -> None:
    proc = run(str(tmp_path / "nope.json"))
    assert proc.returncode == 2 and "cannot read" in proc.stderr
    assert len(proc.stderr.splitlines()) == 1
    proc = run(str(LOGS / "mjai-reviewer/double_ron.json"), "--ruleset", "nosuch")
    assert proc.returncode == 2 and "unknown ruleset" in proc.stderr
    assert run().returncode == 2


def test_other_rulesets_replay_too() -> None:
    out = as_json(run(str(LOGS / "mjai-reviewer/double_ron.json"), "--json", "--ruleset",
                      "mleague"))
    assert out["ruleset"] == "mleague"
    # M-League: head bump, one winner (the discarder's next seat in turn, seat 0).
    assert [w["winner"] for w in out["hands"][0]["wins"]] == [0]


def test_gzip_records(tmp_path: Path) -> None:
    path = tmp_path / "game.json.gz"
    path.write_bytes(gzip.compress((LOGS / "mjai-reviewer/double_ron.json").read_bytes()))
    out = as_json(run(str(path), "--json"))
    assert out["hands"][0]["deltas"] == [13000, 0, 2000, -14000]


def test_stripped_record_replays_to_the_same_json(tmp_path: Path) -> None:
    name = "riichi-rs/random-games/2022081121gm-00a9-0000-372fcc17.json"
    data = json.loads((LOGS / name).read_text(encoding="utf-8"))
    full = as_json(run(str(LOGS / name), "--json"))
    data.pop("sc")
    for n, entry in enumerate(data["log"]):
        if n:
            entry[0][1] = entry[0][2] = None
            entry[1] = None
        res = entry[-1]
        entry[-1] = [res[0]] + [None if i % 2 == 0 else x[:3] for i, x in enumerate(res[1:])]
    path = tmp_path / "stripped.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    bare = as_json(run(str(path), "--json"))
    assert [h["deltas"] for h in bare["hands"]] == [h["deltas"] for h in full["hands"]]
    assert bare["final_scores"] == full["final_scores"] == [
        v for v in json.loads((LOGS / name).read_text(encoding="utf-8"))["sc"][0::2]
    ]
    assert bare["standings"] == full["standings"]


def test_mortal_style_empty_ura_markers_verify_c17(tmp_path: Path) -> None:
    """C17/B16 from outside: Mortal, libriichi and mjai.app write ``"ura_markers": []`` on every
    win without riichi; such a log verifies, and the riichi winner of a double ron after a
    non-riichi one keeps its four ura dora (mjai-reviewer ``suukantsu_1.json``)."""
    from rules.records.export import to_mjai_events
    from rules.records.tenhou6 import import_tenhou6
    from rules.ruleset import load_ruleset

    rec = import_tenhou6((LOGS / "mjai-reviewer/suukantsu_1.json").read_text(encoding="utf-8"),
                         load_ruleset("tenhou"))
    riichi: set[int] = set()
    lines = []
    for e in to_mjai_events(rec.inputs, rec.hands):
        if e["type"] == "start_kyoku":
            riichi = set()
        elif e["type"] == "reach":
            riichi.add(e["actor"])
        elif e["type"] == "hora" and e["actor"] not in riichi:
            e["ura_markers"] = []
        lines.append(json.dumps(e))
    path = tmp_path / "mortal.jsonl"
    path.write_text("\n".join(lines) + "\n", encoding="utf-8")
    proc = run(str(path), "--verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified: every hand matches the record" in proc.stdout
    assert "violation" not in proc.stdout.replace("violations 0", "")


def test_tenhou6_one_hand_per_line_and_comments_verify_c18(tmp_path: Path) -> None:
    """C18 from outside: the mjx layout (one tenhou.net/6 object per line) and a JSON file
    with ``//`` comments both replay and verify; a file that is neither says why."""
    data = json.loads((LOGS / "riichi-rs/random-games/2022081017gm-00e1-0000-2df24853.json")
                      .read_text(encoding="utf-8"))
    head = {k: v for k, v in data.items() if k != "log"}
    per_line = tmp_path / "mjx.json"
    per_line.write_text("".join(json.dumps({**head, "log": [h]}, ensure_ascii=False) + "\n"
                                for h in data["log"]), encoding="utf-8")
    proc = run(str(per_line), "--verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    assert "verified" in proc.stdout
    commented = tmp_path / "commented.json"
    commented.write_text("// checked by the referee\n" + json.dumps(data, ensure_ascii=False),
                         encoding="utf-8")
    proc = run(str(commented), "--verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    broken = tmp_path / "broken.json"
    broken.write_text('// a note\n{"log": [oops]}\n', encoding="utf-8")
    proc = run(str(broken))
    assert proc.returncode == 2 and "even without its // comments" in proc.stderr


def test_resync_names_hand_and_input_index_c20(tmp_path: Path) -> None:
    """C20 from outside: a refused abortive draw (a venue ruleset without them) is one
    violation naming its hand and input index, in the text and in --json; the next hand starts
    from the record and the rest verifies."""
    rules = tmp_path / "tenhou-no-aborts.toml"
    rules.write_text('extends = "tenhou"\n\n[draws]\nabortive = []\n', encoding="utf-8")
    abort = json.loads((LOGS / "riichi-rs/notable-features/abort-four-wind.json")
                       .read_text(encoding="utf-8"))
    game = json.loads((LOGS / "riichi-rs/random-games/2022080600gm-00a9-0000-06406b7f.json")
                      .read_text(encoding="utf-8"))
    data = {k: v for k, v in game.items() if k != "sc"}
    data["log"] = abort["log"] + game["log"][:3]
    path = tmp_path / "excerpt.json"
    path.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    proc = run(str(path), "--ruleset", str(rules), "--verify")
    assert proc.returncode == 1
    text = proc.stdout
    assert text.count("violation abortive_not_in_ruleset") == 1
    assert "(hand 1, input " in text
    assert "the replay takes the record's hand start" in text
    assert "3 difference(s) with the record" in text, text
    proc = run(str(path), "--ruleset", str(rules), "--verify", "--json")
    out = as_json(proc)
    assert out["violations"] == 1
    v = out["hands"][0]["violations"][0]
    assert v["record_hand"] == 0 and isinstance(v["input_index"], int)
    whats = [d["what"] for d in out["verify"]["differences"]]
    assert whats == ["result", "hand start (the replay takes the record's)", "violations"]


def test_many_records_at_once_c21(tmp_path: Path) -> None:
    """C21: FILE|DIR ...: every record given (a folder: every .json, .jsonl, .json.gz under
    it), one line per record and a summary line, exit 1 if any fails; --json: a list."""
    folder = tmp_path / "records"
    folder.mkdir()
    good = LOGS / "riichi-rs/notable-features/ron-3.json"
    (folder / "a.json").write_text(good.read_text(encoding="utf-8"), encoding="utf-8")
    with gzip.open(folder / "b.json.gz", "wt", encoding="utf-8") as fh:
        fh.write((LOGS / "mjai-reviewer/double_ron.json").read_text(encoding="utf-8"))
    (folder / "c.jsonl").write_text((DATA / "mjai/mortal_riichi_ippatsu.jsonl")
                                    .read_text(encoding="utf-8"), encoding="utf-8")
    (folder / "notes.txt").write_text("not a record", encoding="utf-8")
    proc = run(str(folder), "--verify")
    assert proc.returncode == 0, proc.stdout + proc.stderr
    lines = proc.stdout.splitlines()
    assert len(lines) == 4
    assert [ln.split(":")[0].rsplit("/", 1)[-1] for ln in lines[:3]] == [
        "a.json", "b.json.gz", "c.jsonl"]
    assert all("verified" in ln for ln in lines[:3])
    assert lines[-1] == "3 record(s): 3 verified, 0 failed"

    bad = tmp_path / "bad.json"
    bad.write_text("{nope", encoding="utf-8")
    wrong = tmp_path / "wrong.json"
    data = json.loads((LOGS / "mjai-reviewer/rinshan.json").read_text(encoding="utf-8"))
    data["log"][0][-1][1] = [-2000, -4000, -2000, 8000]
    wrong.write_text(json.dumps(data, ensure_ascii=False), encoding="utf-8")
    proc = run(str(folder), str(bad), str(wrong), "--verify")
    assert proc.returncode == 1
    lines = proc.stdout.splitlines()
    assert len(lines) == 6
    assert lines[3].startswith(f"{bad}: error: ")
    assert lines[4] == f"{wrong}: 1 difference(s) with the record"
    assert lines[-1] == "5 record(s): 3 verified, 2 failed"
    proc = run(str(folder), str(bad), "--json", "--verify")
    assert proc.returncode == 1
    items = json.loads(proc.stdout)
    assert isinstance(items, list) and len(items) == 4
    assert all(set(i) == TOP_KEYS | {"verify"} for i in items[:3])
    assert [i["verify"]["ok"] for i in items[:3]] == [True, True, True]
    assert set(items[3]) == {"file", "error"} and "not a game record" in items[3]["error"]
