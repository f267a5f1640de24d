"""Print the derivation's error against the catalogue, as docs/cost-per-token.md carries it.

.venv/bin/python scripts/throughput/derivation_error.py          # the summary table
.venv/bin/python scripts/throughput/derivation_error.py --each   # every figure checked
.venv/bin/python scripts/throughput/derivation_error.py --out-of-sample  # the fitted one's
"""

from __future__ import annotations

import math
import sys

from chipcost.pipeline.derivation_error import checks, markdown, summaries
from chipcost.pipeline.derivation_fit import catalogue, cells_markdown
from chipcost.pipeline.derivation_fit import markdown as bands_markdown


def main(argv: list[str]) -> None:
    if "--out-of-sample" in argv:
        fitted = catalogue()
        rows = list(fitted.bands.values())
        print(bands_markdown(rows), cells_markdown(rows), sep="\n\n")
        for size, line in sorted(fitted.fit.groups.items()):
            at_max, at_25 = math.exp(line.at(None)), math.exp(line.at(25))
            print(f"{size}: x{at_max:.2f} at maximum throughput, x{at_25:.2f} at 25 tokens/s "
                  f"per user ({line.count} figures)")  # fmt: skip
        for chip, (efficiency, count) in sorted(fitted.fit.chips.items()):
            print(f"{chip}: x{math.exp(efficiency):.2f} of its size's line ({count} figures)")
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
