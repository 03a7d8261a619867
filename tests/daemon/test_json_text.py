"""daemon/json_text.py: the compact encoder's text is ``json.JSONEncoder``'s, byte for byte (the
log's bodies and the outbox's payloads are compared with goldens), and what JSON has no form for
is refused the same way."""

from __future__ import annotations

import json
import math
from typing import Any

import pytest

from daemon.json_text import compact_encoder

VALUES: list[Any] = [
    {"b": 1, "a": [1, 2.5, None, True, False], "c": {"z": "é ✓ \u2028", "y": "\x00\"\\"}},
    {"schema": "jantaku/event/1", "seq": 12, "id": "t1:12", "data": {"tiles": [1, 2, 3]}},
    {"nan": math.nan, "inf": -math.inf, "big": 10**30, "neg": -0.0, "f": 1e-7},
    [], {}, "text", 3, None, [{"k": (1, 2)}],
]


@pytest.mark.parametrize("sort_keys", [False, True])
def test_the_text_is_json_encoders(sort_keys: bool) -> None:
    encode = compact_encoder(sort_keys=sort_keys)
    reference = json.JSONEncoder(separators=(",", ":"), ensure_ascii=False,
                                 sort_keys=sort_keys).encode
    for value in VALUES:
        assert encode(value) == reference(value)


def test_a_value_json_has_no_form_for_is_refused() -> None:
    encode = compact_encoder(sort_keys=True)
    with pytest.raises(TypeError, match="not JSON serializable"):
        encode({"a": object()})
    with pytest.raises(TypeError):
        encode({"a": {1, 2}})
