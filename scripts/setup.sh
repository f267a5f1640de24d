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
