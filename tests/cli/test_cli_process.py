"""Issue 28 item 7, the ``jantaku`` command as a process: a reader that closes the pipe early
(``jantaku rulesets | head -1``) ends any command quietly, with no traceback; ``jantaku
--version``; ``jantaku rulesets --help`` and ``rulesets show --help`` print help and exit 0;
replaying jantaku's own export of a table without sensors says that a results-only record cannot
be replayed."""

from __future__ import annotations

import contextlib
import os
import subprocess
from pathlib import Path

import pytest
from console_script import jantaku_command
from sensorless_log import sensorless_log

from daemon.cli import COMMANDS
from hil.kit import reaped

JANTAKU = jantaku_command()


def jantaku(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run([JANTAKU, *args], capture_output=True, text=True, timeout=120)


def into_closed_pipe(args: list[str]) -> subprocess.Popen[bytes]:
    """``jantaku ARGS`` writing into a pipe nobody reads any more (``| head`` that has exited):
    the read end is closed before the command starts, so its first write fails."""
    r, w = os.pipe()
    os.close(r)
    try:
        return subprocess.Popen([JANTAKU, *args], stdout=w, stderr=subprocess.PIPE)
    finally:
        os.close(w)


WALL = ["wall", "--ruleset", "mleague", "--dealer", "0", "--dice", "3", "4"]


@pytest.mark.parametrize("args", [["rulesets"], ["rulesets", "show", "wmc"], ["--help"],
                                  ["--version"], WALL])
def test_a_reader_that_stops_early_gets_no_traceback(args: list[str]) -> None:
    with reaped(into_closed_pipe(args), grace_s=0) as p:  # killed on the timeout too
        _, err = p.communicate(timeout=60)
    assert err.decode() == "", err.decode()
    assert p.returncode == 141  # 128 + SIGPIPE, what a shell reports for `ls | head`


def test_every_command_s_help_into_a_closed_pipe_is_quiet() -> None:
    with contextlib.ExitStack() as started:  # every one is gone on a failure or timeout too
        procs = {name: started.enter_context(reaped(into_closed_pipe([name, "--help"]), 0))
                 for name in COMMANDS}
        outs = {name: p.communicate(timeout=120)[1] for name, p in procs.items()}
    for name, p in procs.items():
        err = outs[name]
        assert "Traceback" not in err.decode() and "BrokenPipeError" not in err.decode(), (
            name, err.decode())
        assert p.returncode in (0, 141), (name, p.returncode, err.decode())


def test_the_real_head_takes_one_line() -> None:
    r = subprocess.run(f"'{JANTAKU}' rulesets show wmc | head -1", shell=True,
                       capture_output=True, text=True, timeout=60)
    assert r.stdout == "{\n" and r.stderr == "", r.stderr


def test_version() -> None:
    from importlib.metadata import version

    r = jantaku("--version")
    assert r.returncode == 0 and r.stderr == ""
    assert r.stdout == f"jantaku {version('jantaku')}\n"


def test_rulesets_help_and_its_refusals() -> None:
    r = jantaku("rulesets", "--help")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "usage: jantaku rulesets" in r.stdout and "show" in r.stdout
    assert "jantaku rulesets show mleague" in r.stdout  # an example
    r = jantaku("rulesets", "show", "--help")
    assert r.returncode == 0 and r.stderr == "", r.stderr
    assert "usage: jantaku rulesets show" in r.stdout and "unknown ruleset" not in r.stdout
    r = jantaku("rulesets", "show", "nope")
    assert r.returncode == 2 and r.stderr.startswith("jantaku rulesets: unknown ruleset 'nope'")
    assert len(r.stderr.splitlines()) == 1
    r = jantaku("rulesets", "bogus")
    assert r.returncode == 2 and "invalid choice: 'bogus'" in r.stderr
    assert len(r.stderr.splitlines()) == 1
    r = jantaku("rulesets")
    assert r.returncode == 0 and "mleague" in r.stdout


def test_a_results_only_record_says_it_cannot_be_replayed(tmp_path: Path) -> None:
    db = tmp_path / "t.sqlite"
    with sensorless_log(db) as t:
        t.new_game("mleague")
        t.result(kind="tsumo", wins=[{"winner": 0, "han": 3, "fu": 30}])
        t.result(kind="exhaustive", tenpai=[1])
    for fmt, name in (("mjai", "g.mjson"), ("tenhou6", "g.json")):
        out = tmp_path / name
        r = jantaku("log", "export", "--db", str(db), "--game", "1", "--format", fmt,
                    "--out", str(out))
        assert r.returncode == 0, r.stderr
        r = jantaku("replay", str(out))
        assert r.returncode == 2
        assert r.stderr == (
            f"jantaku replay: {out}: a results-only record (2 hand(s), "
            + ("every tile unseen '?'" if fmt == "mjai" else "no tile dealt")
            + ", as written for a table without sensors): it holds each hand's result, not "
            "its play, so it cannot be replayed\n"), r.stderr
        assert "no readable hand" not in r.stderr
