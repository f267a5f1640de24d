#!/usr/bin/env bash
# Create ./.venv (if needed) and install chipcost with the pinned constraints.
# Usage: scripts/setup.sh [extra]   e.g. scripts/setup.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
# The interpreter of .venv: $PYTHON when set. Else the system's own /usr/bin/python3 when it
# is the same Python version as the python3 on the PATH (the same wheels, the same behaviour)
# and can make a virtual environment: a distribution builds it with profile-guided and
# link-time optimisation, a version manager (pyenv) by default without, and the test suite
# took about 7% less CPU on Debian's (docs/performance.md). Else the python3 on the PATH.
if [ -z "${PYTHON:-}" ]; then
  PYTHON=python3
  version='import sys; print(*sys.version_info[:2])'
  if [ -x /usr/bin/python3 ] && [ "$(command -v python3)" != /usr/bin/python3 ] \
    && [ "$(/usr/bin/python3 -c "$version" 2>/dev/null)" = "$(python3 -c "$version")" ] \
    && /usr/bin/python3 -c 'import ensurepip, venv' 2>/dev/null; then
    PYTHON=/usr/bin/python3
  fi
fi
if [ ! -x .venv/bin/python ]; then
  echo "creating .venv with $($PYTHON --version) ($(command -v "$PYTHON"))"
  "$PYTHON" -m venv .venv
fi
spec="."
[ $# -gt 0 ] && spec=".[$1]"
echo "installing chipcost${1:+ [$1]} and its dependencies into .venv (about 200 packages;"
echo "constraints.txt pins what Prefect's local server needs)"
started=$SECONDS
# uv resolves and installs the same pinned set as pip in seconds where pip takes two minutes
# (docs/performance.md); it is itself one wheel from the package index. Where it cannot be had
# (an index without it), pip does the same install, slower.
if .venv/bin/python -m uv --version >/dev/null 2>&1 \
  || .venv/bin/python -m pip install --quiet --disable-pip-version-check uv >/dev/null 2>&1; then
  echo "  with uv $(.venv/bin/python -m uv --version | cut -d' ' -f2)"
  # --compile-bytecode, as pip does: without it a machine that sets PYTHONDONTWRITEBYTECODE
  # would compile every module again in each chipcost process. Not for the tests: compiling
  # all 200 packages is 25 s of CPU, and scripts/test.sh lets its processes write the bytecode
  # of the modules they import (a fraction of them) as they first import them.
  compile=--compile-bytecode
  [ "${1:-}" = "test" ] && compile=
  .venv/bin/python -m uv pip install --quiet $compile --python .venv/bin/python \
    -c constraints.txt -e "$spec"
else
  echo "  with pip (uv could not be installed: a minute or two)"
  # pip's own lines, shortened to what says how far it is: every tenth package resolved, the
  # install step, and any warning or error as pip wrote it.
  .venv/bin/python -m pip install --disable-pip-version-check --progress-bar off \
    -c constraints.txt -e "$spec" 2>&1 | awk '
      /^Collecting / { n++; if (n % 10 == 1) { print "  resolving: " n " packages so far (" $2 ")"; fflush() } next }
      /^Installing collected packages/ { print "  installing " gsub(/,/, ",") + 1 " package(s)"; fflush(); next }
      /^(ERROR|WARNING|error)/ { print; fflush() }
    '
fi
# What an install for the tests left uncompiled (uv compiles only what it installs): half a
# second once all is compiled.
if [ "${1:-}" != "test" ]; then
  .venv/bin/python -m compileall -q .venv/lib/python*/site-packages >/dev/null 2>&1 || true
fi
echo "installed in $((SECONDS - started)) s"
# AIPerf, the load generator `chipcost measure` drives, for its tests: in an environment of its
# own (.venv/aiperf), its command linked into .venv/bin where chipcost finds it. Installed
# beside chipcost (the `measure` extra) it would hold rich at 14.1 and import-linter at 2.6 for
# the whole suite (docs/measure.md). About 5 s with uv and 860 MB.
if [ "${1:-}" = "test" ] && [ ! -x .venv/aiperf/bin/aiperf ]; then
  echo "installing AIPerf 0.13.0 for the measure tests (.venv/aiperf)"
  started=$SECONDS
  if .venv/bin/python -m uv --version >/dev/null 2>&1; then
    # uv installs into it from outside: no pip of its own (ensurepip is 3.5 s of CPU)
    "$PYTHON" -m venv --without-pip .venv/aiperf
    .venv/bin/python -m uv pip install --quiet --python .venv/aiperf/bin/python aiperf==0.13.0
  else
    "$PYTHON" -m venv .venv/aiperf
    .venv/aiperf/bin/python -m pip install --quiet --disable-pip-version-check aiperf==0.13.0
  fi
  echo "  installed in $((SECONDS - started)) s"
fi
if [ "${1:-}" = "test" ] && [ ! -e .venv/bin/aiperf ]; then
  ln -s ../aiperf/bin/aiperf .venv/bin/aiperf
fi
# The test extra includes the browser tests, which drive Debian's chromium headless shell (the
# old headless mode Playwright itself runs, a third of the full browser's CPU; Playwright
# cannot download its own browser here). On Debian as root, install it (from the package lists
# already on the machine, or fresh ones); where it cannot be had the tests use the full
# chromium, and with neither they skip and say why.
if [ "${1:-}" = "test" ] && ! command -v chromium-headless-shell >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "installing chromium-headless-shell for the browser tests (apt-get)"
    export DEBIAN_FRONTEND=noninteractive
    apt-get install -y -qq chromium-headless-shell >/dev/null 2>&1 \
      || { apt-get update -qq && apt-get install -y -qq chromium-headless-shell >/dev/null; } \
      || echo "note: chromium-headless-shell could not be installed; the browser tests use" \
        "the full chromium if it is there" >&2
  elif ! command -v chromium >/dev/null 2>&1; then
    echo "note: no chromium; the browser tests will be skipped" >&2
  fi
fi
