"""The referee console's HTTP API against a real table daemon (Service, real reducer, SQLite log,
Mosquitto): login, sessions, CSRF, rate limit, previews that match what the command does, picked
hands, refusals that change nothing, the standings export."""

from __future__ import annotations

import csv
import io
import secrets
from pathlib import Path
from typing import Any

import aiohttp
import pytest
from test_console_kit import (
    OPERATOR_PASSWORD,
    REFEREE_PASSWORD,
    Table,
    running_table,
)

from daemon.web.console_actions import ConsoleError, seat_draw, seat_name, split_name
from daemon.web.console_auth import ConsoleSettings, LoginRefused
from hil.kit import reaped_async, until


class Client:
    def __init__(self, http: aiohttp.ClientSession, t: Table) -> None:
        self.http, self.t, self.csrf, self.cookie = http, t, "", ""

    async def login(self, user: str = "alice", password: str = REFEREE_PASSWORD) -> Any:
        async with self.http.post(
            self.t.base + "/console/api/login", json={"user": user, "password": password}
        ) as r:
            body = await r.json()
            if r.status == 200:
                self.csrf = body["csrf"]
                self.cookie = r.headers["Set-Cookie"]
            else:
                assert "Set-Cookie" not in r.headers
            return r.status, body

    async def post(self, path: str, body: Any, csrf: str | None = None) -> tuple[int, Any]:
        headers = {"X-CSRF-Token": self.csrf if csrf is None else csrf}
        async with self.http.post(self.t.base + path, json=body, headers=headers) as r:
            return r.status, await r.json()

    async def get(self, path: str) -> tuple[int, Any]:
        async with self.http.get(self.t.base + path) as r:
            if r.content_type == "application/json":
                return r.status, await r.json()
            return r.status, await r.text()

    async def command(self, name: str, args: dict[str, Any], **extra: Any) -> tuple[int, Any]:
        body = {"name": name, "args": args, "cid": secrets.token_hex(8), **extra}
        return await self.post("/console/api/command", body)


def _session(t: Table) -> aiohttp.ClientSession:
    return aiohttp.ClientSession(cookie_jar=aiohttp.CookieJar(unsafe=True))


async def _new_game(c: Client, t: Table) -> None:
    status, reply = await c.command(
        "new_game",
        {"ruleset": "mleague", "first_dealer": 0, "names": ["Ann", "Bo", "Cy", "Di"]},
        player_ids=["P1", "P2", "", "P4"],
    )
    assert status == 200 and reply["status"] == "ok", reply
    # a table without a data link: the first hand began by itself (issue 18), no hand_start
    assert t.snapshot()["step"] == "setup" and t.snapshot()["hand"] == 1


