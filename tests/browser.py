"""The system's chromium, driven by Playwright, for the tests that look at pages."""

from __future__ import annotations

from pathlib import Path

import pytest

CHROMIUM = Path("/usr/bin/chromium")

needs_chromium = pytest.mark.skipif(
    not CHROMIUM.exists(),
    reason="no /usr/bin/chromium: install it (apt-get install -y chromium; scripts/setup.sh "
    "test does so on Debian as root) to run the browser tests",
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
