"""The discounts file's one check across rules: any two rules some offer could match both of
must nest (one narrower than the other), and no scope is written twice."""

from __future__ import annotations

import itertools
from collections.abc import Iterator
from typing import Protocol

from chipcost.core.errors import ChipcostError


class Discount(Protocol):
    """What the check reads of a rule (chipcost.transform.discounts.Discount)."""

    provider: str
    line: int

    @property
    def scope(self) -> str: ...

    def scope_values(self) -> tuple[frozenset | None, ...]: ...

    def within(self, other: Discount) -> bool: ...


def check_one_rule_per_offer(rules: tuple[Discount, ...], path: str) -> None:
    """Refuse, naming both lines, two rules for the same offers, or two that some offer
    matches both of while neither is narrower."""
    for first, second in _overlapping(rules):
        if first.within(second) and second.within(first):
            raise ChipcostError(
                f"discounts file {path}, lines {first.line} and {second.line}: two rules for "
                f"the same offers ({first.scope}); keep one"
            )
        if not (first.within(second) or second.within(first)):
            raise ChipcostError(
                f"discounts file {path}, lines {first.line} and {second.line}: both rules "
                f"match some offers ({first.scope} and {second.scope}) and neither is "
                "narrower; narrow one so that they no longer overlap, or drop one"
            )


def _overlapping(rules: tuple[Discount, ...]) -> Iterator[tuple[Discount, Discount]]:
    """Each pair of rules some offer could match both of (the earlier one first), found
    through an index of the names they share rather than by trying every pair: the rules of a
    valid file nest, so each overlaps only the few broader rules above it, and 6,000 rules are
    checked in linear time (benchmarks/discounts.py)."""
    groups: dict[tuple[str, tuple[bool, ...]], list[Discount]] = {}
    for rule in rules:  # by provider and which of model, chip and region the rule names
        named = tuple(v is not None for v in rule.scope_values())
        groups.setdefault((rule.provider, named), []).append(rule)
    keys = list(groups)  # same-pattern pairs first: a duplicate is told before the rest
    pairs = [(a, a) for a in keys]
    pairs += [(a, b) for a in keys for b in keys if a[0] == b[0] and a < b]
    for mine, theirs in pairs:
        shared = tuple(x and y for x, y in zip(mine[1], theirs[1], strict=True))
        index: dict[tuple, list[Discount]] = {}
        for rule in groups[theirs]:
            for key in _keys(rule, shared):
                index.setdefault(key, []).append(rule)
        for rule in groups[mine]:
            met = {id(o): o for key in _keys(rule, shared) for o in index.get(key, ())}
            for other in met.values():
                if other is not rule and (mine != theirs or rule.line < other.line):
                    yield (rule, other) if rule.line <= other.line else (other, rule)


def _keys(rule: Discount, shared: tuple[bool, ...]) -> Iterator[tuple]:
    """The names of `rule` in the dimensions `shared`, one key per chip a family stands for."""
    named = zip(rule.scope_values(), shared, strict=True)
    return itertools.product(*(sorted(v or ()) if on else [None] for v, on in named))
