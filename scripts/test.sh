#!/usr/bin/env bash
# Set up with the test extras, then lint, check the formatting and the layer contract, and
# run the whole suite on every core.
set -euo pipefail
cd "$(dirname "$0")/.."
scripts/setup.sh test
export DO_NOT_TRACK=1 PREFECT_SERVER_ANALYTICS_ENABLED=false
# The suite starts hundreds of Python processes on these same sources: let them share the
# compiled bytecode, and pytest its rewritten test modules (__pycache__ is ignored by git).
unset PYTHONDONTWRITEBYTECODE
# One test worker per core, each DuckDB one thread: two threads a worker on the same cores
# only add DuckDB's hand-offs between them (docs/operations.md, CHIPCOST_THREADS).
export CHIPCOST_THREADS=1
# And polars one thread a worker for the same reason: pandera's checks are many small lazy
# queries, each handed to polars' pool and back (a validation 18 ms of CPU with the pool,
# 14 ms without).
export POLARS_MAX_THREADS=1
.venv/bin/ruff check .
.venv/bin/ruff format --check .
scripts/lint-imports.sh
# Each test file on one worker (--dist loadfile): a file's module fixtures (a browser, a
# warehouse made for its tests, a tokenizer) are then made once, not once on each worker its
# tests were spread over: about 50 s of CPU of the run (docs/performance.md).
.venv/bin/python -m pytest -n auto --dist loadfile "$@"
