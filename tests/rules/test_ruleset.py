"""Rulesets as validated data: the six builtins load, ``extends`` resolves, and a bad file fails
naming the file, the key and the expected type."""

from __future__ import annotations

import pickle
from pathlib import Path

import pytest

from rules.ruleset import BUILTIN, RulesetError, load_ruleset


def test_all_six_load() -> None:
    rulesets = [load_ruleset(n) for n in BUILTIN]
    assert [r.name for r in rulesets] == list(BUILTIN)
    assert len(BUILTIN) == 6
    for r in rulesets:
        assert r.wall.dead_wall_tiles == 14
        assert r.meta.notation in ("S", "C", "M", "μ", "W", "T")
        assert r.to_dict()["name"] == r.name
    assert load_ruleset("wmc").zung_jung is not None
    assert load_ruleset("wmc").wall.break_method == "two_rolls"
    assert load_ruleset("mleague").wall.auto_fallbacks is True


def test_every_builtin_hashes_and_pickles() -> None:
    # A ruleset is a cache key (rules/conditions.py) and part of the pickled table state (daemon
    # checkpoints): its mapping tables (S §54-3 minor_chombo_pt, Zung Jung patterns) allow both.
    for r in [load_ruleset(n) for n in BUILTIN]:
        assert hash(r) == hash(load_ruleset(r.name))
        back = pickle.loads(pickle.dumps(r))
        assert back == r and hash(back) == hash(r)
    pt = load_ruleset("saikouisen").penalties.minor_chombo_pt
    assert len(pt) > 0 and dict(pt) == {k: pt[k] for k in pt}
    with pytest.raises(TypeError):
        pt["kuikae"] = 0.0  # type: ignore[index]


def test_extends_resolves_overrides_and_inherits() -> None:
    base, classic = load_ruleset("saikouisen"), load_ruleset("saikouisen-classic")
    # overridden (C-sum)
    assert base.calls.kuikae == "forbidden" and classic.calls.kuikae == "allowed"
    assert classic.dora.kan_dora is False and classic.riichi.ankan_after == "never"
    assert classic.penalties.chombo_pt == -16.0
    # inherited untouched, section by section
    assert classic.riichi.deposit == base.riichi.deposit == 1000
    assert classic.wall == base.wall
    assert classic.furiten == base.furiten
    assert (classic.meta.notation, classic.meta.base_notation) == ("C", "S")  # C-sum, else S
    assert classic.meta.title != base.meta.title


def _write(tmp_path: Path, name: str, text: str) -> str:
    p = tmp_path / f"{name}.toml"
    p.write_text(text, encoding="utf-8")
    return str(p)


def test_venue_file_extending_a_builtin(tmp_path: Path) -> None:
    path = _write(tmp_path, "venue", 'extends = "mleague"\n[riichi]\nmin_live_tiles = 4\n')
    rs = load_ruleset(path)
    assert rs.name == "venue"
    assert rs.riichi.min_live_tiles == 4
    assert rs.pao == load_ruleset("mleague").pao


def test_unknown_key_names_file_section_and_key(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad1", 'extends = "mleague"\n[riichi]\nipatsu = true\n')
    with pytest.raises(RulesetError) as e:
        load_ruleset(path)
    msg = str(e.value)
    assert path in msg and "[riichi]" in msg and "'ipatsu'" in msg and "unknown key" in msg


def test_wrong_type_names_key_and_expected_type(tmp_path: Path) -> None:
    path = _write(tmp_path, "bad2", 'extends = "mleague"\n[riichi]\ndeposit = "1000"\n')
    with pytest.raises(RulesetError) as e:
        load_ruleset(path)
    msg = str(e.value)
    assert path in msg and "deposit" in msg and "expected an integer" in msg and "'1000'" in msg
    path = _write(tmp_path, "bad3", 'extends = "mleague"\n[calls]\nkuikae = "sometimes"\n')
    with pytest.raises(RulesetError, match="kuikae: expected one of 'allowed', 'forbidden'"):
        load_ruleset(path)
    path = _write(tmp_path, "bad4", 'extends = "mleague"\n[riichi]\nippatsu = 1\n')
    with pytest.raises(RulesetError, match="ippatsu: expected a boolean"):
        load_ruleset(path)
    path = _write(tmp_path, "bad5", 'extends = "mleague"\n[points]\numa = [1, 2, 3]\n')
    with pytest.raises(RulesetError, match="uma: expected a list of 4"):
        load_ruleset(path)


def test_missing_value_names_key_and_type(tmp_path: Path) -> None:
    text = (Path(__file__).parents[2] / "rules" / "rulesets" / "mleague.toml").read_text(
        encoding="utf-8")
    cut = "\n".join(line for line in text.splitlines() if not line.startswith("max_kans"))
    path = _write(tmp_path, "bad6", cut)
    with pytest.raises(RulesetError) as e:
        load_ruleset(path)
    msg = str(e.value)
    assert path in msg and "[calls] max_kans" in msg and "missing" in msg and "integer" in msg


def test_other_file_errors(tmp_path: Path) -> None:
    with pytest.raises(RulesetError, match="unknown ruleset"):
        load_ruleset("no-such-rules")
    with pytest.raises(RulesetError, match="not valid TOML"):
        load_ruleset(_write(tmp_path, "bad7", "[riichi\n"))
    with pytest.raises(RulesetError, match="cycle"):
        load_ruleset(_write(tmp_path, "loop", 'extends = "loop"\n'))
    with pytest.raises(RulesetError, match="does not match the file name"):
        load_ruleset(_write(tmp_path, "named", 'extends = "mleague"\nname = "other"\n'))
    with pytest.raises(RulesetError, match="extends: expected a string"):
        load_ruleset(_write(tmp_path, "ext", "extends = 3\n"))
