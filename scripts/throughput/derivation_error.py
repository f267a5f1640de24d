"""Print the derivation's error against the catalogue, as docs/cost-per-token.md carries it.

.venv/bin/python scripts/throughput/derivation_error.py          # the summary table
.venv/bin/python scripts/throughput/derivation_error.py --each   # every figure checked
.venv/bin/python scripts/throughput/derivation_error.py --out-of-sample  # the fitted one's
"""

from __future__ import annotations

import sys

from chipcost.pipeline.derivation_error import checks, markdown, summaries
from chipcost.pipeline.derivation_fit import catalogue, cells_markdown
from chipcost.pipeline.derivation_fit import markdown as bands_markdown


def main(argv: list[str]) -> None:
    if "--out-of-sample" in argv:
        rows = list(catalogue().bands.values())
        print(bands_markdown(rows), cells_markdown(rows), sep="\n\n")
        return
    found = checks()
    print(markdown(summaries(found)))
    if "--each" in argv:
        for check in sorted(found, key=lambda c: c.ratio):
            print(
                f"{check.ratio:6.2f}  {check.throughput_id}  published {check.measured:,.0f}"
                f"  derived {check.derived:,.0f}  at {check.point}"
            )


if __name__ == "__main__":
    main(sys.argv[1:])
