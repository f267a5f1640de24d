#!/usr/bin/env bash
# Create ./.venv (if needed) and install chipcost with the pinned constraints.
# Usage: scripts/setup.sh [extra]   e.g. scripts/setup.sh test
set -euo pipefail
cd "$(dirname "$0")/.."
PYTHON=${PYTHON:-python3}
if [ ! -x .venv/bin/python ]; then
  echo "creating .venv with $($PYTHON --version)"
  "$PYTHON" -m venv .venv
fi
spec="."
[ $# -gt 0 ] && spec=".[$1]"
echo "installing chipcost${1:+ [$1]} (constraints.txt pins what Prefect's local server needs)"
.venv/bin/python -m pip install --quiet --disable-pip-version-check -c constraints.txt -e "$spec"
# The test extra includes the price explorer's browser test, which drives the system's chromium
# (Playwright cannot download its own browser here). On Debian as root, install it; elsewhere
# the test skips and says why.
if [ "${1:-}" = "test" ] && ! command -v chromium >/dev/null 2>&1; then
  if command -v apt-get >/dev/null 2>&1 && [ "$(id -u)" = "0" ]; then
    echo "installing chromium for the browser test (apt-get)"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium >/dev/null
  else
    echo "note: no chromium; the price explorer's browser test will be skipped" >&2
  fi
fi
