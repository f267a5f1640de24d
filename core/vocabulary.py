"""The price record's vocabulary, declared once: pricing models (label, order, colour, report
bucket), terms, payments and plans. The validator, the warehouse's ordering and buckets, the
reports, the charts, the explorer and the CLI's help all read it from here."""

from __future__ import annotations

import csv
import re
import sys
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass
from functools import cache


@dataclass(frozen=True)
class PricingModel:
    code: str  # the record's `pricing_model`
    label: str  # in sentences and offer labels: "savings plan"
    heading: str  # a column of its own in the report: "Capacity block"
    colour: str  # its line in charts, the same in the report and the explorer
    # A commitment is bucketed by its term in the report (1-yr, 3-yr, other terms); any
    # other model is a bucket of its own, so a new one never lands among the commitments.
    commits: bool
    # FOCUS's PricingCategory (Standard, Dynamic, Committed, Other) and, for a committed price,
    # its CommitmentDiscountCategory (Usage: an instance or term; Spend: dollars an hour).
    focus: str = "Other"
    focus_commitment: str | None = None
    # What it means, in a line, for legends (the explorer's).
    meaning: str = ""
    # What its price is when it has no term, said after its label ('reserved, no term, at
    # on-demand rate'); '' when a term is no part of it.
    no_term: str = ""


# In the order listings show them: list price first, commitments, then the rest.
# A list price is FOCUS's Standard, spot Dynamic (the provider changes it without notice), a
# price under a commitment Committed; a Capacity Block, a reservation bought for a fixed term
# at a price set ahead, Committed too (Google's calendar-mode reservations are recorded as one).
# Flex-start (Google's Dynamic Workload Scheduler "DWS Defined Duration" VMs) is a rental of up
# to seven days that starts when capacity frees up, at its own published price and with no
# commitment: neither a list price nor spot, so FOCUS's Other.
PRICING_MODEL_TABLE = (
    PricingModel("on_demand", "on demand", "On demand", "#2563eb", commits=False,
                 focus="Standard",
                 meaning="the list price, paid by the hour, no commitment"),
    PricingModel("reserved", "reserved", "Reserved", "#059669", commits=True,
                 focus="Committed", focus_commitment="Usage",
                 meaning="a 1- or 3-year reservation; upfront fees are spread over the term. "
                 "With no term, capacity held for you and charged at the on-demand rate "
                 "(Google's future reservations of shapes it does not rent on demand)",
                 no_term="no term, at on-demand rate"),
    PricingModel("savings_plan", "savings plan", "Savings plan", "#7c3aed", commits=True,
                 focus="Committed", focus_commitment="Spend",
                 meaning="a 1- or 3-year commitment to spend so much an hour (AWS)"),
    PricingModel("commitment", "commitment", "Commitment", "#0891b2", commits=True,
                 focus="Committed", focus_commitment="Usage",
                 meaning="a neocloud's or cloud's term contract (1 month to 3 years)"),
    PricingModel("capacity_block", "capacity block", "Capacity block", "#be185d",
                 commits=False, focus="Committed", focus_commitment="Usage",
                 meaning="a fixed block of days booked ahead at a price set when booked"),
    PricingModel("spot", "spot", "Spot", "#ea580c", commits=False, focus="Dynamic",
                 meaning="spare capacity the provider may take back at short notice; "
                 "its price moves"),
    PricingModel("flex_start", "flex-start", "Flex-start", "#ca8a04", commits=False,
                 meaning="Google's rental of up to 7 days that starts when capacity frees up"),
)  # fmt: skip
PRICING_MODELS = tuple(model.code for model in PRICING_MODEL_TABLE)
MODEL_LABELS = {model.code: model.label for model in PRICING_MODEL_TABLE}
MODEL_COLOURS = {model.code: model.colour for model in PRICING_MODEL_TABLE}
# A reservation with no term holds capacity at the on-demand rate: its label says so.
NO_TERM_WORDS = {model.code: model.no_term for model in PRICING_MODEL_TABLE if model.no_term}
OWN_BUCKET_MODELS = tuple(model.code for model in PRICING_MODEL_TABLE if not model.commits)
# The columns of `prices --by` and the pricing models of `index`: on demand, spot, and any
# commitment (reserved, savings plan, a neocloud's term) as one, named by the commitment
# model's code (the index takes its 1-year ones).
GLANCE_KINDS = ("on_demand", "spot", "commitment")

