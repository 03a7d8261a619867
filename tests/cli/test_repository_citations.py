"""Every citation in the repository resolves inside it (issue 30 item 7: comments cited "issue 15",
"issue 20" and ``../shared/rules/RULESETS.md``, texts a clone does not have).

* An issue cited anywhere ("issue 15 item 3", "issues 13 and 27") has its text in
  ``docs/requirements/issue-NN.md``.
* The rules digests cited by name (``RULESETS.md §7``, ``ZUNG-JUNG-WSOM.md``) are in
  ``docs/rules/``.
* No tracked file sends a reader to the reference folder beside the development checkout
  (``../shared``), apart from the history (CHANGELOG.md), the verbatim copies themselves and the
  test that explains why tests never read it.
"""

from __future__ import annotations

import re
import subprocess
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
TEXT = {".py", ".toml", ".md", ".js", ".html", ".css", ".sh", ".cfg", ".conf", ".service", ""}
# "issue 15", "Issue 29, item 4", "issues 13 and 27", "issue 27 / issue 28", "issue #20"
CITED = re.compile(r"\b[Ii]ssues?\s+#?(\d+(?:(?:\s*,\s*|\s+and\s+|\s+or\s+|\s*/\s*)\d+)*)")
# Spelled in pieces so that this file does not match itself.
OUTSIDE = re.compile(re.escape(".." + "/shared"))
# Verbatim copies and history: they quote what others wrote, paths included.
QUOTING = ("CHANGELOG.md", "docs/requirements/", "docs/rules/", "tests/data/",
           "tests/cli/test_clone_anywhere.py")


def tracked() -> list[Path]:
    out = subprocess.run(["git", "ls-files", "-z"], cwd=REPO, capture_output=True, check=True)
    files = [REPO / name for name in out.stdout.decode().split("\0") if name]
    return [f for f in files if f.is_file() and f.suffix in TEXT]


def cited_issues(text: str) -> set[int]:
    return {int(n) for m in CITED.finditer(text) for n in re.findall(r"\d+", m.group(1))}


def test_the_citation_pattern_reads_every_form() -> None:
    text = ("Issue 15 items 1-2; (issue 29, item 4); issues 13 and 27; issue 27 / issue 28;"
            " issue #20; Issue 27 item 6 / issue 28 item 6; tissue 99")
    assert cited_issues(text) == {13, 15, 20, 27, 28, 29}


def test_every_cited_issue_has_its_text_in_the_repository() -> None:
    missing: list[str] = []
    for path in tracked():
        rel = str(path.relative_to(REPO))
        for n in sorted(cited_issues(path.read_text(encoding="utf-8", errors="replace"))):
            if not (REPO / "docs" / "requirements" / f"issue-{n:02d}.md").is_file():
                missing.append(f"{rel}: issue {n}")
    assert not missing, "cited, with no docs/requirements/issue-NN.md:\n" + "\n".join(missing)


def test_every_requirement_file_is_an_issue_text_and_listed() -> None:
    index = (REPO / "docs" / "requirements" / "README.md").read_text(encoding="utf-8")
    files = sorted((REPO / "docs" / "requirements").glob("issue-*.md"))
    assert files
    for f in files:
        n = int(f.stem.removeprefix("issue-"))
        assert f.read_text(encoding="utf-8").startswith(f"# Issue {n}: "), f.name
        assert f"]({f.name})" in index, f"{f.name} is not in docs/requirements/README.md"


def test_the_rules_digests_cited_by_name_are_in_the_repository() -> None:
    named = {"RULESETS.md", "ZUNG-JUNG-WSOM.md"}
    cited = {n for p in tracked() for n in named
             if n in p.read_text(encoding="utf-8", errors="replace")}
    assert cited == named  # both are cited: the check below is not vacuous
    for name in named:
        assert (REPO / "docs" / "rules" / name).is_file(), name


def test_nothing_sends_a_reader_outside_the_checkout() -> None:
    bad: list[str] = []
    for path in tracked():
        rel = str(path.relative_to(REPO))
        if rel.startswith(QUOTING) or path == Path(__file__).resolve():
            continue
        for n, line in enumerate(path.read_text(encoding="utf-8", errors="replace").splitlines(),
                                 1):
            if OUTSIDE.search(line):
                bad.append(f"{rel}:{n}: {line.strip()}")
    assert not bad, "\n".join(bad)
