"""The board's config.json check (firmware/config.py, docs/firmware.md "/config.json"): every
problem is found and named by its key; a wrong file gives the safe, link-only configuration; the
board built from it drives no pin and refuses every command. Under CPython here; the same check
runs under MicroPython in tests/firmware/board_micropython.py."""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

from firmware import messages as m
from firmware.board import Board
from firmware.config import Config, check, load
from firmware.link import Link
from firmware.sim import SimMachine, SimNeoPixel
from firmware.table import Table


@pytest.mark.parametrize(("values", "problems"), [
    ({}, []),
    ({"transport": "uart", "seat_buttons": [], "dice": "buttons", "score_digits": 4}, []),
    ([1, 2], [(m.CONFIG_JSON, None, None)]),
    ({"stuk_ms": 500}, [(m.CONFIG_UNKNOWN_KEY, "stuk_ms", None)]),
    ({"debounce_ms": "20"}, [(m.CONFIG_TYPE, "debounce_ms", None)]),
    ({"active_low": 1}, [(m.CONFIG_TYPE, "active_low", None)]),
    ({"buzzer": True}, [(m.CONFIG_TYPE, "buzzer", None)]),
    ({"buzzer": 25}, [(m.CONFIG_VALUE, "buzzer", None)]),  # the on-board LED's GPIO
    ({"dice": "dots"}, [(m.CONFIG_VALUE, "dice", None)]),
    ({"score_digits": 5}, [(m.CONFIG_VALUE, "score_digits", None)]),
    ({"seat_buttons": [[4, 0, 5]]}, [(m.CONFIG_VALUE, "seat_buttons", None)]),
    ({"seat_buttons": [[0, 0]]}, [(m.CONFIG_TYPE, "seat_buttons", None)]),
    ({"dice_lines": [[9, 10, 11]]}, [(m.CONFIG_VALUE, "dice_lines", None)]),
    ({"event_queue": 4}, [(m.CONFIG_VALUE, "event_queue", None)]),
    ({"score_dios": [18, 19, 20, 21, 27]}, [(m.CONFIG_VALUE, "score_dios", None)]),
    ({"start_relay": 22}, [(m.CONFIG_PIN_CONFLICT, "start_relay", 22)]),  # the buzzer's pin
    ({"score_dios": [18, 18, 20, 21]}, [(m.CONFIG_PIN_CONFLICT, "score_dios", 18)]),
    # the UART's pins count only when the link is on the UART
    ({"transport": "uart", "uart_tx": 2}, [(m.CONFIG_PIN_CONFLICT, "uart_tx", 2)]),
    ({"uart_tx": 2}, []),
    # the dealer buttons replace the dice lines: their pins are free then
    ({"dice": "buttons", "dice_buttons": [12, 13]}, []),
    ({"dice": "lines", "dice_buttons": [2, 3]}, []),
    # every problem, the key's own first, then the pins used twice among the right keys
    ({"debounce_ms": -1, "wall_input": 5, "zz": 1},
     [(m.CONFIG_VALUE, "debounce_ms", None), (m.CONFIG_UNKNOWN_KEY, "zz", None),
      (m.CONFIG_PIN_CONFLICT, "wall_input", 5)]),
])
def test_every_problem_is_named_by_its_key(values: Any, problems: list[Any]) -> None:
    assert check(values) == problems


def test_a_wrong_file_runs_the_link_only(tmp_path: Path) -> None:
    path = tmp_path / "config.json"
    assert load(str(tmp_path / "none.json"))[1] == []  # no file: the documented wiring
    path.write_text('{"dice": ')
    cfg, problems = load(str(path))
    assert problems == [(m.CONFIG_JSON, None, None)] and cfg.safe and cfg.transport == "usb"
    # the link's own keys are kept when they are right: the Pi listens on that UART
    path.write_text(json.dumps({"transport": "uart", "baud": 57600, "buzzer": "x"}))
    cfg, problems = load(str(path))
    assert problems == [(m.CONFIG_TYPE, "buzzer", None)]
    assert (cfg.transport, cfg.baud, cfg.safe) == ("uart", 57600, True)
    sim = SimMachine()
    board = Board(sim, cfg, SimNeoPixel)
    assert board.capabilities() == 0 and board.buzzer is None and board.relay is None
    assert set(sim.nets) <= {"LED"}  # no table pin touched: only the Pico's own LED
    table = Table(Link(7, 0, "t"), board)
    table.refuse_commands = cfg.safe
    assert not any(table.accepts(kind, b"") for kind in
                   (m.HONBA_DISPLAY, m.SCORE_DISPLAY, m.BUZZER, m.LED, m.PRESS_START))


def test_update_refuses_what_check_refuses() -> None:
    cfg = Config()
    with pytest.raises(ValueError, match="buzzer: pin 3 is used by another signal"):
        cfg.update({"buzzer": 3})
    cfg.update({"event_queue": 16})
    assert cfg.event_queue == 16


def test_any_key_makes_a_valid_report() -> None:
    """A key of config.json is anything: cut to 32 bytes on a character boundary, it still
    makes a valid ``config_fault`` (an invalid one would stop the board at boot)."""
    for key in ("é" * 20, "x" * 31 + "é", "", "🀄" * 9):
        payload = m.config_fault(m.CONFIG_UNKNOWN_KEY, key, None)
        assert m.payload_error(m.CONFIG_FAULT, payload) is None, key
        assert key.encode().startswith(payload[3:])
