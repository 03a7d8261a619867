"""Issue 16 item 5: every rule article cited in rules/ (code and ruleset TOML) is named in a test
(tests/rules/articles.py collects both); the failure lists every untested one with the file that
cites it. A new citation needs a test that exercises the article and names it."""

from __future__ import annotations

import articles
import pytest


def test_the_collector_expands_every_citation_form() -> None:
    got = articles.article_ids(
        "S §43-10,13,15; M 3-4-5, 3-4-6; μ §63, §64; μ §57-59; W 开门-1..3; S §51(2)(3)")
    assert got == {"S §43-10", "S §43-13", "S §43-15", "M 3-4-5", "M 3-4-6", "μ §63", "μ §64",
                   "μ §57", "μ §58", "μ §59", "W 开门-1", "W 开门-2", "W 开门-3",
                   "S §51(2)", "S §51(3)"}
    assert len(articles.cited()) > 200


@pytest.mark.parametrize("family", articles.FAMILIES)
def test_every_cited_article_is_named_in_a_test(family: str) -> None:
    missing = {a: f for a, f in articles.untested().items() if a.split()[0] == family}
    assert not missing, f"{len(missing)} {family} articles cited but named in no test: " + \
        ", ".join(f"{a} ({f})" for a, f in sorted(missing.items()))
