"""`collect --source` (and --accept-moves) names a source, or a provider for each of its
sources, as --provider names one: over the registry, every provider's code, title and the
company names PROVIDER_ALIASES gives stand for its sources.

On b4f20479 a title was turned into its provider's code and that code looked up among the
sources' names: 'Together AI' (together-clusters) and 'the ECB' (ecb-rates) were unknown
sources, and so was 'AWS' (seven sources) and the code `aws` itself.
"""

from __future__ import annotations

from collections import defaultdict

import pytest

from chipcost.core.errors import UsageError
from chipcost.core.names import PROVIDER_ALIASES
from chipcost.extract import registry
from chipcost.pipeline.collect import select_sources


def _providers() -> list[tuple[str, str, list[str]]]:
    """(provider, title, its sources' names in the registry's order) for every provider."""
    sources: dict[tuple[str, str], list[str]] = defaultdict(list)
    for name, source in registry().items():
        sources[source.provider, source.title].append(name)
    return [(provider, title, names) for (provider, title), names in sorted(sources.items())]


def _names(given: list[str]) -> list[str]:
    return [source.name for source in select_sources(given)]


@pytest.mark.parametrize(("provider", "title", "sources"), _providers())
def test_a_provider_named_any_way_runs_each_of_its_sources(provider, title, sources):
    spellings = [provider, title, title.upper(), f"  {title.lower().replace(' ', '  ')} "]
    spellings += [alias for alias, code in PROVIDER_ALIASES.items() if code == provider]
    for spelled in spellings:
        assert _names([spelled]) == sources, spelled


def test_the_titles_unlike_their_sources_names_are_taken():
    """The review's cases: one source under another name, and AWS's seven under one title."""
    assert _names(["Together AI"]) == ["together-clusters"]
    assert _names(["the ECB"]) == ["ecb-rates"]
    aws = _names(["AWS"])
    assert len(aws) == 7 and all(name.startswith("aws-") for name in aws)


def test_a_source_is_still_itself_and_each_is_run_once():
    assert _names(["aws-spot"]) == ["aws-spot"]  # a source's own name: that source alone
    assert _names(["aws-bulk", "Amazon", "aws"]) == _names(["aws"])  # each once, in order
    assert _names(["Together AI", "together-clusters"]) == ["together-clusters"]


def test_a_name_of_neither_is_still_refused():
    with pytest.raises(UsageError, match=r"unknown source Together A: choose from "):
        select_sources(["Together A"])


def test_moves_are_accepted_of_a_source_named_not_of_a_provider():
    """--accept-moves lifts the hold on a run whose prices moved as a unit or layout change
    would: 'aws' waived it for all seven AWS sources where one alert named aws-spot. A
    provider of one source is that source."""
    with pytest.raises(UsageError, match=r"^aws is a provider of 7 sources \(aws-bulk, "):
        select_sources(["aws"], providers=False)
    assert _names(["aws-spot"]) == ["aws-spot"]
    assert [s.name for s in select_sources(["Together AI"], providers=False)] == [
        "together-clusters"
    ]
