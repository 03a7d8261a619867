"""The rule articles cited in ``rules/`` (code and ruleset TOML) and named in ``tests/``, in the
notation of RULESETS.md: ``S §24-5``, ``M 3-4-6``, ``μ §16``, ``W 开门-4`` (issue 16 item 5).

A citation may list several: ``S §43-10,13,15``, ``M 3-4-5, 3-4-6``, ``μ §63, §64``,
``W 开门-1..4``, ``S §51(2)(3)``; each is expanded to one id per article. A bare section
(``S §55``, ``M 7-2``) counts as tested when the section or any article in it is named.
"""

from __future__ import annotations

import re
from collections.abc import Iterable
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
FAMILIES = ("S", "M", "μ", "W")

_HAN = r"[\u4e00-\u9fff]+"
_NUM = r"\d+(?:\.\.\d+)?(?:,\d+(?:\.\.\d+)?)*"
_SEP = r"(?:, ?| and | or |/)"
_SM_ITEM = r"\d+(?:-" + _NUM + r")?(?:-\d+)*(?:\(\d+\))*"
_M_ITEM = r"\d+-\d+(?:-" + _NUM + r")?(?:\(\d+\))*"
_PATTERN = re.compile(
    r"(?P<fam>S|μ) §(?P<sm>" + _SM_ITEM + r"(?:" + _SEP + r"§" + _SM_ITEM + r")*)"
    r"|\bM (?P<m>" + _M_ITEM + r"(?:" + _SEP + _M_ITEM + r")*)"
    r"|\bW (?P<wsec>" + _HAN + r")-(?P<wnum>" + _NUM + r")"
)


def _numbers(text: str) -> list[str]:
    out: list[str] = []
    for part in text.split(","):
        if ".." in part:
            a, b = part.split("..")
            out += [str(i) for i in range(int(a), int(b) + 1)]
        else:
            out.append(part)
    return out


def _expand(prefix: str, item: str) -> list[str]:
    if prefix == "μ §" and re.fullmatch(r"\d+-\d+", item):
        # μ articles have no hyphenated items: "μ §57-59" is the range §57..§59
        a, b = item.split("-")
        return [f"{prefix}{n}" for n in range(int(a), int(b) + 1)]
    parens = re.findall(r"\((\d+)\)", item)
    base = re.sub(r"\(\d+\)", "", item)
    head, _, last = base.rpartition("-")
    bases = [f"{head}-{n}" for n in _numbers(last)] if head else _numbers(last)
    if parens:
        return [f"{prefix}{b}({p})" for b in bases for p in parens]
    return [f"{prefix}{b}" for b in bases]


def article_ids(text: str) -> set[str]:
    found: set[str] = set()
    for m in _PATTERN.finditer(text):
        if m.group("fam"):
            for item in re.split(_SEP + r"(?=§)", m.group("sm")):
                found.update(_expand(f"{m.group('fam')} §", item.lstrip("§")))
        elif m.group("m"):
            for item in re.split(_SEP + r"(?=\d+-\d+)", m.group("m")):
                found.update(_expand("M ", item))
        else:
            found.update(f"W {m.group('wsec')}-{n}" for n in _numbers(m.group("wnum")))
    return found


def _scan(paths: Iterable[Path]) -> dict[str, str]:
    """article id -> the first file (relative to the root) that names it."""
    out: dict[str, str] = {}
    for p in sorted(paths):
        for a in article_ids(p.read_text(encoding="utf-8")):
            out.setdefault(a, str(p.relative_to(ROOT)))
    return out


def cited() -> dict[str, str]:
    rules = ROOT / "rules"
    return _scan(p for p in rules.rglob("*") if p.suffix in (".py", ".toml"))


def tested() -> set[str]:
    return set(_scan((ROOT / "tests").rglob("*.py")))


def _section(article: str) -> str:
    return re.sub(r"\(\d+\)$", "", article)


def untested() -> dict[str, str]:
    """Cited articles no test names (with the file that cites each)."""
    named = tested()
    sections = {_section(a) for a in named}

    def covered(a: str) -> bool:
        if a in named or _section(a) in named:
            return True
        # a bare section is covered by any article in it (S §55 by S §55-3)
        return any(n.startswith(a + "-") or n.startswith(a + "(") for n in sections)

    return {a: f for a, f in cited().items() if not covered(a)}