async def test_login_sessions_csrf_and_refusals_change_nothing(tmp_path: Path) -> None:
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        # no session: the state is not shown
        assert (await c.get("/console/api/state"))[0] == 401
        status, body = await c.login(password="wrong")
        assert status == 401 and "wrong user name or password" in body["error"]["message"]
        status, body = await c.login(user="mallory", password="whatever")
        assert status == 401
        status, body = await c.login()
        assert status == 200 and body["user"] == "alice" and body["role"] == "referee"
        assert "HttpOnly" in c.cookie and "SameSite=Strict" in c.cookie
        assert "Secure" not in c.cookie  # plain HTTP here; see the TLS test
        await _new_game(c, t)
        seq = t.service.core.state.input_seq
        # the page itself carries the security headers
        async with http.get(t.base + "/console/") as r:
            assert r.status == 200
            assert "frame-ancestors 'none'" in r.headers["Content-Security-Policy"]
        # CSRF: a POST without the token, with a wrong one, or from another origin is refused
        chombo = {"name": "chombo", "args": {"seat": 1, "reason": "x"}, "cid": "abcdefgh1"}
        assert (await c.post("/console/api/command", chombo, csrf=""))[0] == 403
        assert (await c.post("/console/api/command", chombo, csrf="nope"))[0] == 403
        async with http.post(
            t.base + "/console/api/command",
            json=chombo,
            headers={"X-CSRF-Token": c.csrf, "Origin": "http://evil.example"},
        ) as r:
            assert r.status == 403
        # malformed input: schema, engine and tile refusals, each with a message
        status, body = await c.command("set_scores", {"scores": [1, 2, 3], "reason": "x"})
        assert status == 422 and "scores" in body["error"]["message"]
        status, body = await c.post("/console/api/preview", {
            "name": "manual_result",
            "args": {"kind": "ron", "wins": [{"winner": 1, "loser": 1, "han": 2, "fu": 30}],
                     "reason": "x"}})
        # in plain words: what was wrong, what to do, and the engine's code
        message = body["error"]["message"]
        assert status == 422 and "a loser other than the winner" in message, message
        assert "preview again" in message and "[referee_bad_args]" in message
        status, body = await c.post("/console/api/preview", {
            "name": "manual_result",
            "args": {"kind": "ron", "wins": [{"winner": 1, "loser": 2}], "reason": "x"},
            "tiles": {"hand": ["9z"] + ["2p"] * 12, "win_tile": "1m"}})
        assert status == 422 and "9z" in body["error"]["message"]
        status, body = await c.post("/console/api/preview", {
            "name": "manual_result",
            "args": {"kind": "ron", "wins": [{"winner": 1, "loser": 2}], "reason": "x"},
            "tiles": {"hand": ["1m"] * 4 + ["2p", "3p", "4p"] * 3, "win_tile": "1m"}})
        assert status == 422 and "no 1m left" in body["error"]["message"]
        status, body = await c.command("manual_result", {
            "kind": "ron", "wins": [{"winner": 1, "loser": 1, "han": 2, "fu": 30}],
            "reason": "x"})
        assert status == 422 and body["error"]["code"] == "not_applicable", body
        async with http.post(t.base + "/console/api/command", data=b"{not json",
                             headers={"X-CSRF-Token": c.csrf,
                                      "Content-Type": "application/json"}) as r:
            assert r.status == 422 and "not JSON" in (await r.json())["error"]["message"]
        # nothing was logged: a command the rules engine refuses is not logged either
        # (issue 15: a refusal changes nothing, seq included)
        logged = [r for r in t.inputs() if r.seq > seq]
        assert logged == [], [(r.seq, r.body) for r in logged]
        assert t.scores() == [25000, 25000, 25000, 25000]
        # an operator may not give a chombo (role check of the command path)
        async with _session(t) as http2:
            op = Client(http2, t)
            assert (await op.login("bob", OPERATOR_PASSWORD))[0] == 200
            status, body = await op.command("chombo", {"seat": 1, "reason": "x"})
            assert status == 422 and body["error"]["code"] == "forbidden"
        # the login expires when idle (the console's clock is an input)
        t.clock.offset += 31 * 60
        status, body = await c.command("chombo", {"seat": 1, "reason": "x"})
        assert status == 401 and "expired" in body["error"]["message"]
        assert t.scores() == [25000, 25000, 25000, 25000]


async def test_failed_logins_are_rate_limited(tmp_path: Path) -> None:
    settings = ConsoleSettings(max_failures=3, lockout=60.0)
    async with running_table(tmp_path, settings) as t, _session(t) as http:
        c = Client(http, t)
        for _ in range(3):
            assert (await c.login(password="guess"))[0] == 401
        status, body = await c.login()  # even the right password waits out the lockout
        assert status == 429 and "too many failed logins" in body["error"]["message"]
        t.clock.offset += 61
        assert (await c.login())[0] == 200


