"""The accelerator catalog: every AWS accelerator family the issue names, fractional GPUs."""

from __future__ import annotations

import math
import re

import pytest

from chipcost.core.catalog import (
    aws_chip_for,
    aws_families,
    aws_family,
    aws_instance_chip_counts,
    canonical_chips,
    chip_rows,
)


@pytest.mark.parametrize(
    ("instance_type", "chip", "count"),
    [
        ("g4dn.xlarge", "T4", 1.0),
        ("g4dn.metal", "T4", 8.0),
        ("g5g.16xlarge", "T4", 2.0),  # NVIDIA T4G, the T4 on an Arm host
        ("p3.16xlarge", "V100", 8.0),
        ("p3dn.24xlarge", "V100-32GB", 8.0),
        ("dl1.24xlarge", "Gaudi1", 8.0),
        ("dl2q.24xlarge", "Cloud-AI-100", 8.0),
        ("g7.48xlarge", "RTX-PRO-4500", 8.0),
        ("g4ad.16xlarge", "Radeon-Pro-V520", 4.0),
        ("g6f.large", "L4", 0.125),
        ("g6f.2xlarge", "L4", 0.25),
        ("gr6f.4xlarge", "L4", 0.5),
    ],
)
def test_every_aws_accelerator_family_of_the_issue_is_in_the_catalog(instance_type, chip, count):
    match = aws_chip_for(instance_type)
    assert (match.chip, match.chip_count, match.known_type) == (chip, count, True)


def test_a_fractional_gpu_is_a_labelled_share_of_one_chip():
    share = aws_chip_for("g6f.xlarge")
    assert share.share == "1/8" and share.share_label() == {"share": "1/8 of one L4"}
    assert aws_chip_for("g6.xlarge").share_label() == {}


def test_an_unknown_family_stays_unknown_with_the_price_lists_count():
    match = aws_chip_for("g9x.48xlarge", 8)
    assert (match.chip, match.chip_count, match.known_type) == ("unknown", 8.0, False)


def test_the_family_and_type_tables_agree_with_the_chip_table():
    chips = canonical_chips()
    assert set(aws_families().values()) <= chips
    assert {aws_family(t) for t in aws_instance_chip_counts()} == set(aws_families())
    assert all(count > 0 for count in aws_instance_chip_counts().values())
    assert all(row["spec_source"] for row in chip_rows())


@pytest.mark.parametrize(
    ("spelling", "memory", "chip"),
    [
        ("Quadro RTX 6000", None, "Quadro-RTX-6000"),
        ("Q RTX 6000", 24, "Quadro-RTX-6000"),
        ("RTX 6000", 24, "Quadro-RTX-6000"),
        ("RTX 6000", 48, "unknown"),  # the Ada card is spelled with its generation
        ("GTX 1080 Ti", 11, "GTX-1080-Ti"),
        ("GTX 1070", 8, "GTX-1070"),
        ("RTX 2070S", 8, "RTX-2070-SUPER"),
        ("RTX 2080", 8, "RTX-2080"),
        ("RTX 3060 Ti", 8, "RTX-3060-Ti"),
        ("Titan V", 12, "Titan-V"),
        ("NVIDIA TITAN RTX", 24, "Titan-RTX"),
    ],
)
def test_older_gpus_a_marketplace_lists_have_a_chip(spelling, memory, chip):
    """On 368c4bd these loaded as `unknown` (Lambda's and Vast's spellings)."""
    from chipcost.core.catalog import canonical_chip

    assert canonical_chip(spelling, memory) == chip


def test_every_added_chip_row_says_where_its_specs_come_from():
    added = {
        "Quadro-RTX-6000", "GTX-1070", "GTX-1070-Ti", "GTX-1080", "GTX-1080-Ti", "RTX-2060",
        "RTX-2060-SUPER", "RTX-2070", "RTX-2070-SUPER", "RTX-2080", "RTX-2080-SUPER",
        "RTX-3060-Ti", "RTX-3070-Ti", "Titan-V", "Titan-RTX", "Radeon-Instinct-MI25",
        "Radeon-Pro-V620", "TPU-v3",
    }  # fmt: skip
    rows = {row["chip"]: row for row in chip_rows() if row["chip"] in added}
    assert set(rows) == added
    for row in rows.values():
        assert float(row["memory_gb"]) > 0 and row["spec_date"]
        assert "'" in row["spec_source"]  # the document's own words, quoted


def test_a_spelling_written_two_ways_is_listed_once():
    from chipcost.core.catalog import listed_spelling

    assert listed_spelling("RTX-PRO6000") == listed_spelling("RTX PRO 6000") == "RTX PRO 6000"
    assert listed_spelling("Some New Card") == "Some New Card"


