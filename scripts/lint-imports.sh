#!/usr/bin/env bash
# Check the import contract (pyproject.toml [tool.importlinter]) on the package as installed:
# every folder X at the top of the repository is chipcost.X, so lint a view of the
# tree laid out that way (a copy of the Python files in a temporary directory), whatever the
# install mode: the import graph is read from files, and an editable install maps folders.
set -euo pipefail
cd "$(dirname "$0")/.."
view=$(mktemp -d)
trap 'rm -rf "$view"' EXIT
copy() {  # the .py files of folder $1 into $2
  (cd "$1" && find . -name '*.py' -not -path '*/__pycache__/*' -print0 \
    | xargs -0 -I{} install -D -m 644 {} "$2/{}")
}
copy chipcost "$view/chipcost"
# every chipcost.X of pyproject's package-dir (the folder X)
for layer in $(.venv/bin/python -c 'import tomllib; print(*list(tomllib.load(open("pyproject.toml", "rb"))["tool"]["setuptools"]["package-dir"])[1:])' | sed 's/chipcost\.//g'); do
  copy "$layer" "$view/chipcost/$layer"
done
repo=$PWD
# The contracts of pyproject.toml, and "a source never imports another source" over the
# registry's modules (discovered in extract/: the source list lives only there).
config="$view/importlinter.toml"
cp pyproject.toml "$config"
PYTHONPATH="$view" .venv/bin/python - >>"$config" <<'PY'
from chipcost.extract import source_modules

modules = ",\n".join(f'    "chipcost.extract.{m}"' for m in source_modules())
print(f"""
[[tool.importlinter.contracts]]
name = "A source never imports another source"
type = "independence"
modules = [
{modules},
]""")
PY
cd "$view"  # import-linter puts the working directory first on the path
PYTHONPATH="$view" "$repo/.venv/bin/lint-imports" --no-cache "$@" "$config"