async def test_a_stranger_cannot_lock_the_referee_out(tmp_path: Path) -> None:
    """Failed logins are throttled per (user, address), with growing delays: wrong passwords
    for "alice" from another device slow that device only (issue 15)."""
    settings = ConsoleSettings(max_failures=3, lockout=300.0)
    async with running_table(tmp_path, settings) as t:
        sessions = t.console.sessions
        stranger, referee = ("ip:10.0.0.66", "user:alice"), ("ip:10.0.0.2", "user:alice")
        waits = []
        for _ in range(12):
            sessions.failed(stranger)
            try:
                sessions.check_allowed(stranger)
            except LoginRefused as exc:
                waits.append(round(exc.retry_after or 0))
                t.clock.offset += exc.retry_after or 0
        assert waits[:4] == [1, 2, 4, 8] and waits[-1] == 300, waits  # growing, capped
        sessions.check_allowed(referee)  # the referee's own device is not locked out
        # over HTTP from two source addresses: 127.0.0.2 guesses, 127.0.0.1 is the referee
        far = aiohttp.TCPConnector(local_addr=("127.0.0.2", 0))
        async with aiohttp.ClientSession(connector=far,
                                         cookie_jar=aiohttp.CookieJar(unsafe=True)) as http:
            c = Client(http, t)
            codes = [(await c.login(password="guess"))[0] for _ in range(6)]
            assert codes[:3] == [401, 401, 401] and 429 in codes, codes
        async with _session(t) as http:
            c = Client(http, t)
            assert (await c.login())[0] == 200


async def test_preview_is_what_the_command_does(tmp_path: Path) -> None:
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        await _new_game(c, t)
        args = {"kind": "ron", "wins": [{"winner": 1, "loser": 2, "han": 3, "fu": 30}],
                "reason": "no sensor"}
        status, pv = await c.post("/console/api/preview", {"name": "manual_result", "args": args})
        assert status == 200 and pv["deltas"] == [0, 3900, -3900, 0]
        assert t.scores() == [25000, 25000, 25000, 25000]  # a preview changes nothing
        status, reply = await c.command("manual_result", pv["args"], expect_digest=pv["digest"])
        assert status == 200 and reply["status"] == "ok"
        assert t.scores() == pv["scores_after"] == [25000, 28900, 21100, 25000]
        rec = t.inputs()[-1]
        assert rec.source == "referee:alice" and rec.body["action"] == "manual_result"
        await until(lambda: any(e["type"] == "hand_ended" for e in t.events), 10)
        ended = next(e for e in t.events if e["type"] == "hand_ended")
        assert ended["source"] == "referee:alice"
        assert ended["data"]["settlement"]["deltas"] == [0, 3900, -3900, 0]
        # a preview whose consequences changed is refused; one that still holds is not
        assert t.snapshot()["hand"] == 2  # the next hand began by itself
        fine = {"seat": 0, "points": -1000, "reason": "x"}
        status, pv = await c.post("/console/api/preview", {"name": "penalty", "args": fine})
        await t.table_input({"type": "wall_raised"})  # changes nothing the penalty does
        status, reply = await c.command("penalty", fine, expect_digest=pv["digest"])
        assert status == 200, reply
        status, pv = await c.post("/console/api/preview", {"name": "penalty", "args": fine})
        status, reply = await c.command("penalty", fine, cid="other-0123456")
        assert status == 200  # someone else's fine: the scores moved
        status, body = await c.command("penalty", fine, expect_digest=pv["digest"])
        assert status == 422 and body["error"]["code"] == "stale_preview"
        assert t.scores()[0] == 23000
        status, reply = await c.command("undo", {"reason": "x"})
        status, reply = await c.command("undo", {"reason": "x"})
        assert t.scores()[0] == 25000
        # a picked hand: 234m34m 567p 678s 22s + 5m ron, non-dealer: tanyao pinfu 2 han 30 fu
        tiles = {"hand": ["2m", "3m", "4m", "3m", "4m", "5p", "6p", "7p", "6s", "7s", "8s",
                          "2s", "2s"], "win_tile": "5m", "melds": [], "dora": ["E"]}
        pick = {"kind": "ron", "wins": [{"winner": 3, "loser": 0}], "reason": "picked"}
        status, pv = await c.post("/console/api/preview",
                                  {"name": "manual_result", "args": pick, "tiles": tiles})
        assert status == 200, pv
        assert (pv["args"]["wins"][0]["han"], pv["args"]["wins"][0]["fu"]) == (2, 30)
        assert {y[0] for y in pv["valuation"]["yaku"]} >= {"Tanyao", "Pinfu"}
        assert pv["deltas"] == [-2000, 0, 0, 2000]
        status, reply = await c.command("manual_result", pick, tiles=tiles)
        assert status == 200 and reply["valuation"]["han"] == 2
        assert "+5m" in t.inputs()[-1].body["args"]["reason"]
        assert t.scores() == [23000, 28900, 21100, 27000]
        # undo is logged and restores the hand
        status, reply = await c.command("undo", {"reason": "wrong winner"})
        assert status == 200 and t.scores() == [25000, 28900, 21100, 25000]
        assert t.inputs()[-1].body == {"type": "referee", "action": "undo_last", "by": "alice",
                                       "args": {"reason": "wrong winner"}}
        # end the game early; export the standings
        status, reply = await c.command("end_game", {"reason": "time"})
        assert status == 200
        status, data = await c.get("/console/api/standings.json")
        assert status == 200 and data["finished"] is True
        rows = data["standings"]
        assert [r["name"] for r in rows] == ["Bo", "Ann", "Di", "Cy"]
        assert [r["player_id"] for r in rows] == ["P2", "P1", "P4", ""]
        assert sum(r["points"] for r in rows) == 100000
        assert abs(sum(r["total_pt"] for r in rows)) < 0.05
        status, text = await c.get("/console/api/standings.csv")
        got = list(csv.DictReader(io.StringIO(text)))
        assert [g["name"] for g in got] == ["Bo", "Ann", "Di", "Cy"]
        assert got[0]["total_pt"] == str(rows[0]["total_pt"])


