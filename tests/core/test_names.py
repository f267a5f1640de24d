"""Names users type: families, lists, close matches."""

from __future__ import annotations

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.names import (
    check_known,
    chip_families,
    close_matches,
    edit_distance,
    resolve_chip_names,
    split_values,
)


@pytest.mark.parametrize(
    ("names", "chips"),
    [
        ("H100", ["H100-SXM", "H100-PCIe", "H100-NVL"]),
        ("a100", ["A100-40GB", "A100-80GB", "A100-80GB-PCIe"]),  # the PCIe card a row of its own
        ("Trainium", ["Trainium1", "Trainium2", "Trainium3"]),
        ("MI300X", ["MI300X"]),
        ("mi300x", ["MI300X"]),
        (
            "Hopper",
            ["H100-SXM", "H100-PCIe", "H100-NVL", "H200", "H200-NVL", "GH200", "H20"],
        ),  # family
        ("H100 SXM5", ["H100-SXM"]),  # a provider's spelling
        ("H100-SXM,H200", ["H100-SXM", "H200"]),
        (["H200", "H100-SXM, H200"], ["H200", "H100-SXM"]),
        (None, None),
    ],
)
def test_resolve_chip_names(names, chips):
    assert resolve_chip_names(names) == chips


@pytest.mark.parametrize(
    ("name", "chip"),
    [
        # Marketplace names that end in the memory size: the rest names the chip, and chips.csv
        # gives it that much memory (within 10%).
        ("MI300X 192GB", "MI300X"),
        ("H200 SXM 141GB", "H200"),
        ("H200 141GB HBM3e", "H200"),
        ("L40S 48GB", "L40S"),
        ("RTX 4090 24GB", "RTX-4090"),
        ("H100 PCIe 80GB", "H100-PCIe"),
        ("H100-80GB", "H100-SXM"),  # as chip_aliases.csv reads a bare H100 with 80 GB
        ("H100 94GB", "H100-NVL"),  # the one H100 with 94 GB
    ],
)
def test_a_memory_size_after_a_chip_is_read(name, chip):
    assert resolve_chip_names(name) == [chip]


@pytest.mark.parametrize("name", ["MI300X 80GB", "H100 40GB", "80GB", "A100 60GB"])
def test_a_memory_size_the_chip_does_not_have_is_refused(name):
    with pytest.raises(ChipcostError, match=f"unknown chip {name!r}"):
        resolve_chip_names(name)


def test_a_family_is_never_also_a_chip():
    chips = {"H100-SXM", "MI300X", "L4", "Gaudi2"}
    assert not chips & set(chip_families())


@pytest.mark.parametrize(
    ("name", "suggested"),
    [("H10", "H100"), ("H100-SMX", "H100-SXM"), ("Traniumm", "Trainium"), ("B20", "B200")],
)
def test_unknown_chips_name_the_closest(name, suggested):
    with pytest.raises(ChipcostError, match=f"unknown chip '{name}'") as raised:
        resolve_chip_names(name)
    hint = str(raised.value).split("(did you mean ", 1)[1].split("?)", 1)[0]
    assert suggested in hint.split(", ")


def test_close_matches_by_edit_distance():
    assert edit_distance("us-east-9", "us-east-1") == 1
    assert close_matches("us-east-9", ["eu-west-1", "us-east-2", "us-east-1"]) == [
        "us-east-1",
        "us-east-2",
    ]
    assert close_matches("ondemand", ["spot", "on_demand", "reserved"]) == ["on_demand"]
    assert close_matches("zzz", ["spot", "on_demand"]) == []


def test_check_known_and_split_values():
    check_known("region", ["US-EAST-1"], ["us-east-1"])
    with pytest.raises(ChipcostError, match="unknown region 'mars-1'; known: us-east-1"):
        check_known("region", ["mars-1"], ["us-east-1"])
    # What the known values are of: a real region may just have no prices.
    held = ("no current price is in", "current prices are in")
    with pytest.raises(ChipcostError) as refused:
        check_known("region", ["eu-west-3"], ["eu-west-1", "us-east-1"], held=held)
    assert str(refused.value) == (
        "no current price is in region 'eu-west-3' (did you mean eu-west-1?); current prices "
        "are in eu-west-1, us-east-1"
    )
    assert split_values(" a, b ,,a ") == ["a", "b"]
    assert split_values([",", ""]) is None