# Commitment terms the report gives a column of their own; other terms share one.
COMMITMENT_BUCKETS = {
    "commit_1yr": "1-yr commitment",
    "commit_3yr": "3-yr commitment",
    "commit_other": "Other terms",  # 1 week to 6 months, 2 years: neocloud commitments
}
# The columns of "Cheapest now", in reading order: list price, commitments, then the rest.
BUCKET_ORDER = (
    "on_demand",
    "commit_1yr",
    "commit_3yr",
    "commit_other",
    "spot",
    "flex_start",
    "capacity_block",
)
BUCKET_LABELS = {
    bucket: COMMITMENT_BUCKETS.get(bucket)
    or next(m.heading for m in PRICING_MODEL_TABLE if m.code == bucket)
    for bucket in BUCKET_ORDER
}

# Counts stored as DOUBLE because a slice of a GPU is a fraction of one (0.125 of an L4): a
# whole count is written as the integer it is (8, not 8.0) in csv, json and the explorer.
WHOLE_COUNTS = ("chip_count",)

PAYMENTS = ("none", "no_upfront", "partial_upfront", "all_upfront")
# Fixed terms; a capacity block's duration is written as e.g. "1d", "7d", "14d".
TERMS = ("none", "1w", "1mo", "3mo", "6mo", "1yr", "2yr", "3yr")
# Each term's length in hours, as the warehouse's TERM_HOURS sorts them.
_TERM_HOURS = dict(zip(TERMS, (0, 168, 730, 2190, 4380, 8760, 17520, 26280), strict=True))


def term_hours(term: str) -> int:
    """A term's length in hours, for ordering: '7d' 168, '1yr' 8,760 (a capacity block's
    days and hours, '14d', '12h', as well as the vocabulary's terms; 0 for none)."""
    if term[:-1].isdigit() and term[-1:] in ("d", "h"):
        return int(term[:-1]) * (24 if term.endswith("d") else 1)
    return _TERM_HOURS.get(term, 0)


TERM_PATTERN = rf"^({'|'.join(TERMS)}|\d+[hd])$"
# The variant inside a pricing model: RI class, savings plan type, marketplace tier, ...
PLANS = (
    "default",
    "standard",
    "convertible",
    "compute",
    "ec2_instance",
    "secure",
    "community",
    "interruptible",
    "low_priority",
    "dynamic",  # on demand at a daily demand-based price (Verda), instead of the fixed one
)
# The words an offer's payment and plan are said in (a code not listed is said as its code
# with spaces): the explorer's and the CLI's pricing labels (`pricing_words`).
PAYMENT_LABELS = {
    "none": "",
    "no_upfront": "no upfront",
    "partial_upfront": "partial upfront",
    "all_upfront": "all upfront",
}
PLAN_LABELS = {"default": "", "ec2_instance": "EC2 instance"}
# The sources whose price is the GPU's alone, its host's vCPUs, memory and disk billed beside
# it (docs/sources.md, "What the price covers"): a read that shows one says so (gpu_alone).
GPU_ALONE = ("cudo", "daytona", "modal", "tensordock")
# The sources that price some offers so, by instance type, and how the note names those: gcp's
# GPUs attached to an N1 VM, billed apart. They are the machine types its table gives `billing`
# gpu_only (core/data/gcp_machine_types.csv), which its parser prices as the GPUs alone: one
# declaration, so a type added there is marked too. Its A2, A3, G2 and A4 prices hold the VM.
GPU_ALONE_TYPES = {"gcp": ("N1 GPUs", "gcp_machine_types.csv", "billing", "gpu_only")}


@cache
def gpu_alone_types(source: str) -> dict[str, str]:
    """The instance types of `source` whose price is the GPU's alone, each with its chip, in
    its table's order: gcp's {'nvidia-tesla-t4': 'T4', ...}; {} for a source not in
    GPU_ALONE_TYPES."""
    if source not in GPU_ALONE_TYPES:
        return {}
    from importlib import resources

    _, name, column, value = GPU_ALONE_TYPES[source]
    text = resources.files("chipcost.core").joinpath("data", name).read_text(encoding="utf-8")
    rows = csv.DictReader(line for line in text.splitlines() if not line.startswith("#"))
    return {row["machine_type"]: row["chip"] for row in rows if row[column] == value}


def gpu_alone(source: object, instance_type: object) -> bool:
    """Whether the offer's price is the GPU's alone: every offer of a GPU_ALONE source, and
    the instance types gpu_alone_types names of the others (gcp's N1-attached GPUs)."""
    return str(source) in GPU_ALONE or str(instance_type) in gpu_alone_types(str(source))