def test_seat_draw_is_reproducible_from_its_seed() -> None:
    players = [{"name": n, "id": ""} for n in ("A", "B", "C", "D")]
    a, b = seat_draw(players, 12345), seat_draw(players, 12345)
    assert a == b and sorted(p["name"] for p in a["seats"]) == ["A", "B", "C", "D"]
    draws = {tuple(p["name"] for p in seat_draw(players, s)["seats"]) for s in range(200)}
    assert len(draws) == 24  # every seating can come out
    assert split_name("Ann #P1") == ("Ann", "P1") and split_name("Ann") == ("Ann", "")
    assert seat_name(" Ann ", " P1 ") == "Ann #P1" and seat_name("Ann", "") == "Ann"
    for bad in (("Ann", "P 1"), ("A" * 40, "X" * 30)):
        with pytest.raises(ConsoleError):
            seat_name(*bad)


async def test_declared_win_violations_clocks_and_penalties(tmp_path: Path) -> None:
    """A sensor table's declared win waits for the referee (confirm_wins); its open violations
    are accepted, the clocks paused and resumed, penalties given -- each one logged command."""
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        status, reply = await c.command("new_game", {
            "ruleset": "mleague", "first_dealer": 0, "names": ["Ann", "Bo", "Cy", "Di"],
            "confirm_wins": True, "auto_hands": False})  # a sensor game: the table starts it
        assert status == 200, reply
        for body in ({"type": "hand_start"}, {"type": "wall_raised"},
                     {"type": "dice", "seat": 0, "dice": [3, 4]}, {"type": "deal_done"},
                     {"type": "draw", "seat": 0}, {"type": "discard", "seat": 0}):
            await t.table_input(body)
        # the clocks run from the deal: pause and resume them
        status, reply = await c.command("pause", {"reason": "dispute"})
        assert status == 200, reply
        status, st = await c.get("/console/api/state")
        assert st["clocks"]["paused"] is True
        status, reply = await c.command("pause", {"reason": "again"})
        assert status == 422 and "paused" in reply["error"]["message"]
        status, reply = await c.command("resume", {})
        assert status == 200 and t.inputs()[-1].kind == "timer"
        # the table saw no dora indicator before the first discard: an open violation
        status, st = await c.get("/console/api/state")
        open_v = st["snapshot"]["open_violations"]
        assert open_v and open_v[0]["code"] == "indicator_missing"
        status, reply = await c.command("accept_violation", {"id": open_v[0]["id"],
                                                             "reason": "shown late"})
        assert status == 200, reply
        assert t.snapshot()["open_violations"] == []
        # a penalty deducts points; undo gives them back
        status, reply = await c.command("penalty", {"seat": 2, "points": -1000,
                                                    "reason": "slow play"})
        assert status == 200 and t.scores()[2] == 24000
        status, reply = await c.command("undo", {"reason": "warning only"})
        assert status == 200 and t.scores()[2] == 25000
        # seat 1 declares ron; the table waits for the referee
        await t.table_input({"type": "ron", "seat": 1})
        status, st = await c.get("/console/api/state")
        assert st["snapshot"]["step"] == "won"
        # confirming a win nobody showed is refused by the engine, with its reason
        status, pv = await c.post("/console/api/preview", {"name": "confirm_win", "args": {}})
        assert status == 422 and "win_not_shown" in pv["error"]["message"]
        status, pv = await c.post("/console/api/preview", {
            "name": "reject_win", "args": {"reason": "no yaku", "chombo": True}})
        assert status == 200 and pv["settlement"]["pt_penalties"][1] == -20.0
        status, reply = await c.command("reject_win", pv["args"], expect_digest=pv["digest"])
        assert status == 200, reply
        assert t.service.core.state.table.progress.pt_adjustments[1] == -20.0
        rec = t.inputs()[-1]
        assert (rec.source, rec.body["action"]) == ("referee:alice", "reject_win")
        await until(lambda: any(e["type"] == "hand_ended" for e in t.events), 10)


