"""The mjai vocabulary the importer and the exporters share: ``ryukyoku`` reasons (read
folded, as many engines and converters spell them), and the keys each event may carry."""

from __future__ import annotations

from rules.inputs import AbortKind

#: mjai ``ryukyoku.reason`` values → abort kinds (None: an exhaustive draw). The original
#: mjai's (after Tenhou's XML) and the names other engines and converters write; a reason is
#: looked up folded (lower case, letters and digits only: ``kyushu_kyuhai`` = ``kyushukyuhai``).
REASONS: dict[str, AbortKind | None] = {
    **dict.fromkeys(
        ("fanpai", "exhaustive", "exhaustivedraw", "ryukyoku", "howanpai", "kouhaiheikyoku",
         "normal", "draw"), None),
    **dict.fromkeys(
        ("yao9", "kyushukyuhai", "kyuushukyuuhai", "kyushu", "nineterminals",
         "kyuushuukyuuhai"), "nine_terminals"),
    **dict.fromkeys(
        ("kaze4", "suufonrenda", "sufonrenda", "suufuurenda", "sufuurenda", "sufuurenta",
         "suufuurenta", "fourwinds"), "four_winds"),
    **dict.fromkeys(
        ("reach4", "suuchariichi", "suucharichi", "sucharichi", "suuchareach", "fourriichi",
         "fourreach"), "four_riichi"),
    **dict.fromkeys(
        ("kan4", "suukaikan", "sukaikan", "suukansansen", "sukansansen", "suukansanra",
         "fourkans"), "four_kans"),
    **dict.fromkeys(
        ("ron3", "sanchaho", "sanchahou", "sanchahoo", "sanchahora", "tripleron"),
        "triple_ron"),
}
REASON_OF: dict[AbortKind, str] = {
    "nine_terminals": "yao9",
    "four_winds": "kaze4",
    "four_riichi": "reach4",
    "four_kans": "kan4",
    "triple_ron": "ron3",
}
NAGASHI_REASON = "nm"
NAGASHI_ALIASES = frozenset(("nm", "nagashimangan", "nagashi"))


def reason_key(reason: str) -> str:
    """``reason`` folded for lookup: ``Kyushu_Kyuhai`` → ``kyushukyuhai``."""
    return "".join(ch for ch in reason.lower() if ch.isalnum())
#: Keys each event may carry (both dialects); any other key is an import issue, since a
#: misspelt field (``uradora_marker``) would otherwise be dropped without a word. ``meta`` is
#: the review metadata Mortal and mjai.app attach to a player's own decisions.
KNOWN_KEYS: dict[str, frozenset[str]] = {
    kind: frozenset(("type", "meta", *keys.split()))
    for kind, keys in {
        "start_game": "names id kyoku_first aka_flag seed uri",
        "start_kyoku": "bakaze dora_marker kyoku honba kyotaku oya scores tehais",
        "tsumo": "actor pai",
        "dahai": "actor pai tsumogiri",
        "reach": "actor",
        "reach_accepted": "actor deltas scores",
        "chi": "actor target pai consumed",
        "pon": "actor target pai consumed",
        "daiminkan": "actor target pai consumed",
        "ankan": "actor consumed",
        "kakan": "actor pai consumed",
        "dora": "dora_marker",
        "hora": "actor target pai deltas scores ura_markers uradora_markers hora_tehais yakus "
                "fu fan hora_points",
        "ryukyoku": "reason tehais tenpais deltas scores",
        "end_kyoku": "",
        "end_game": "scores",
    }.items()
}
#: Keys known to carry no part of the game, on any event: the mjai server's (gimite/mjai,
#: mjai-manue) ``logs``, the players' own log lines it writes on every event. Left aside with one
#: note per key; any other unknown key is an issue (reported, not a difference).
INFORMATIONAL_KEYS: dict[str, str] = {
    "logs": "the mjai server's player logs",
}
HAND_EVENTS = frozenset(
    {
        "tsumo", "dahai", "reach", "reach_accepted", "chi", "pon", "daiminkan", "ankan", "kakan",
        "dora", "hora", "ryukyoku", "end_kyoku",
    }
)  # fmt: skip