def gpu_alone_note(offers: Iterable[tuple[object, object]]) -> str:
    """'cudo, daytona price the GPU alone: ...' for the offers among `offers` (source,
    instance type) whose price leaves the host out, by source ('' when none); a source that
    prices only some offers so is said with those: 'gcp's N1 GPUs (T4, V100, P100, P4) are
    priced alone: ...'."""
    marked = {str(s) for s, t in offers if gpu_alone(s, t)}
    if not marked:
        return ""
    whole, some = sorted(marked & set(GPU_ALONE)), sorted(marked - set(GPU_ALONE))
    said = [f"{', '.join(whole)} {'prices' if len(whole) == 1 else 'price'} the GPU alone"]
    said = said if whole else []
    said += [
        f"{source}'s {GPU_ALONE_TYPES[source][0]} "
        f"({', '.join(dict.fromkeys(gpu_alone_types(source).values()))}) are priced alone"
        for source in some
    ]
    beside = "apart" if some else "beside it"  # 'it' would be the GPU of 'prices the GPU'
    return (
        f"{'; '.join(said)}: the host's vCPUs, memory and disk are billed {beside}, so an "
        "instance costs more than shown (docs/sources.md)"
    )


# After a spot price (its pricing model in a table of prices): not below its offer's on-demand
# price (doubt_note). Every read that shows a spot price marks it so: prices, cost, compare and
# the report.
DOUBT_MARK = " (!)"
# Beside a price of the GPU alone (gpu_alone_note): the index's level that includes one, the
# price explorer's offer (reports/explorer_page.py hands it to its script).
ALONE_MARK = " (GPU alone)"
# What the mark says, in every read that notes it (doubt_note, the index's level).
DOUBT_WHY = (
    "a spot price not below its offer's on-demand price (no discount: stale or mislabelled at "
    "the source"
)
# Past this many offers the note names the first ones and counts the rest.
_DOUBTS_LISTED = 4


def doubt_note(rows: Sequence[Mapping[str, object]], *, table: bool = True) -> str:
    """What the spot prices marked doubtful among `rows` are ('' when none is): under a table
    after its mark's legend ('(!) = '); csv and json, whose rows say it in spot_doubt,
    without it. Each row names its provider, region and instance_type: the offer, counted
    and named once however many of its rows there are (history's days, a ranking's figures)."""
    from chipcost.core.counting import counted

    named = list(
        dict.fromkeys(
            f"{row['provider']} {row['region']} {row['instance_type']}"
            for row in rows
            if row.get("spot_doubt")
        )
    )
    if not named:
        return ""
    more = len(named) - _DOUBTS_LISTED
    return (
        (f"{DOUBT_MARK.strip()} = " if table else "")
        + f"{DOUBT_WHY}; {counted(len(named), 'offer')}): "
        + "; ".join(named[:_DOUBTS_LISTED])
        + (f"; and {more:,} more" if more > 0 else "")
    )


def _said(code: str | None, labels: dict[str, str]) -> str:
    return "" if code is None else labels.get(code, code.replace("_", " "))


def pricing_words(
    pricing_model: str | None,
    term: str | None,
    payment: str | None,
    plan: str | None,
    *,
    model_said: bool = True,
    short: bool = False,
) -> str:
    """'on demand', 'reserved 3yr, standard, all upfront', 'on demand, dynamic', 'reserved, no
    term, at on-demand rate': how an offer is paid, in one wording for every page and table
    that says it. `model_said` False leaves the model's label out (a header says it) and keeps
    what its term of none means; `short` says that as 'no term' (a table whose labels are
    kept whole on one line says the rest in a note, no_term_rest)."""
    label = model_said and pricing_model and MODEL_LABELS.get(pricing_model, pricing_model)
    head = " ".join(w for w in (label, term) if w and w != "none")
    bare = NO_TERM_WORDS.get(pricing_model or "", "") if term == "none" else ""
    bare = bare.split(", ")[0] if short else bare
    parts = (head, bare, _said(plan, PLAN_LABELS), _said(payment, PAYMENT_LABELS))
    return ", ".join(p for p in parts if p)


def no_term_rest(pricing_model: str) -> str:
    """'reserved, no term: at on-demand rate': what a short label leaves out (pricing_words)."""
    short = pricing_words(pricing_model, "none", None, None, short=True)
    return f"{short}: {NO_TERM_WORDS[pricing_model].split(', ', 1)[1]}"