async def test_a_repeated_tap_runs_once(tmp_path: Path) -> None:
    """The console sends one command id per previewed action: a second tap on Confirm (or a
    retry after a lost response) gets the first reply again and logs nothing more."""
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        await _new_game(c, t)
        body = {"name": "penalty", "args": {"seat": 0, "pt": -5.0, "reason": "late"},
                "cid": "tap-0123456789"}
        s1, r1 = await c.post("/console/api/command", body)
        s2, r2 = await c.post("/console/api/command", body)
        assert s1 == s2 == 200 and r2["repeated"] is True
        assert r2["input_seq"] == r1["input_seq"] == t.service.core.state.input_seq
        assert t.service.core.state.table.progress.pt_adjustments[0] == -5.0


async def test_served_over_tls_the_cookie_is_secure(tmp_path: Path) -> None:
    import ssl
    import subprocess

    from daemon.web.hub import ViewHub
    from daemon.web.server import serve

    cert, key = tmp_path / "cert.pem", tmp_path / "key.pem"
    subprocess.run(
        ["openssl", "req", "-x509", "-newkey", "ec", "-pkeyopt", "ec_paramgen_curve:prime256v1",
         "-nodes", "-days", "1", "-subj", "/CN=127.0.0.1", "-addext",
         "subjectAltName=IP:127.0.0.1", "-keyout", str(key), "-out", str(cert)],
        check=True, capture_output=True, timeout=60,
    )
    server_ctx = ssl.create_default_context(ssl.Purpose.CLIENT_AUTH)
    server_ctx.load_cert_chain(cert, key)
    client_ctx = ssl.create_default_context(cafile=str(cert))
    async with running_table(tmp_path) as t:
        tls = serve(ViewHub(), "127.0.0.1", 0, console=t.console, ssl_context=server_ctx)
        async with tls as port, aiohttp.ClientSession() as http, http.post(
            f"https://127.0.0.1:{port}/console/api/login",
            json={"user": "alice", "password": REFEREE_PASSWORD}, ssl=client_ctx,
        ) as r:
            assert r.status == 200
            cookie = r.headers["Set-Cookie"]
        assert "Secure" in cookie and "HttpOnly" in cookie and "SameSite=Strict" in cookie
        assert "Path=/console/" in cookie


