#!/usr/bin/env bash
# Set up with the test extras, then lint and run the whole test suite.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
export DO_NOT_TRACK=1 PREFECT_SERVER_ANALYTICS_ENABLED=false
.venv/bin/ruff check .
.venv/bin/python -m pytest "$@"
