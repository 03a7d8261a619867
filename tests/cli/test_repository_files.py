"""Issue 13 item 5: what users expect of a repository is there and consistent: a LICENSE matching
pyproject's Apache-2.0, a CHANGELOG naming the current version, the README's screenshots."""

from __future__ import annotations

import re
import tomllib
from pathlib import Path

REPO = Path(__file__).resolve().parents[2]
PROJECT = tomllib.loads((REPO / "pyproject.toml").read_text(encoding="utf-8"))["project"]


def test_the_licence_file_is_the_one_pyproject_names() -> None:
    assert PROJECT["license"] == "Apache-2.0"
    text = (REPO / "LICENSE").read_text(encoding="utf-8")
    assert "Apache License" in text and "Version 2.0, January 2004" in text
    assert "END OF TERMS AND CONDITIONS" in text  # the full text, not a pointer to it


def test_the_changelog_names_the_version() -> None:
    text = (REPO / "CHANGELOG.md").read_text(encoding="utf-8")
    assert re.search(rf"^## \[{re.escape(PROJECT['version'])}\] - \d{{4}}-\d\d-\d\d$", text, re.M)
    assert "## [Unreleased]" in text


def test_the_readme_images_exist_and_are_png() -> None:
    readme = (REPO / "README.md").read_text(encoding="utf-8")
    images = re.findall(r"(?:\]\(|src=\")(docs/images/[\w.-]+\.png)", readme)
    assert {"docs/images/overlay.png", "docs/images/console.png"} <= set(images)
    for image in images:
        assert (REPO / image).read_bytes()[:8] == b"\x89PNG\r\n\x1a\n", image


def test_install_doc_has_no_placeholder_host_and_names_the_cjk_fonts() -> None:
    text = (REPO / "docs" / "install.md").read_text(encoding="utf-8")
    assert not re.search(r"example\.(invalid|com|org|net)|your[-.]host|<host>", text)
    assert "apt install -y fonts-noto-cjk" in text
    assert "fonts-noto-cjk" in (REPO / "bin" / "ensure-services").read_text(encoding="utf-8")