async def test_polling_does_not_keep_a_login_alive(tmp_path: Path) -> None:
    """The page polls the state; only the referee's own requests restart the idle timer, so a
    tablet left logged in logs out after the idle timeout."""
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        t.clock.offset += 20 * 60
        assert (await c.get("/console/api/state"))[0] == 200
        t.clock.offset += 11 * 60  # 31 min since the login, 11 since the last poll
        status, body = await c.get("/console/api/state")
        assert status == 401 and body["error"]["code"] == "login_required"
        await c.login()
        t.clock.offset += 20 * 60
        status, _ = await c.post("/console/api/preview", {"name": "undo", "args": {}})
        assert status == 422  # nothing to undo; but the referee acted: the timer restarts
        t.clock.offset += 20 * 60
        assert (await c.get("/console/api/state"))[0] == 200


async def test_double_ron_by_han_fu(tmp_path: Path) -> None:
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        status, reply = await c.command("new_game", {
            "ruleset": "tenhou", "first_dealer": 0, "names": ["A", "B", "C", "D"]})
        assert status == 200, reply
        args = {"kind": "ron", "reason": "double ron",
                "wins": [{"winner": 1, "loser": 0, "han": 1, "fu": 30},
                         {"winner": 3, "loser": 0, "han": 2, "fu": 40}]}
        status, pv = await c.post("/console/api/preview", {"name": "manual_result", "args": args})
        assert status == 200, pv
        assert pv["deltas"] == [-1000 - 2600, 1000, 0, 2600]
        status, reply = await c.command("manual_result", args, expect_digest=pv["digest"])
        assert status == 200 and t.scores() == pv["scores_after"]


async def test_the_same_action_from_the_command_line(tmp_path: Path) -> None:
    """``jantaku referee`` (MQTT, signed by the CLI) and the console log the same input."""
    import asyncio
    import json
    import os
    import sys

    from test_console_kit import BROKER_PORT

    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        await _new_game(c, t)
        args = {"kind": "ron", "wins": [{"winner": 1, "loser": 2, "han": 3, "fu": 30}],
                "reason": "no sensor"}
        status, _ = await c.command("manual_result", args)
        assert status == 200
        by_console = t.inputs()[-1]
        status, _reply = await c.command("undo", {"reason": "again from the shell"})
        assert status == 200
        proc = await asyncio.create_subprocess_exec(
            str(Path(sys.executable).parent / "jantaku"), "referee", "--table", t.table,
            "--port", str(BROKER_PORT), "--user", "alice", "--iterations", "1000",
            "manual_result", "--args", json.dumps(args),
            env={**os.environ, "JANTAKU_REFEREE_PASSWORD": REFEREE_PASSWORD},
            stdout=asyncio.subprocess.PIPE, stderr=asyncio.subprocess.PIPE,
        )
        async with reaped_async(proc):  # gone on the timeout too
            out, err = await asyncio.wait_for(proc.communicate(), 30)
        assert proc.returncode == 0, err.decode()
        assert json.loads(out)["status"] == "ok"
        by_cli = t.inputs()[-1]
        assert by_cli.source == by_console.source == "referee:alice"
        assert by_cli.body == by_console.body
        assert t.scores() == [25000, 28900, 21100, 25000]


