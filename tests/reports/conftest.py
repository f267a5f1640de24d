"""The sample week's report, made once for the tests that read it."""

from __future__ import annotations

import pytest

from chipcost.reports.build import deliver, write_report
from tests.conftest import SAMPLE


@pytest.fixture(scope="session")
def sample_report(tmp_path_factory):
    """The weekly report of the whole sample archive, replayed as `chipcost collect` does:
    the report and the path of its e-mail (.eml)."""
    from tests.collecting import collect

    root = tmp_path_factory.mktemp("sample-report")
    db = root / "w.duckdb"
    collect(replay=str(SAMPLE), db=str(db), data_dir=str(root))
    made = write_report(db, root / "r")
    return made, deliver(made, [], dry_run=True).eml_path
