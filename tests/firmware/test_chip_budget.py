"""The allocation budget of the firmware's hot paths, measured on the emulated RP2040 under the
real MicroPython rp2 port with the collector off (figures in docs/firmware.md "Memory and
timing"): the CRC allocates nothing, encoding a heartbeat at most 256 B, the link taking an ack
(decoding it, settling the event) at most 384 B, a turn of the main loop with nothing to do at
most 16 B (here: 200 turns of a connected, idle link, heartbeats included)."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from hil.rp2040_board import MODULES, Rp2040Board

pytestmark = pytest.mark.skipif(not (MODULES / "node_modules" / "rp2040js").is_dir(),
                                reason="rp2040js not installed (bin/ensure-services)")


def test_hot_paths_stay_inside_the_allocation_budget(tmp_path: Path) -> None:
    board = Rp2040Board(tmp_path / "board", inputs={15: 0})  # jumper: the REPL is ours
    try:
        text = board.run_script(Path(__file__).with_name("chip_alloc.py"), timeout=400)
    finally:
        board.close()
    line = next((x for x in text.splitlines() if "BUDGET " in x), text)
    got = json.loads(line[line.find("BUDGET "):].removeprefix("BUDGET "))
    print(got)
    assert got["crc32c_64"] == 0  # was 8,544 B per 64 B
    assert got["link_heartbeat"] == 0  # what the loop does: into the link's own buffer
    assert got["encode_heartbeat"] <= 256  # the allocating API (was 1,168 B)
    assert got["decode_ack"] <= 384  # was 1,600 B
    assert got["idle_200_turns"] <= 16 * 200  # was 176 B a turn
    assert got["queue"] == 256 and got["mem_free_full_queue"] > 100_000
