"""The discounts file's overlap check (transform/discounts.py): any two rules some offer could
match both of must nest, and one rule per scope. The check finds such pairs through an index of
the names they share, so each case here is one the index must not miss: a family against one
of its chips, families that share some chips, a wildcard against a named value, a conflict
among thousands of nested rules. (Its speed: benchmarks/discounts.py.)"""

from __future__ import annotations

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.names import resolve_chip_name
from chipcost.core.vocabulary import PRICING_MODELS
from chipcost.transform.discounts import Vocabulary, read_discounts

KNOWN = Vocabulary(("aws", "runpod"), PRICING_MODELS, resolve_chip_name)


def rules(*scopes: dict[str, str]) -> str:
    """A TOML file of one rule per scope, a blank line between rules."""
    return "\n".join(
        "[[discount]]\n" + "".join(f'{k} = "{v}"\n' for k, v in s.items()) + "percent = 5\n"
        for s in scopes
    )


def read(text: str):
    return read_discounts(text, "d.toml", KNOWN)


def test_nested_rules_are_kept_and_the_narrowest_applies():
    found = read(
        rules(
            {"provider": "aws"},
            {"provider": "aws", "chip": "Hopper"},
            {"provider": "aws", "chip": "H100"},  # a family inside Hopper
            {"provider": "aws", "chip": "H100-SXM", "region": "us-east-1"},
            {"provider": "runpod", "region": "us-east-1"},  # another provider: no overlap
        )
    )
    offer = {"provider": "aws", "chip": "H100-SXM", "region": "us-east-1"}
    assert found.rule_for(offer).scope == "aws H100-SXM us-east-1"
    assert found.rule_for({**offer, "region": "eu-west-1"}).scope == "aws H100"
    assert found.rule_for({**offer, "chip": "H200"}).scope == "aws Hopper"


@pytest.mark.parametrize(
    ("scopes", "said"),
    [
        # Ada and RTX share RTX-4090 and more, and neither holds the other
        (
            [{"provider": "aws", "chip": "RTX"}, {"provider": "aws", "chip": "Ada"}],
            "lines 1 and 6: both rules match some offers (aws RTX and aws Ada)",
        ),
        # a chip against a region: an offer of that chip in that region matches both
        (
            [
                {"provider": "aws", "pricing_model": "spot"},
                {"provider": "aws", "chip": "H100-SXM"},
                {"provider": "aws", "region": "us-east-1"},
            ],
            "lines 1 and 6: both rules match some offers",
        ),
        # one scope written twice (a family's name in two spellings)
        (
            [{"provider": "aws", "chip": "H100"}, {"provider": "aws", "chip": "h100"}],
            "lines 1 and 6: two rules for the same offers (aws H100)",
        ),
    ],
)
def test_rules_that_overlap_without_nesting_are_refused_naming_both_lines(scopes, said):
    with pytest.raises(ChipcostError, match=r"discounts file d\.toml, ") as refused:
        read(rules(*scopes))
    assert said in str(refused.value)


def test_a_conflict_among_thousands_of_nested_rules_is_found():
    regions = [{"provider": "aws", "chip": "H100-SXM", "region": f"r-{n}"} for n in range(3000)]
    nested = [{"provider": "aws"}, {"provider": "aws", "chip": "H100-SXM"}, *regions]
    assert len(read(rules(*nested)).rules) == 3002
    # one rule at the end, spot in r-2999, crosses the H100-SXM rule (line 5): H100-SXM spot
    # offers in r-2999 match both, and neither holds the other
    last = {"provider": "aws", "pricing_model": "spot", "region": "r-2999"}
    text = rules(*nested, last)
    with pytest.raises(ChipcostError) as refused:
        read(text)
    at = text.count("\n", 0, text.rindex("[[discount]]")) + 1
    assert f"lines 5 and {at}: both rules match some offers (aws H100-SXM and aws spot r-2999)" in (
        str(refused.value)
    )


@pytest.mark.parametrize(
    ("given", "provider"),
    [("Massed Compute", "massedcompute"), ("Vast.ai", "vastai"), ("Amazon", "aws"),
     (" AWS ", "aws")],
)  # fmt: skip
def test_a_provider_is_taken_as_the_provider_option_takes_it(given, provider):
    """By its title as well (Source.title: 'Vast.ai'), given as reads give it."""
    from chipcost.reads.price_ask import provider_titles

    _, titles = provider_titles()
    providers = ("aws", "massedcompute", "vastai")
    known = Vocabulary(providers, PRICING_MODELS, resolve_chip_name, titles)
    [rule] = read_discounts(rules({"provider": given}), "d.toml", known).rules
    assert rule.provider == provider
