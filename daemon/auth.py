"""Referee authentication: a per-command HMAC keyed by a hash of the referee's password.

Each referee user in the config has ``key = "pbkdf2-sha256$<iterations>$<hex>"``: PBKDF2-HMAC-SHA256
of the password with the salt ``"jantaku/v1/referee:" + name``. The referee client derives the same
key from the password (it never sends the password), and signs every command:

    mac = HMAC-SHA256(key, topic + "\\n" + canonical_json(payload without "auth"))

``canonical_json`` sorts keys and uses no spaces. The payload carries ``user``, ``ts`` (Unix
seconds) and a unique ``id``; the daemon rejects a ``ts`` outside ``max_skew_seconds`` and an ``id``
it has already executed (the reply is sent again), so a captured command cannot be replayed, and
the topic is inside the MAC, so it cannot be redirected to another table or command.

The stored key is as powerful as the password on this table (it signs commands), so the config
file is readable by root and the jantaku group only (docs/install.md).
"""

from __future__ import annotations

import hashlib
import hmac
import json
from typing import Any, Final

from daemon.errors import CredentialError

SCHEME: Final = "pbkdf2-sha256"
DEFAULT_ITERATIONS: Final = 200_000
SALT_PREFIX: Final = "jantaku/v1/referee:"


def derive_key(user: str, password: str, iterations: int = DEFAULT_ITERATIONS) -> bytes:
    salt = (SALT_PREFIX + user).encode("utf-8")
    return hashlib.pbkdf2_hmac("sha256", password.encode("utf-8"), salt, iterations)


def format_key(user: str, password: str, iterations: int = DEFAULT_ITERATIONS) -> str:
    """The config's ``key`` value for a user and password (``jantaku referee hash``)."""
    return f"{SCHEME}${iterations}${derive_key(user, password, iterations).hex()}"


def parse_key(text: str) -> tuple[int, bytes]:
    """``(iterations, key)`` from a config ``key``; raises ValueError saying what is wrong."""
    parts = text.split("$")
    if len(parts) != 3 or parts[0] != SCHEME:
        raise CredentialError(f"expected '{SCHEME}$<iterations>$<64 hex digits>'")
    if not parts[1].isdigit() or not 1000 <= int(parts[1]) <= 10**8:
        raise CredentialError("iterations must be an integer 1000..100000000")
    try:
        key = bytes.fromhex(parts[2])
    except ValueError:
        raise CredentialError("the key must be 64 hex digits") from None
    if len(key) != 32:
        raise CredentialError("the key must be 64 hex digits")
    return int(parts[1]), key


def canonical(payload: dict[str, Any]) -> bytes:
    body = {k: v for k, v in payload.items() if k != "auth"}
    return json.dumps(body, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def mac(key: bytes, topic: str, payload: dict[str, Any]) -> str:
    return hmac.new(key, topic.encode("utf-8") + b"\n" + canonical(payload), "sha256").hexdigest()


def sign(key: bytes, topic: str, payload: dict[str, Any]) -> dict[str, Any]:
    """``payload`` with ``auth.hmac`` set (the referee client's side)."""
    return {**payload, "auth": {"hmac": mac(key, topic, payload)}}


def verify(key: bytes, topic: str, payload: dict[str, Any]) -> bool:
    auth = payload.get("auth")
    if not isinstance(auth, dict) or not isinstance(auth.get("hmac"), str):
        return False
    return hmac.compare_digest(auth["hmac"], mac(key, topic, payload))
