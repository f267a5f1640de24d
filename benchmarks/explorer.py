"""How long the price explorer takes to open in chromium, and how large its files are.

    .venv/bin/python -m benchmarks.explorer DIR [DIR ...] [--repeat 5] [--via http|file]

Each DIR is a `chipcost site DIR` output (e.g. one written by the code before a change and
one by the code after). The loads alternate between the directories, each in a new browser
context (nothing cached), served by a local HTTP server (as a static host serves it) or
opened from disk (`--via file`). A load ends when the page's `load` event has fired and its
table shows offers; the figure is the page's own clock at that moment (from the start of
navigation), with the renderer's main-thread busy time (Chrome's TaskDuration) beside it.
Needs /usr/bin/chromium (or $CHROMIUM) and Playwright.
"""

from __future__ import annotations

import argparse
import functools
import os
import statistics
import threading
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

from playwright.sync_api import Browser, sync_playwright

CHROMIUM = os.environ.get("CHROMIUM", "/usr/bin/chromium")
# Both the page and its table are there: the old page had no mark of its own, so the test is
# the table's first row, which both the old and the new page draw.
READY = (
    "() => document.readyState === 'complete' && "
    "document.querySelector('#offers tbody tr') !== null && performance.now()"
)


class _Quiet(SimpleHTTPRequestHandler):
    def log_message(self, *args: object) -> None:
        pass


def _serve(root: Path) -> tuple[ThreadingHTTPServer, str]:
    handler = functools.partial(_Quiet, directory=str(root))
    server = ThreadingHTTPServer(("127.0.0.1", 0), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server, f"http://127.0.0.1:{server.server_port}/index.html"


def load(browser: Browser, url: str) -> tuple[float, float]:
    """Milliseconds to a usable page, and the renderer's main-thread busy milliseconds."""
    context = browser.new_context(viewport={"width": 1280, "height": 900})
    try:
        page = context.new_page()
        cdp = context.new_cdp_session(page)
        cdp.send("Performance.enable")
        page.goto(url, wait_until="commit")
        ready = page.wait_for_function(READY, polling="raf", timeout=60_000).json_value()
        metrics = {m["name"]: m["value"] for m in cdp.send("Performance.getMetrics")["metrics"]}
        return float(ready), metrics["TaskDuration"] * 1000
    finally:
        context.close()


def sizes(site: Path) -> str:
    files = sorted(p for p in site.iterdir() if p.suffix in (".html", ".json", ".js"))
    return ", ".join(f"{p.name} {p.stat().st_size / 1e6:.2f} MB" for p in files)


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("sites", nargs="+", type=Path, help="chipcost site output directories")
    parser.add_argument("--repeat", type=int, default=5)
    parser.add_argument("--via", choices=("http", "file"), default="http")
    args = parser.parse_args()
    servers, urls = [], []
    for site in args.sites:
        if args.via == "http":
            server, url = _serve(site)
            servers.append(server)
        else:
            url = (site.resolve() / "index.html").as_uri()
        urls.append(url)
    times: dict[Path, list[tuple[float, float]]] = {site: [] for site in args.sites}
    with sync_playwright() as playwright:
        browser = playwright.chromium.launch(executable_path=CHROMIUM, args=["--no-sandbox"])
        load(browser, urls[0])  # the browser's own start-up is not the page's
        for _ in range(args.repeat):
            for site, url in zip(args.sites, urls, strict=True):
                times[site].append(load(browser, url))
        browser.close()
    for server in servers:
        server.shutdown()
    print(f"explorer load in chromium via {args.via}, load average {os.getloadavg()[0]:.1f}")
    for site, runs in times.items():
        wall = statistics.median(t for t, _ in runs)
        busy = statistics.median(b for _, b in runs)
        spread = f"{min(t for t, _ in runs):.0f}-{max(t for t, _ in runs):.0f}"
        print(f"  {site}: {sizes(site)}")
        print(f"    ready in {wall:.0f} ms (median of {len(runs)}, {spread}); ", end="")
        print(f"main thread {busy:.0f} ms")


if __name__ == "__main__":
    main()