@pytest.mark.parametrize(
    ("spelling", "chip"),
    [
        ("MI350X", "MI350X"),  # CloudRift's brand_short
        ("AMD Instinct MI350X", "MI350X"),
        ("NVIDIA GB300", "GB300"),
        ("Tenstorrent n150", "Tenstorrent-n150"),  # Seeweb's 'Tenstorrent <card>' labels
        ("Tenstorrent n300s", "Tenstorrent-n300"),
        ("Tenstorrent p150a", "Tenstorrent-p150"),
        ("Tenstorrent p300", "Tenstorrent-p300"),
        ("NVIDIA A16", "A16"),
        ("RTX 5880 Ada Generation", "RTX-5880-Ada"),
        ("AMD Radeon PRO V710", "Radeon-Pro-V710"),
        ("AMD Instinct MI300A", "MI300A"),
        ("MI250", "MI250"),
        ("MI210", "MI210"),
    ],
)
def test_chips_that_arrived_as_unknown_have_a_row(spelling, chip):
    """Issue 40: these loaded as `unknown` (CloudRift, Seeweb) or were not in the catalog."""
    from chipcost.core.catalog import canonical_chip

    assert canonical_chip(spelling) == chip
    assert chip in canonical_chips()


def _spec(chip: str) -> dict[str, str]:
    return next(row for row in chip_rows() if row["chip"] == chip)


@pytest.mark.parametrize(
    ("chip", "column", "value"),
    [
        ("MI350X", "memory_gb", "288"),
        ("MI350X", "tdp_w", "1000"),
        ("GB300", "memory_bandwidth_tbps", "8"),
        ("Tenstorrent-n150", "memory_gb", "12"),
        ("Tenstorrent-n300", "memory_bandwidth_tbps", "0.576"),
        # Corrections: B300 is 288 GB at 8 TB/s, B200 8 TB/s (HGX B200: 64 TB/s for 8 GPUs).
        ("B300", "memory_gb", "288"),
        ("B300", "memory_bandwidth_tbps", "8"),
        ("B200", "memory_bandwidth_tbps", "8"),
        # The FP4 dense peak the parts are sold on.
        ("B200", "dense_fp4_tflops", "9000"),
        # NVIDIA's HGX B300: 105 PF dense FP4 over 8 GPUs (14,000 before: the GB300 figure)
        ("B300", "dense_fp4_tflops", "13125"),
        # The A100 80GB PCIe card (on c4783d0 its offers took the SXM row's 2.039 TB/s, 400 W)
        ("A100-80GB-PCIe", "memory_bandwidth_tbps", "1.935"),
        ("A100-80GB-PCIe", "tdp_w", "300"),
        ("GB300", "dense_fp4_tflops", "15000"),
        ("MI355X", "dense_fp4_tflops", "10000"),
        ("MI350X", "dense_fp4_tflops", "9250"),
        ("Trainium3", "dense_fp4_tflops", "2517"),
        ("H100-SXM", "dense_fp4_tflops", ""),  # Hopper has no FP4 path
        # NVIDIA's Server Edition page: 2 / 1 / 4 PFLOPS FP8 / BF16 / FP4, taken as sparse
        ("RTX-PRO-6000", "dense_fp8_tflops", "1000"),
        ("RTX-PRO-6000", "dense_bf16_tflops", "500"),
        ("RTX-PRO-6000", "dense_fp4_tflops", "2000"),
    ],
)
def test_new_and_corrected_specs(chip, column, value):
    assert _spec(chip)[column] == value


def test_every_new_chip_says_where_its_figures_come_from_or_that_none_were_found():
    for chip in ("MI350X", "GB300", "Tenstorrent-p300", "RTX-5880-Ada", "MI210"):
        row = _spec(chip)
        has_figure = any(row[c] for c in ("memory_gb", "memory_bandwidth_tbps", "tdp_w"))
        assert row["spec_source"]
        assert has_figure == ("no specification found" not in row["spec_source"])


FIGURES = ("memory_gb", "memory_bandwidth_tbps", "dense_fp8_tflops", "dense_bf16_tflops",
           "dense_fp4_tflops", "tdp_w")  # fmt: skip
# "1,440" is a thousand separator, "5,3" (a Russian page's 5.3) a decimal comma.
NUMBER = re.compile(r"\d+(?:,\d{3})+(?:\.\d+)?(?!\d)|\d+,\d{1,2}(?!\d)|\d+(?:\.\d+)?")
# A count the text divides by: "over 8 GPUs", "for 72 GPUs", "divided by 8", "2 GPUs".
COUNT = re.compile(r"(?:divided by|over|for) (\d+)|(\d+) (?:GPUs|Blackwell GPUs)")


def _numbers(text: str) -> list[float]:
    found = []
    for token in NUMBER.findall(text):
        thousands = re.fullmatch(r"\d+(?:,\d{3})+(?:\.\d+)?", token)
        found.append(float(token.replace(",", "") if thousands else token.replace(",", ".")))
    return found


