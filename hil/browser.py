"""Headless Chromium for the browser tests (Debian's chromium + chromedriver, driven by selenium).

No browser is downloaded: the driver is Debian's ``/usr/bin/chromedriver`` (``bin/ensure-services``
installs it), so selenium's own driver manager never runs.
"""

from __future__ import annotations

import os
import shutil
import tempfile
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

from selenium import webdriver
from selenium.webdriver.chrome.service import Service

CHROMIUM = shutil.which("chromium") or "/usr/bin/chromium"
CHROMEDRIVER = shutil.which("chromedriver") or "/usr/bin/chromedriver"
ARTIFACTS = Path(__file__).resolve().parents[1] / "test-artifacts"
#: the README's screenshots: made by the browser tests, committed (docs/images/README.md)
DOC_IMAGES = Path(__file__).resolve().parents[1] / "docs" / "images"


@contextmanager
def chromium(width: int = 1920, height: int = 1080) -> Iterator[webdriver.Chrome]:
    assert Path(CHROMIUM).exists(), "Debian's chromium is required (bin/ensure-services)"
    assert Path(CHROMEDRIVER).exists(), "Debian's chromium-driver is required"
    profile = tempfile.mkdtemp(prefix="jantaku-chromium-")
    opts = webdriver.ChromeOptions()
    opts.binary_location = CHROMIUM
    for arg in (
        "--headless=new",
        "--no-sandbox",
        "--disable-gpu",
        "--disable-dev-shm-usage",
        "--no-first-run",
        "--disable-background-networking",
        "--disable-component-update",
        "--disable-sync",
        "--disable-quic",
        f"--window-size={width},{height}",
        f"--user-data-dir={profile}",
    ):
        opts.add_argument(arg)
    driver = webdriver.Chrome(service=Service(CHROMEDRIVER), options=opts)
    resize(driver, width, height)
    try:
        yield driver
    finally:
        driver.quit()
        shutil.rmtree(profile, ignore_errors=True)


def resize(driver: webdriver.Chrome, width: int, height: int) -> None:
    """The page's viewport at ``width`` x ``height`` (--window-size sizes the window, not the
    page: this pins the viewport to the broadcast size; a module's tests that share one browser
    size it each)."""
    driver.execute_cdp_cmd(
        "Emulation.setDeviceMetricsOverride",
        {"width": width, "height": height, "deviceScaleFactor": 1, "mobile": False},
    )


def save_screenshot(driver: webdriver.Chrome, name: str, *, doc_as: str | None = None) -> Path:
    """Save to ``test-artifacts/NAME``; with ``doc_as`` also as the README's ``docs/images/`` file
    of that name when ``JANTAKU_DOC_IMAGES=1`` (:func:`refresh_doc_image`)."""
    ARTIFACTS.mkdir(exist_ok=True)
    path = ARTIFACTS / name
    driver.save_screenshot(str(path))
    if doc_as is not None:
        refresh_doc_image(path, doc_as)
    return path


def refresh_doc_image(shot: Path, doc_as: str) -> None:
    """Copy a screenshot over the README's ``docs/images/DOC_AS``, only when asked
    (``JANTAKU_DOC_IMAGES=1``): a test run leaves the checkout as it found it
    (docs/images/README.md)."""
    if os.environ.get("JANTAKU_DOC_IMAGES") != "1":
        return
    DOC_IMAGES.mkdir(parents=True, exist_ok=True)
    shutil.copyfile(shot, DOC_IMAGES / doc_as)
