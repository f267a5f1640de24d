"""Every benchmark command docs/performance.md gives runs as written, at a tiny size.

The commands are read from the doc itself, so a command it names that no longer runs (a
module renamed, an option gone, an import only a checkout has) fails here. Each runs as a
new process from the repository's root, as a reader would type it; only the sizes are made
small (SHRINK, below) and the doc's placeholders filled in (FILE, DIR, OTHER, OLD.py, and
ONE_RUN for SHRINK's own).
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
from pathlib import Path

import pytest

from chipcost.archive import run_directories
from tests import shared_prefect, warehouses
from tests.browser import CHROMIUM
from tests.paths import ROOT

DOC = ROOT / "docs" / "performance.md"
CHIPCOST = str(Path(sys.executable).with_name("chipcost"))

# THE SIZE-SHRINKING: options set on top of the doc's command, per benchmark module, so
# each runs in seconds. Nothing else of the command is changed. Each read timed once after
# its first (--repeat 1), one count of backfill workers, one width of table, no build run
# only to write bytecode (the suite has written it), one run of the sample replayed.
SHRINK: dict[str, dict[str, list[str]]] = {
    "bulk_filter": {"--sizes": ["1"], "--repeat": ["1"]},
    "scale": {
        **{"--days": ["4"], "--offers": ["300"], "--prefill-days": ["2"], "--samples": ["1"]},
        "--repeat": ["1"],
    },
    "discounts": {"--rules": ["20"], "--repeat": ["1"]},
    "html_pages": {"--kb": ["4"], "--repeat": ["1"]},
    "tables": {"--repeat": ["1"], "--widths": ["80"]},
    "imports": {"--rows": ["20"], "--repeat": ["1"]},
    "cli": {"--repeat": ["1"]},
    "reads": {"--repeat": ["1"]},
    "lake": {
        **{"--days": ["3"], "--offers": ["200"], "--loads": ["1"], "--readers": ["2"]},
        **{"--versions": ["1"], "--file-mb": ["1"], "--pace-mb": ["100"], "--workers": ["1"]},
        "--repeat": ["1"],
    },
    "offers": {"--offers": ["200"]},
    "builds": {"--repeat": ["1"], "--warmup": ["0"]},
    "explorer": {"--repeat": ["1"]},
    "replay": {"--repeat": ["1"], "--no-prefect": [], "--archive": ["ONE_RUN"]},
    "withdrawal": {"--offers": ["400"], "--refused": ["40"], "--repeat": ["1"]},
}
# What each benchmark needs beyond the installed chipcost, and where the suite finds it.
NEEDS = {"explorer": (CHROMIUM.exists(), f"no chromium at {CHROMIUM}")}


def documented() -> list[str]:
    """The doc's benchmark commands, each once; `...` stands for one written out above it."""
    # The command from `python` on, after any environment or wrapper written before it.
    found = re.findall(r"`[^`]*?\b(python (?:-m benchmarks\.|benchmarks/)[^`]*)`", DOC.read_text())
    return sorted({c for c in found if "..." not in c})


def to_run() -> dict[str, list[str]]:
    """Each documented command's words as run here (optional parts such as `[--pandas DIR]`
    left out, then shrunk), by the first command that gives them."""
    runs: dict[str, list[str]] = {}
    for command in documented():
        written = shlex.split(re.sub(r"\s*\[[^\]]*\]", "", command))
        words = shrunk(written, _module(written))
        runs.setdefault(" ".join(words), words)
    return {" ".join(words): words for words in runs.values()}


def _module(words: list[str]) -> str:
    name = words[2] if words[1] == "-m" else words[1]
    return name.removeprefix("benchmarks.").removeprefix("benchmarks/").removesuffix(".py")


def shrunk(words: list[str], module: str) -> list[str]:
    """`words` with SHRINK's options for `module` in place of the doc's own values."""
    words, options = list(words), SHRINK.get(module, {})
    for option, values in options.items():
        if option in words:
            at = words.index(option) + 1
            end = next((i for i in range(at, len(words)) if words[i].startswith("--")), None)
            words[at : end or len(words)] = values
        else:
            words += [option, *values]
    return words


@pytest.fixture(scope="module")
def placeholders(tmp_path_factory) -> dict[str, str]:
    """The doc's placeholders: FILE the sample warehouse, DIR and SITE_DIR its site; and
    SHRINK's ONE_RUN, the sample archive's first run."""
    folder = tmp_path_factory.mktemp("smoke")
    db = warehouses.sample(folder / "sample.duckdb")
    site = folder / "site"
    subprocess.run(
        [CHIPCOST, "site", "--db", str(db), "--out", str(site)], check=True, capture_output=True
    )
    return {
        "FILE": str(db),
        "DIR": str(site),
        "SITE_DIR": str(site),
        "OLD_SITE_DIR": str(site),
        "OTHER/.venv/bin/chipcost": CHIPCOST,
        "ONE_RUN": str(run_directories(ROOT / "sample" / "archive")[0]),
        # the code before, for a benchmark run in turns with it: here this checkout's own
        "OLD.py": str(ROOT / "warehouse" / "history_steps.py"),
    }


@pytest.mark.parametrize("command", sorted(to_run()), ids=str)
def test_documented_command_runs(
    command: str, placeholders: dict[str, str], tmp_path: Path
) -> None:
    written = to_run()[command]
    module = _module(written)
    ready, why = NEEDS.get(module, (True, ""))
    if not ready:
        pytest.skip(why)
    if module == "scale" and "--reads-only" not in written:
        # scale builds its warehouse: its FILE is one not made yet.
        placeholders = {**placeholders, "FILE": str(tmp_path / "built.duckdb")}
    words = [placeholders.get(w, w) for w in written]
    # The suite's chromium (its headless shell where installed) for benchmarks.explorer.
    env = {**os.environ, "CHIPCOST_THREADS": "1", "POLARS_MAX_THREADS": "1"}
    env.setdefault("CHROMIUM", str(CHROMIUM))
    if module == "lake" and (url := os.environ.get(shared_prefect.URL_ENV)):
        # A distributed run's one Prefect server, named as a user names a server of their
        # own: the backfill's flow runs on it instead of on a server started for it (seconds
        # of CPU).
        shared_prefect.wait_until_answering(url)
        env["PREFECT_API_URL"] = url
    done = subprocess.run(
        [sys.executable, *words[1:]],
        cwd=ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert done.returncode == 0, f"{' '.join(words)}\n{done.stdout[-2000:]}\n{done.stderr[-3000:]}"
    assert done.stdout.strip(), f"{command}: printed nothing"


def test_every_documented_module_is_shrunk() -> None:
    modules = {_module(shlex.split(c)) for c in documented()}
    assert modules, f"{DOC}: no benchmark command found"
    assert modules <= set(SHRINK), f"add the new benchmark's small size to SHRINK: {modules}"