def not_rentable(model: str, why: str) -> str:
    """The one rule for a price listed for a way the offer cannot be rented (a plan not
    deployable on demand, a shape Google rents only through reservations): it is not loaded,
    and the parse's notes count it under this reason, which names the pricing model and why."""
    return f"{MODEL_LABELS[model]} price not loaded: {why}"


def bucket_sql(model: str = "pricing_model", term: str = "term") -> str:
    """The report bucket of an offer as a SQL expression (warehouse/snapshot.py)."""
    own = ", ".join(f"'{code}'" for code in OWN_BUCKET_MODELS)
    return (
        f"CASE WHEN {model} IN ({own}) THEN {model} "
        f"WHEN {term} IN ('1yr', '3yr') THEN 'commit_' || {term} ELSE 'commit_other' END"
    )


def models_help() -> str:
    """'on_demand, reserved, ...': the pricing models as options list them."""
    return ", ".join(PRICING_MODELS)


def old_spelling(old: str, new: str) -> None:
    """The one note for an old spelling still taken for one release (an option or a value)."""
    sys.stderr.write(f"note: {old} is the old spelling of {new}, taken until the next release\n")


def model_code(value: str) -> str:
    """'on demand', 'On-Demand', 'capacity block' -> the record's code ('on_demand',
    'capacity_block'): any case, a space or a hyphen where the code has '_'. Every way chipcost
    prints a pricing model (the code in csv, json and SQL; the label in tables' headers, legends
    and sentences) is taken back as it is, without a note."""
    return value.strip().lower().replace("-", "_").replace(" ", "_")


# How narrow tables shorten a plan's words ('reserved 1yr, std, all upfront').
PLAN_SHORT = {"standard": "std", "convertible": "conv", "ec2_instance": "ec2"}
# The plan of the row `prices` adds for a region's cheapest spot zone ('spot, region
# cheapest'): the view's (warehouse/views/20_per_chip_prices.sql), never a record's.
REGION_ROW_PLAN = "region_cheapest"


def _pricing_words() -> dict[str, tuple[str, str]]:
    """Each word or two a pricing label says a payment or plan in -> (kind, code): the labels,
    the tables' short forms, the codes, and the codes with spaces."""
    words: dict[str, tuple[str, str]] = {}
    for kind, codes, labels in (
        ("payment", PAYMENTS, PAYMENT_LABELS),
        ("plan", (*PLANS, REGION_ROW_PLAN), PLAN_LABELS),
    ):
        for code in codes:
            if code in ("none", "default"):  # a label never says them
                continue
            for word in (code, code.replace("_", " "), labels.get(code), PLAN_SHORT.get(code)):
                if word:
                    words[word.lower()] = (kind, code)
    # 'no term, at on-demand rate' (NO_TERM_WORDS) and its parts say the term none
    for said in NO_TERM_WORDS.values():
        for part in (said, *said.split(", ")):
            words[part.replace(",", "")] = ("term", "none")
    return words


def pricing_code(value: str) -> str:
    """'Savings plan 1yr, all upfront' -> 'savings_plan 1yr all_upfront': a pricing label as
    every table prints it (pricing_words, short forms included) read back as codes, the model's
    first, then the term, payment and plan it names, in that order. A model alone ('On-Demand',
    'capacity block') is its code (model_code), and so is a value whose first words are no
    pricing model, for the caller's 'unknown' message. A word after a model that is no term,
    payment or plan, or a second term, is a ValueError saying so."""
    words = value.strip().lower().replace(",", " ").split()
    model, rest = _model_first(words)
    if model is None:
        if words and _no_model(value):
            raise ValueError(
                "it names no pricing model: a cell under a header that names one ('pricing "
                "model reserved') is that model's; give the model first, as in 'reserved 1yr, "
                "std, all upfront'"
            )
        return model_code(value)
    named: dict[str, str] = {}
    known = _pricing_words()
    longest = max(len(w.split()) for w in known)
    while rest:
        n = next((n for n in range(longest, 0, -1) if " ".join(rest[:n]) in known), 0)
        if n:
            (kind, code), rest = known[" ".join(rest[:n])], rest[n:]
        elif re.fullmatch(TERM_PATTERN, rest[0]) and rest[0] != "none":
            kind, code, rest = "term", rest[0], rest[1:]
        else:
            raise ValueError(f"{rest[0]!r} is no term, payment or plan of a pricing model")
        if named.setdefault(kind, code) != code:
            raise ValueError(f"it names two {kind}s, {named[kind]} and {code}")
    return " ".join([model, *(named[k] for k in ("term", "payment", "plan") if k in named)])