def _written(value: float, text: str) -> bool:
    """The figure, in its unit or the text's (GB/s for TB/s, PFLOPS for TFLOPS), or a number
    of the text divided by a count the text names."""
    counts = [1] + [int(a or b) for a, b in COUNT.findall(text)]
    return any(
        math.isclose(value * count, number * scale, rel_tol=5e-4)
        for number in _numbers(text)
        for scale in (1, 1000, 0.001)
        for count in counts
    )


def test_each_figure_of_a_row_that_quotes_its_source_is_written_there():
    """Issue 47: a row that quotes its document's words (B300's dense FP4 was 14,000 where
    NVIDIA's HGX B300 gives 105 PF over 8 GPUs) holds no figure its source line does not
    state: in the quoted words, derived from them by a count the line names, or said to be
    another document's, named there."""
    quoting = [row for row in chip_rows() if "'" in row["spec_source"]]
    assert len(quoting) >= 37
    unwritten = [
        (row["chip"], column, row[column])
        for row in quoting
        for column in FIGURES
        if row[column] and not _written(float(row[column]), row["spec_source"])
    ]
    assert unwritten == []


def test_b300_dense_fp4_is_nvidias_hgx_figure_over_its_eight_gpus():
    b300 = _spec("B300")
    assert b300["dense_fp4_tflops"] == "13125"
    assert "105 PFLOPS" in b300["spec_source"] and "13,125" in b300["spec_source"]


GIB_IN_GB = 1.073741824
# "32 GiB x 1.073741824 = 34.36 GB": the conversion a row writes out after its vendor's words
CONVERSION = re.compile(r"(\d+(?:\.\d+)?) GiB x 1\.073741824 = (\d+(?:\.\d+)?) GB")
# a capacity stated in GiB ("32 GiB", "32GiB", "(GiB) | 192"), not a bandwidth ("GiB/sec", "GiBps")
GIB = re.compile(r"GiB(?!/|ps)")


def _memory_unit_problem(row: dict[str, str]) -> str | None:
    """Why the row's memory is not held in GB beside its source's GiB, or None."""
    text = row["spec_source"]
    if not GIB.search(text):
        return None
    conversions = CONVERSION.findall(text)
    if not conversions:
        return None if "kept in GB as" in text else "GiB stated, neither converted nor kept"
    gib, gb = (float(n) for n in conversions[-1])
    if round(gib * GIB_IN_GB, 2) != gb or float(row["memory_gb"]) != gb:
        return f"{gib} GiB is {round(gib * GIB_IN_GB, 2)} GB; written {gb}, held {row['memory_gb']}"
    return None


def test_no_row_holds_memory_in_gib():
    """Memory is stored in GB (10^9 bytes). A row whose document states GiB (AWS's Neuron pages,
    Google's TPU pages, AWS's and Microsoft's instance pages) holds the GiB figure times
    1.073741824 and writes the sum out, or says why the GB figure of the chip's vendor is kept."""
    problems = {row["chip"]: _memory_unit_problem(row) for row in chip_rows()}
    assert {chip: why for chip, why in problems.items() if why} == {}


@pytest.mark.parametrize(
    ("memory_gb", "source", "problem"),
    [
        ("32", "'32 GiB of device memory'", "GiB stated, neither converted nor kept"),
        ("32", "'32 GiB of device memory': 32 GiB x 1.073741824 = 34.36 GB", "held 32"),
        ("34.36", "'32GiB': 32 GiB x 1.073741824 = 34.4 GB", "is 34.36 GB; written 34.4"),
        ("34.36", "'32 GiB of device memory': 32 GiB x 1.073741824 = 34.36 GB", None),
        ("0.82", "'820 GiB/sec of bandwidth'", None),  # a bandwidth, not a capacity
    ],
)
def test_a_gib_figure_left_unconverted_is_found(memory_gb, source, problem):
    found = _memory_unit_problem({"chip": "X", "memory_gb": memory_gb, "spec_source": source})
    assert found == problem if problem is None else problem in (found or "")


def test_aws_and_google_rows_quote_the_unit_of_their_memory():
    """AWS and Google state device memory in GiB on some pages and GB on others (Google's v5p
    page says '95GB', its TPU7x page '(GiB) | 95'): their rows quote the words they read."""
    rows = [row for row in chip_rows() if row["vendor"] in ("aws", "google")]
    assert len(rows) >= 11
    assert [row["chip"] for row in rows if "'" not in row["spec_source"]] == []


def test_a_spelling_longer_than_any_chips_is_unknown_unread(monkeypatch):
    """A provider's 60 MB "GPU name" (runpod's id, an AWS GPU name read without the kit's
    refusal) is answered unknown without being normalised and matched against every alias,
    nor kept in the cache of spellings."""
    from chipcost.core import catalog

    def unread(spelling: str) -> str:
        raise AssertionError("normalised a spelling no chip's could be")

    monkeypatch.setattr(catalog, "normalise_spelling", unread)
    assert catalog.canonical_chip("H100 " * 1_000) == catalog.UNKNOWN_CHIP
