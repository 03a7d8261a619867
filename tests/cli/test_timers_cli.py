"""``jantaku timers replay``: the protest review contract (daemon/cli/timers.py)."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

from daemon.cli import main as jantaku

HAND = [
    {"t": 0, "input": "deal"},
    {"t": 20, "input": "discard", "seat": 0},  # E: 20 - 15 s grace = 5
    {"t": 50, "input": "discard", "seat": 1},  # S: 30 s, 15 over → 2 increments × 5
    {"t": 52, "input": "call", "seat": 3},  # N pons S's discard: W is not charged
    {"t": 60.5, "input": "kan", "seat": 3},  # N: 10.5 s, one turn
    {"t": 62, "input": "discard", "seat": 3},  # N: 1.5 s, another turn
    {"t": 63, "input": "end"},  # E's open turn is not charged
]

EXPECTED = {
    "seats": [
        {"seat": 0, "used": 5.0, "turns": 1, "penalties": []},
        {
            "seat": 1,
            "used": 30.0,
            "turns": 1,
            "penalties": [{"kind": "turn", "overtime": 15.0, "points": 10}],
        },
        {"seat": 2, "used": 0.0, "turns": 0, "penalties": []},
        {"seat": 3, "used": 12.0, "turns": 2, "penalties": []},
    ]
}


def write(tmp_path: Path, lines: list[Any]) -> str:
    path = tmp_path / "hand.jsonl"
    path.write_text(
        "\n".join(x if isinstance(x, str) else json.dumps(x) for x in lines) + "\n",
        encoding="utf-8",
    )
    return str(path)


def run(argv: list[str], capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    code = jantaku(["timers", *argv])
    out, err = capsys.readouterr()
    return code, out, err


def test_json_contract(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(["replay", write(tmp_path, HAND), "--ruleset", "wmc", "--json"], capsys)
    assert (code, err) == (0, "")
    assert out.count("\n") == 1  # one JSON object
    assert json.loads(out) == EXPECTED


def test_double_penalty_and_millisecond_rounding(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines: list[Any] = [{"t": 0, "input": "deal"}]
    t = 15.0
    for _ in range(7):  # seat 0 plays seven 26.0004 s turns: 182.003 s, 2.003 s over the hand
        t += 26.0004
        lines.append({"t": t, "input": "discard", "seat": 0})
        for seat in (1, 2, 3):
            lines.append({"t": t, "input": "discard", "seat": seat})
    code, out, _ = run(["replay", write(tmp_path, lines), "--json"], capsys)
    assert code == 0
    seat0 = json.loads(out)["seats"][0]
    assert seat0["used"] == 182.003 and seat0["turns"] == 7
    turn = [p for p in seat0["penalties"] if p["kind"] == "turn"]
    hand = [p for p in seat0["penalties"] if p["kind"] == "hand"]
    assert turn == [{"kind": "turn", "overtime": 11.0, "points": 10}] * 7
    assert hand == [{"kind": "hand", "overtime": 2.003, "points": 5}]
    assert seat0["penalties"][-2:] == [turn[-1], hand[0]]  # the same play, both at once


def test_monitor_ruleset_gives_no_penalties(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, out, _ = run(["replay", write(tmp_path, HAND), "--ruleset", "mleague", "--json"], capsys)
    assert code == 0
    seats = json.loads(out)["seats"]
    assert [s["used"] for s in seats] == [5.0, 30.0, 0.0, 12.0]
    assert all(s["penalties"] == [] for s in seats)


def test_readable_table(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run(["replay", write(tmp_path, HAND)], capsys)
    assert code == 0
    rows = [line.split() for line in out.splitlines() if line[:4].strip().isdigit()]
    assert [r[:3] for r in rows] == [
        ["0", "5.000", "1"],
        ["1", "30.000", "1"],
        ["2", "0.000", "0"],
        ["3", "12.000", "2"],
    ]
    assert "seat 1 turn overtime 15.000 s  10 points" in out


def test_every_bad_line_is_reported_with_its_number(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines: list[Any] = [
        {"t": 0, "input": "deal"},
        "not json",
        {"t": 3, "input": "discard"},
        {"t": 3, "input": "end", "seat": 1},
        {"t": "3", "input": "pause"},
        {"t": 4, "input": "fold", "seat": 1},
        {"t": 4, "input": "discard", "seat": 4},
        {"t": 4, "input": "discard", "seat": 0, "note": "x"},
        {"t": 4, "input": "kan", "seat": 0, "source": "button"},
    ]
    code, out, err = run(["replay", write(tmp_path, lines), "--json"], capsys)
    assert code == 1 and out == ""
    numbers = [int(line.split("line ")[1].split(":")[0]) for line in err.splitlines()]
    assert numbers == [2, 3, 4, 5, 6, 7, 8, 9]
    assert "not JSON" in err and "'fold'" in err and "'note'" in err


def test_inputs_the_clocks_refuse_are_reported_with_their_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines: list[Any] = [
        {"t": 0, "input": "deal"},
        {"t": 3, "input": "discard", "seat": 2},
        "",
        {"t": 4, "input": "resume"},
        {"t": 5, "input": "discard", "seat": 0},
        {"t": 4, "input": "discard", "seat": 1},
    ]
    code, out, err = run(["replay", write(tmp_path, lines), "--json"], capsys)
    assert code == 1 and out == ""
    assert err.splitlines() == [
        f"{tmp_path / 'hand.jsonl'}: line 2: discard by seat 2 but seat 0 is on turn",
        f"{tmp_path / 'hand.jsonl'}: line 4: resume: the clocks are not paused",
        f"{tmp_path / 'hand.jsonl'}: line 6: time goes backwards: 4000000000 ns < last input "
        "5000000000 ns",
    ]


def test_the_file_must_start_with_the_deal(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    code, _, err = run(["replay", write(tmp_path, [{"t": 1, "input": "end"}])], capsys)
    assert code == 1 and "line 1" in err and "deal" in err
    code, _, err = run(["replay", write(tmp_path, [""]), "--json"], capsys)
    assert code == 1 and "deal" in err


def test_sources_and_restart_lines(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    lines: list[Any] = [
        {"t": 0, "input": "deal"},
        {"t": 20, "input": "discard", "seat": 0, "source": "button"},
        {"t": 20.4, "input": "discard", "seat": 0, "source": "sensor"},  # the same discard
        {"t": 25, "input": "discard", "seat": 1, "source": "sensor"},
        {"t": 2, "input": "restart"},  # the daemon restarted: new time base
        {"t": 9, "input": "discard", "seat": 2, "source": "button"},
    ]
    code, out, _ = run(["replay", write(tmp_path, lines), "--json"], capsys)
    assert code == 0
    assert [s["used"] for s in json.loads(out)["seats"]] == [5.0, 5.0, 7.0, 0.0]
    code, out, _ = run(["replay", write(tmp_path, lines)], capsys)
    assert "duplicates ignored: 1" in out


def test_stdin(monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.setattr("sys.stdin", io.StringIO("\n".join(json.dumps(x) for x in HAND)))
    code, out, _ = run(["replay", "-", "--json"], capsys)
    assert code == 0 and json.loads(out) == EXPECTED


def test_usage_errors(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    code, _, err = run(["replay", write(tmp_path, HAND), "--ruleset", "nope"], capsys)
    assert code == 2 and "nope" in err
    code, _, err = run(["replay", str(tmp_path / "missing.jsonl")], capsys)
    assert code == 2 and "cannot read" in err
    code, _, _ = run([], capsys)
    assert code == 2


ENTRY = "import sys; from daemon.cli import main; sys.exit(main())"  # the console script's body


def test_console_command(tmp_path: Path) -> None:
    proc = subprocess.run(
        [sys.executable, "-c", ENTRY, "timers", "replay", write(tmp_path, HAND), "--json"],
        capture_output=True,
        text=True,
        check=False,
        timeout=60,
    )
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == EXPECTED