async def test_zung_jung_by_points_and_by_tiles(tmp_path: Path) -> None:
    """WMC (Zung Jung): a discard win worth V above the threshold (25): the discarder pays
    3V - 2·25, the others 25 each; a picked hand is valued by its patterns."""
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        status, reply = await c.command("new_game", {
            "ruleset": "wmc", "first_dealer": 0, "names": ["A", "B", "C", "D"]})
        assert status == 200, reply
        args = {"kind": "ron", "wins": [{"winner": 1, "loser": 2, "points": 40}], "reason": "x"}
        status, pv = await c.post("/console/api/preview", {"name": "manual_result", "args": args})
        assert status == 200 and pv["deltas"] == [-25, 120, -70, -25]
        # 123m 456m 789m 234p + 55s pair, won on 5s by self-draw: Pure Straight (and no honor)
        tiles = {"hand": ["1m", "2m", "3m", "4m", "5m", "6m", "7m", "8m", "9m", "2p", "3p", "4p",
                          "5s"], "win_tile": "5s"}
        pick = {"kind": "tsumo", "wins": [{"winner": 3}], "reason": "picked"}
        status, pv = await c.post("/console/api/preview",
                                  {"name": "manual_result", "args": pick, "tiles": tiles})
        assert status == 200, pv
        value = pv["args"]["wins"][0]["points"]
        names = [p[0] for p in pv["valuation"]["patterns"]]
        assert any("straight" in n.lower() for n in names), names
        assert pv["deltas"] == [-value, -value, -value, 3 * value]


async def test_picked_hand_with_melds(tmp_path: Path) -> None:
    async with running_table(tmp_path) as t, _session(t) as http:
        c = Client(http, t)
        await c.login()
        await _new_game(c, t)
        pick = {"kind": "ron", "wins": [{"winner": 1, "loser": 3}], "reason": "picked"}
        # pon of white dragons + 234m 567p 678s, waiting on 2s alone
        tiles = {"hand": ["2m", "3m", "4m", "5p", "6p", "7p", "6s", "7s", "8s", "2s"],
                 "win_tile": "2s", "melds": [{"kind": "pon", "tiles": ["P", "P", "P"]}]}
        status, pv = await c.post("/console/api/preview",
                                  {"name": "manual_result", "args": pick, "tiles": tiles})
        assert status == 200, pv
        win = pv["args"]["wins"][0]
        assert (win["han"], win["fu"]) == (1, 30)
        assert pv["deltas"] == [0, 1000, 0, -1000]
        assert "pon P P P" in pv["args"]["reason"]
        bad = {**tiles, "melds": [{"kind": "chi", "tiles": ["2p", "4p", "6p"]}]}
        status, body = await c.post("/console/api/preview",
                                    {"name": "manual_result", "args": pick, "tiles": bad})
        assert status == 422 and "is not a chi" in body["error"]["message"]
        nothing = {**tiles, "melds": [{"kind": "pon", "tiles": ["E", "E", "E"]}],
                   "hand": ["1m", "9m", "1p", "9p", "1s", "9s", "S", "W", "N", "F"]}
        status, body = await c.post("/console/api/preview",
                                    {"name": "manual_result", "args": pick, "tiles": nothing})
        assert status == 422 and body["error"]["code"] == "false_win"
        assert t.service.core.state.input_seq == 1  # the new game only: the hand began by itself


def test_a_new_games_defaults_are_the_command_paths_for_the_preview_too() -> None:
    """One rule (daemon/commands.py:executed_args) for the MQTT command and the console preview:
    a sensorless table's game starts its hands by itself unless the game says otherwise."""
    from daemon.commands import executed_args

    game = {"ruleset": "wmc", "first_dealer": 0, "names": ["a", "b", "c", "d"]}
    assert executed_args("new_game", game, sensorless=True) == {**game, "auto_hands": True}
    assert executed_args("new_game", game, sensorless=False) == game
    chosen = {**game, "auto_hands": False}
    assert executed_args("new_game", chosen, sensorless=True) == chosen
    assert executed_args("undo", {}, sensorless=True) == {}
