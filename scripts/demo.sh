#!/usr/bin/env bash
# Set up, then run the daily job on the embedded defaults: the bundled SAMPLE archive
# (no provider is reachable without credentials and network) into a local DuckDB file under
# ./data. Then show what it collected, and last the same replay as the deployed flow runs
# it, on Prefect's temporary local server.
set -euo pipefail
cd "$(dirname "$0")/.."
echo "== scripts/setup.sh   (.venv with chipcost and its dependencies)"
scripts/setup.sh
export DO_NOT_TRACK=1 PREFECT_SERVER_ANALYTICS_ENABLED=false
echo
echo "== chipcost collect --replay sample/archive   (SAMPLE DATA, synthetic prices in each provider's real payload shape; no Prefect server)"
.venv/bin/chipcost collect --replay sample/archive
echo
echo "== chipcost prices --chip H100-SXM --region us-east-1"
.venv/bin/chipcost prices --chip H100-SXM --region us-east-1
echo
echo "== chipcost prices --chip H100-SXM --region eu-central-1 --limit 8   (aws-bulk, aws-spot-feed: AWS's public files, no credentials)"
.venv/bin/chipcost prices --chip H100-SXM --region eu-central-1 --limit 8
echo
echo "== chipcost prices --chip H100-SXM --provider aws --currency EUR --limit 5   (at the ECB rate of each price's day)"
.venv/bin/chipcost prices --chip H100-SXM --provider aws --currency EUR --limit 5

echo "== CHIPCOST_DISCOUNTS=docs/examples/discounts.toml chipcost prices --chip H100-SXM --provider aws --limit 4   (your discounts, list prices beside)"
CHIPCOST_DISCOUNTS=docs/examples/discounts.toml .venv/bin/chipcost prices --chip H100-SXM --provider aws --limit 4

echo "== chipcost prices --chip H100-SXM --provider aws --spot --limit 4   (AWS's frequency of interruption beside each spot price)"
.venv/bin/chipcost prices --chip H100-SXM --provider aws --spot --limit 4

echo "== chipcost history --chip H100-SXM   (the cheapest price per day per pricing model)"
.venv/bin/chipcost history --chip H100-SXM
echo
echo "== chipcost index --chip H100-SXM   (the daily rental price index: median of each provider's cheapest)"
.venv/bin/chipcost index --chip H100-SXM

echo "== chipcost cost --model llama-3-70b --workload inference --limit 15"
.venv/bin/chipcost cost --model llama-3-70b --workload inference --limit 15
echo
echo "== chipcost compare Trainium2 H100-SXM --model llama-3-70b --workload inference   (the articles' question, per pricing model)"
.venv/bin/chipcost compare Trainium2 H100-SXM --model llama-3-70b --workload inference
echo
echo "== chipcost sql \"select count(*) as history_rows from price_history\""
.venv/bin/chipcost sql "select count(*) as history_rows from price_history"
echo
echo "== chipcost report --dry-run   (the week's report: HTML and CSV, and the e-mail as .eml, not sent)"
.venv/bin/chipcost report --dry-run
echo
echo "== chipcost site --out data/site   (the price explorer: open data/site/index.html in a browser)"
.venv/bin/chipcost site --out data/site
echo
echo "== chipcost collect --replay sample/archive --prefect --db data/flow-demo.duckdb   (the same replay as the scheduled flow: starting Prefect's temporary server takes a few seconds)"
rm -f data/flow-demo.duckdb
.venv/bin/chipcost collect --replay sample/archive --prefect --db data/flow-demo.duckdb
echo
echo "Next: .venv/bin/chipcost --help   (warehouse: data/chipcost.duckdb)"
