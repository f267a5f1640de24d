"""The sample week's report, the golden warehouse's report and its explorer, each made once for
the tests that read it; one headless chromium for a module's browser tests."""

from __future__ import annotations

import pytest

from chipcost.reports.build import deliver, write_report
from tests import warehouses


@pytest.fixture(scope="session")
def sample_report(tmp_path_factory):
    """The weekly report of the whole sample archive, replayed as `chipcost collect` does (the
    suite's one sample replay, tests/warehouses.py): the report and the path of its e-mail."""
    root = tmp_path_factory.mktemp("sample-report")
    made = write_report(warehouses.sample(root / "w.duckdb"), root / "r")
    return made, deliver(made, [], dry_run=True).eml_path


@pytest.fixture(scope="session")
def golden_report(tmp_path_factory):
    """The weekly report of the report tests' warehouse (tests/report_warehouse.py), made once
    for the tests that read it: a test that sends it works on a copy of its warehouse."""
    from tests import report_warehouse

    root = tmp_path_factory.mktemp("golden-report")
    return write_report(report_warehouse.build(root / "w.duckdb"), root / "reports")


@pytest.fixture(scope="session")
def golden_site(tmp_path_factory):
    """The golden warehouse's explorer, made once for the tests that read it: the folder
    `site`, its warehouse `w.duckdb` beside it (6 offers: H100-SXM x5, Trainium1)."""
    from chipcost.reports.site import write_site
    from tests import report_warehouse

    root = tmp_path_factory.mktemp("golden-site")
    write_site(report_warehouse.build(root / "w.duckdb"), root / "site")
    return root / "site"


@pytest.fixture(scope="module")
def browser():
    """Debian's headless chromium (tests/browser.py), one for a module's tests; each test
    opens pages in a context of its own. Not one for the whole run: while Playwright's sync
    API is started, Prefect takes the thread for async and its flows return coroutines."""
    sync_api = pytest.importorskip("playwright.sync_api")
    from tests.browser import launch

    with launch(sync_api) as browser:
        yield browser