def _no_model(value: str) -> bool:
    """Whether `value` is a pricing label without its model ('1yr, std, all upfront', as
    `prices` prints a cell under a header that names the model): it reads as one after it,
    with a payment, a plan or no term (a term alone, '1yr', is the index's old spelling of a
    commitment's)."""
    try:
        parts = pricing_parts(pricing_code(f"reserved {value}"))
    except ValueError:
        return False
    return "payment" in parts or "plan" in parts or parts.get("term") == "none"


def code_words(code: str) -> str:
    """pricing_code's code in the words every table says it: 'savings_plan 3yr all_upfront'
    -> 'savings plan 3yr, all upfront'."""
    parts = pricing_parts(code)
    return pricing_words(parts["pricing_model"], parts.get("term"), parts.get("payment"),
                         parts.get("plan"))  # fmt: skip


def _model_first(words: list[str]) -> tuple[str | None, list[str]]:
    """The pricing model the first words name and the words after it; None if they name none."""
    for n in range(len(words), 0, -1):
        if (model := model_code(" ".join(words[:n]))) in PRICING_MODELS:
            return model, words[n:]
    return None, words


def pricing_labels(pieces: list[str]) -> list[str]:
    """A comma list of pricing models with each label's commas put back: ['savings plan 1yr',
    'all upfront', 'spot'] -> ['savings plan 1yr, all upfront', 'spot']. A piece that starts
    with no pricing model goes on the label before it (a list is split at every comma)."""
    labels: list[str] = []
    for piece in pieces:
        if labels and _model_first(piece.lower().split())[0] is None:
            labels[-1] += f", {piece}"
        else:
            labels.append(piece)
    return labels


def pricing_parts(code: str) -> dict[str, str]:
    """pricing_code's code -> the columns it names: {'pricing_model': 'savings_plan', 'term':
    '1yr', 'payment': 'all_upfront'} (a term is the vocabulary's or a capacity block's)."""
    model, *rest = code.split(" ")
    parts = {"pricing_model": model}
    for word in rest:
        term = re.fullmatch(TERM_PATTERN, word)
        parts["term" if term else "payment" if word in PAYMENTS else "plan"] = word
    return parts


# An offer: what a price is the price of, whichever source quotes it (the record's key,
# chipcost.core.record).
OFFER_KEY = (
    "provider",
    "region",
    "zone",
    "instance_type",
    "pricing_model",
    "term",
    "payment",
    "plan",
)
# An offer as the history keeps it: per source, so two sources pricing one offer stay apart.
HISTORY_KEY = ("source", *OFFER_KEY)


# Where `chipcost measure` reads the endpoint's API key unless --api-key names another
# variable: never from the command line, which every user of the machine can read (ps).
# OPENAI_API_KEY is not read unasked: a key for OpenAI's service is not sent to another server
# by default.
API_KEY_VARIABLE = "CHIPCOST_API_KEY"


# Regions most buyers cannot rent in: government clouds (Azure's usgov*/usdod*, AWS GovCloud
# us-gov-*, OCI's US and UK government regions), China's clouds run by local operators (AWS
# cn-*, Azure china*) and sovereign clouds (AWS European Sovereign Cloud eusc-*, OCI's EU
# Sovereign Cloud eu-frankfurt-2 and eu-madrid-2). Their prices load, marked, and stay out of
# the price index and the cheapest-offer answers unless --region names them (docs/sources.md).
RESTRICTED_REGIONS = (
    ("a US government", r"^(usgov|usdod|us-gov-|us-langley-1$|us-luke-1$)"),
    ("a UK government", r"^uk-gov-"),
    ("a China", r"^(cn-|china)"),
    ("an EU sovereign", r"^(eusc-|eu-frankfurt-2$|eu-madrid-2$)"),
)
# The same rule as one pattern, for the warehouse's reads (regexp_matches on region).
RESTRICTED_REGION_PATTERN = "|".join(f"({p})" for _, p in RESTRICTED_REGIONS)


# Asked once a region: a read asks it of every price it holds (73,012 current prices in 46
# regions at ten years of history, three times each in `prices` at a glance).
@cache
def restricted_region(region: str) -> str:
    """'a US government region' when most buyers cannot rent in `region`; '' otherwise."""
    import re

    for kind, pattern in RESTRICTED_REGIONS:
        if re.match(pattern, region.strip().lower()):
            return f"{kind} region"
    return ""
