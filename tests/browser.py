"""Debian's chromium, driven by Playwright, for the tests that look at pages.

Its headless shell (the `chromium-headless-shell` package: the same Blink, without the full
browser's window and tab strip) is what Playwright itself runs for headless chromium, and it
takes a third of the full browser's CPU for the same pages (docs/performance.md); the full
`chromium` is used where only it is installed."""

from __future__ import annotations

from pathlib import Path

import pytest

SHELL = Path("/usr/bin/chromium-headless-shell")
CHROMIUM = SHELL if SHELL.exists() else Path("/usr/bin/chromium")

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium-headless-shell or /usr/bin/chromium: install one (apt-get "
    "install -y chromium-headless-shell; scripts/setup.sh test does so on Debian as root) to "
    "run the browser tests",
)


def launch(sync_api):
    """One headless chromium for a module's tests; a context manager."""
    return _Browser(sync_api)


class _Browser:
    def __init__(self, sync_api) -> None:
        self._sync_api = sync_api

    def __enter__(self):
        self._playwright = self._sync_api.sync_playwright().start()
        self._browser = self._playwright.chromium.launch(
            executable_path=str(CHROMIUM), args=["--no-sandbox"]
        )
        return self._browser

    def __exit__(self, *exc) -> None:
        self._browser.close()
        self._playwright.stop()
