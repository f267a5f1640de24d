"""The documentation's screenshots, made from a warehouse with headless chromium (Playwright).

Usage: .venv/bin/python docs/screenshots.py [WAREHOUSE]   (default data/chipcost.duckdb,
which scripts/demo.sh fills with the bundled sample). Writes docs/img/report.png,
report-history.png, report-jump.png and site.png. Needs /usr/bin/chromium (or $CHROMIUM).
"""

from __future__ import annotations

import os
import sys
import tempfile
from pathlib import Path

from playwright.sync_api import Page, sync_playwright

from chipcost.reports.build import write_report
from chipcost.reports.site import write_site

ROOT = Path(__file__).resolve().parent.parent
IMG = ROOT / "docs" / "img"
CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")


def report_shots(page: Page, html: Path) -> None:
    page.set_viewport_size({"width": 1200, "height": 1250})
    page.goto(html.as_uri())
    page.screenshot(path=IMG / "report.png")
    top = page.evaluate("document.getElementById('history').getBoundingClientRect().top + scrollY")
    clip = {"x": 0, "y": top, "width": 1200, "height": 760}
    page.screenshot(path=IMG / "report-history.png", clip=clip, full_page=True)
    # The row of a move out and back (the sample's Spheron L40S x8), marked instead of 0.0%.
    jump = page.locator("#changes td", has_text="and back").first
    top = page.evaluate("e => e.getBoundingClientRect().top + scrollY", jump.element_handle())
    clip = {"x": 0, "y": top - 120, "width": 1200, "height": 200}
    page.screenshot(path=IMG / "report-jump.png", clip=clip, full_page=True)


def site_shot(page: Page, index: Path) -> None:
    # What a laptop shows first (the sections below are laid out only when scrolled to).
    page.set_viewport_size({"width": 1280, "height": 1000})
    page.goto(index.as_uri())
    page.select_option("#chip", "H100-SXM")
    page.fill("#memory", "80")
    page.screenshot(path=IMG / "site.png")


def main(db: Path) -> None:
    with tempfile.TemporaryDirectory() as scratch, sync_playwright() as playwright:
        made = write_report(db, Path(scratch) / "report")
        site = write_site(db, Path(scratch) / "site")
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        page = browser.new_page()
        report_shots(page, made.html_path)
        site_shot(page, site.index)
        browser.close()
    print(f"written: {', '.join(p.name for p in sorted(IMG.glob('*.png')))} in {IMG}")


if __name__ == "__main__":
    main(Path(sys.argv[1] if len(sys.argv) > 1 else ROOT / "data" / "chipcost.duckdb"))
