"""Reading a discounts file of thousands of rules: the overlap check's seconds against rules.

# python -m benchmarks.discounts                      # 1,000, 3,000 and 6,000 rules
# python -m benchmarks.discounts --rules 6000 --repeat 5

Writes a TOML discounts file whose rules nest as a large customer's would: per provider a
rule for every pricing model, under it one per chip, under those one per region (real
providers, pricing models and chip names; the regions are numbered). Each file is read with
chipcost's read_discounts (the overlap check finds the pairs that share names through an
index; its own time is also shown), then checked again by trying every pair of rules
(Discount.overlaps, as the check did before), so the figures come from the same rules in the
same minutes. Prints the fastest
of --repeat runs of each. Figures are in docs/performance.md.
"""

from __future__ import annotations

import argparse
import itertools
import os

from benchmarks import fastest
from chipcost.core.names import resolve_chip_name
from chipcost.core.vocabulary import PRICING_MODELS
from chipcost.transform.discount_overlaps import check_one_rule_per_offer
from chipcost.transform.discounts import Discounts, Vocabulary, read_discounts

PROVIDERS = ("aws", "azure", "gcp", "lambda", "runpod", "vastai")
CHIPS = ("H100-SXM", "H200", "B200", "A100-80GB", "L40S", "MI300X", "Trainium2")


def rules_file(count: int) -> str:
    """`count` rules: provider > pricing model > chip > region, every level a rule."""
    blocks: list[str] = []
    regions = itertools.count()
    for provider in itertools.cycle(PROVIDERS):
        blocks.append(f'[[discount]]\nprovider = "{provider}"\npercent = 5\nlabel = "base"\n')
        for model in PRICING_MODELS[:2]:
            blocks.append(_rule(provider, 6, pricing_model=model))
            for chip in CHIPS:
                blocks.append(_rule(provider, 7, pricing_model=model, chip=chip))
                blocks += [
                    _rule(
                        provider,
                        8,
                        pricing_model=model,
                        chip=chip,
                        region=f"region-{next(regions)}",
                    )
                    for _ in range(80)
                ]
                if len(blocks) >= count:
                    return "\n".join(blocks[:count])
    raise AssertionError("unreachable")


def _rule(provider: str, percent: int, **scope: str) -> str:
    named = "".join(f'{key} = "{value}"\n' for key, value in scope.items())
    return f'[[discount]]\nprovider = "{provider}"\n{named}percent = {percent}\nlabel = "l"\n'


def every_pair(found: Discounts) -> int:
    """The check as it was: each pair of rules tried (the count of overlapping pairs)."""
    rules = found.rules
    return sum(a.overlaps(b) for i, a in enumerate(rules) for b in rules[i + 1 :])


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rules", type=int, nargs="+", default=[1000, 3000, 6000])
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--no-baseline", action="store_true", help="skip every-pair")
    args = parser.parse_args()
    known = Vocabulary(PROVIDERS, PRICING_MODELS, resolve_chip_name)
    print(f"discounts file read (load {', '.join(f'{x:.1f}' for x in os.getloadavg())})")
    for count in args.rules:
        text = rules_file(count)
        found = read_discounts(text, "bench.toml", known)
        read = fastest(lambda text=text: read_discounts(text, "bench.toml", known), args.repeat)
        check = fastest(lambda found=found: check_one_rule_per_offer(found.rules, "b"), args.repeat)
        line = (
            f"  {count:>6,} rules  read_discounts {read:7.3f} s (its overlap check {check:6.3f} s)"
        )
        if not args.no_baseline:
            pairs = fastest(lambda found=found: every_pair(found), 1)
            line += f"   every pair tried (the check before) {pairs:7.2f} s"
        print(line, flush=True)


if __name__ == "__main__":
    main()
