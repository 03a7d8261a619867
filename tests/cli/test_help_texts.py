"""Issue 13 item 6: ``jantaku wall/link/tiles --help`` describe every option and subcommand, with
an example each, and the examples given run (the installed console script, as a user types it).
"""

from __future__ import annotations

import re
import shlex
import subprocess
from pathlib import Path

import pytest
from console_script import jantaku_command

JANTAKU = jantaku_command()


def helptext(*args: str) -> str:
    res = subprocess.run([JANTAKU, *args, "--help"], capture_output=True, text=True, timeout=60)
    assert res.returncode == 0, res.stderr
    assert res.stderr == ""
    return res.stdout


def examples(text: str) -> list[str]:
    """The command lines under an ``example:``/``examples:`` heading."""
    block = re.split(r"^examples?\b.*:\n", text, flags=re.M)
    assert len(block) == 2, f"no example section in:\n{text}"
    return [line.strip() for line in block[1].splitlines() if line.strip().startswith("jantaku ")]


def described_options(text: str) -> dict[str, str]:
    """argparse's option list: each option with the text beside or below it."""
    out: dict[str, str] = {}
    lines = text.splitlines()
    for i, line in enumerate(lines):
        m = re.match(r"^  (-\w, )?(--[\w-]+|\w[\w.]*)(?: \S+)*(?:\s{2,}(.*))?$", line)
        if m:
            beside = m.group(3) or ""
            below = lines[i + 1].strip() if i + 1 < len(lines) and not beside else ""
            out[m.group(2)] = beside or below
    return out


@pytest.mark.parametrize(
    ("command", "options"),
    [
        (("wall",), ["--ruleset", "--dealer", "--dice", "--kans"]),
        (("tiles", "enroll"), ["state", "--no-aka", "--tile", "--forget", "--evdev", "--serial",
                               "--baud"]),
        (("tiles", "detect"), ["image", "--model", "--classes", "--threshold"]),
        (("follow",), ["--table", "--mqtt-host", "--mqtt-port", "--username", "--password-file",
                       "--private", "--from-seq", "--until-seq", "--idle-exit"]),
    ],
)
def test_every_option_has_a_description_and_there_is_an_example(
    command: tuple[str, ...], options: list[str]
) -> None:
    text = helptext(*command)
    usage = text.split("\n\n")[0]
    described = described_options(text)
    for opt in re.findall(r"--[\w-]+", usage):  # every option the parser takes ...
        if opt != "--help":
            assert described.get(opt), f"{opt} has no description in:\n{text}"
    for opt in options:  # ... and the ones this test knows of (so a lost one is seen)
        assert described.get(opt), f"{opt} has no description in:\n{text}"
    assert examples(text), text


def test_wall_examples_run() -> None:
    for line in examples(helptext("wall")):
        res = subprocess.run([JANTAKU, *shlex.split(line)[1:]], capture_output=True, text=True,
                             timeout=60)
        assert res.returncode == 0, f"{line}: {res.stderr}"
        assert res.stdout.startswith('{"ruleset":')


@pytest.mark.parametrize(("command", "subcommands"), [
    ("link", ["encode", "decode"]),
    ("tiles", ["enroll", "detect"]),
])
def test_the_command_help_names_every_subcommand_with_an_example(
    command: str, subcommands: list[str]
) -> None:
    text = helptext(command)
    listed = re.split(r"^subcommands:\n", text, flags=re.M)[1]
    lines = examples(text)
    for sub in subcommands:
        assert re.search(rf"^  {sub}\b.*\S", listed, flags=re.M), f"{sub} not listed:\n{text}"
        assert any(line.split()[2:3] == [sub] or f"{command} {sub}" in line for line in lines)
        sub_text = helptext(command, sub)
        assert examples(sub_text), sub_text


def test_link_examples_run(tmp_path: Path) -> None:
    encoded = subprocess.run(
        f"{shlex.quote(JANTAKU)} link encode --examples | {shlex.quote(JANTAKU)} link encode",
        shell=True, capture_output=True, timeout=60, check=True)
    (tmp_path / "capture.bin").write_bytes(encoded.stdout)
    for line in examples(helptext("link")) + examples(helptext("link", "decode")):
        cmd = line.replace("jantaku ", shlex.quote(JANTAKU) + " ")
        res = subprocess.run(cmd, shell=True, cwd=tmp_path, capture_output=True, text=True,
                             timeout=60)
        assert res.returncode == 0, f"{line}: {res.stderr}"
        assert '"type": "hello"' in res.stdout, line