def test_a_company_name_is_read_as_its_cloud():
    from chipcost.reads.price_ask import provider_codes

    assert provider_codes(["Amazon", "google", "MICROSOFT", "oracle", "runpod"]) == [
        "aws", "gcp", "azure", "oci", "runpod",
    ]  # fmt: skip
    assert provider_codes(None) is None
    # the names the README and the providers give (on 0cae6cf: unknown provider)
    assert provider_codes(["Google Cloud", "Together AI", "Lambda Labs", "DataCrunch"]) == [
        "gcp", "together", "lambda", "verda",
    ]  # fmt: skip


def test_a_provider_named_in_words_is_its_code():
    """'Massed Compute' is massedcompute (no code has a space); a name in words that is no
    provider's stays as typed, so the message quotes what was typed."""
    from chipcost.reads.price_ask import named_filters

    named = named_filters(None, None, ["Massed Compute", "hot aisle", "Nowhere Cloud", "aws"])
    assert named["providers"] == ["massedcompute", "hotaisle", "Nowhere Cloud", "aws"]


def _titles() -> list[tuple[str, str]]:
    from chipcost.extract import registry

    return sorted({(s.title, s.provider) for s in registry().values()})


@pytest.mark.parametrize(("title", "provider"), _titles())
def test_every_title_the_registry_declares_is_its_provider(title, provider):
    """The README's provider list is written from Source.title ('IBM Cloud', 'Samsung Cloud
    Platform', 'Vast.ai'), those registered only to say why they are not collected too: each
    is its provider's code, in any case and spacing, wherever a provider is named (on
    2dbe3361 'IBM Cloud' was an unknown provider; a new provider's title was never taken)."""
    from chipcost.pipeline.collect import select_sources
    from chipcost.reads.price_ask import named_filters

    assert title, f"provider {provider} declares no title (the README lists it by one)"
    spellings = [title, title.upper(), title.lower(), f" {title.replace(' ', '  ')} "]
    spellings.append(title.replace(" ", "").lower())
    for spelled in spellings:
        assert named_filters(None, None, [spelled])["providers"] == [provider], spelled
    sources = {s.name for s in select_sources(None) if s.provider == provider}
    if provider in sources:  # --source takes a provider's title as --provider does
        assert [s.name for s in select_sources([title])] == [provider]


def test_a_provider_is_named_by_its_title_not_a_hand_list():
    """The hand list holds only what no title gives: a title is never also an alias."""
    from chipcost.core.names import PROVIDER_ALIASES

    titles = {"".join(title.split()).lower() for title, _ in _titles()}
    assert not titles & {"".join(alias.split()) for alias in PROVIDER_ALIASES}


@pytest.mark.parametrize("blank", ["", " , ", [""], ["", " "]])
def test_a_blank_chip_name_is_refused_not_read_as_no_filter(blank):
    with pytest.raises(ChipcostError, match="the chip name is empty"):
        resolve_chip_names(blank)
    assert resolve_chip_names(None) is None and resolve_chip_names([]) is None


@pytest.mark.parametrize("what", ["region", "pricing model", "provider"])
def test_a_blank_filter_is_refused_where_a_name_is_expected(what):
    """An unset shell variable (--region "$REGION") must not widen the query to everything."""
    from chipcost.core.names import split_values

    with pytest.raises(ChipcostError, match=f"the {what} is empty"):
        split_values(["", ","], what)
    assert split_values(["us-east-1,", ""], what) == ["us-east-1"]  # a stray comma is fine
    assert split_values(None, what) is None and split_values([], what) is None


@pytest.mark.parametrize(
    ("typed", "what", "chip"),
    [
        ("trn2", "family", "Trainium2"),
        ("P5e", "family", "H200"),
        ("p5.48xlarge", "type", "H100-SXM"),
        ("inf2.xlarge", "type", "Inferentia2"),
    ],
)
def test_an_aws_instance_family_or_type_is_refused_naming_its_chip(typed, what, chip):
    # Read as the chip it would mean every provider's offers of it, not AWS's instances.
    with pytest.raises(ChipcostError) as refused:
        resolve_chip_names(typed)
    assert str(refused.value) == (
        f"{typed!r} is an AWS instance {what}, not a chip: its chip is {chip} "
        f"(ask for {chip}, with provider aws for AWS's offers only)"
    )
