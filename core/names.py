"""Names users type: chip families, comma lists, and close matches for anything unknown."""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from functools import cache

from chipcost.core.catalog import (
    UNKNOWN_CHIP,
    aws_families,
    aws_family,
    canonical_chip,
    canonical_chips,
    chip_memory_gb,
    chip_rows,
    normalise_spelling,
)
from chipcost.core.commands import UNKNOWN_OFFERS
from chipcost.core.errors import UsageError
from chipcost.core.sql_limits import check_read_time

# A product line is the canonical name before its variant: H100-SXM, H100-PCIe -> H100;
# A100-40GB -> A100; Trainium1..3 -> Trainium (a word of 3+ letters and a generation number).
_GENERATION = re.compile(r"([A-Za-z]{3,})\d+")


def split_values(values: str | Iterable[str] | None, what: str = "") -> list[str] | None:
    """'H100-SXM,H200' or ['H100-SXM', 'H200'] (or both) -> ['H100-SXM', 'H200']; None if none.

    With `what` (the filter's name, e.g. "region"), a value that is given but blank ("", " , ",
    an unset shell variable) is refused: it is not the same as no filter at all."""
    if values is None:
        return None
    if isinstance(values, str):
        items = [values]
    elif isinstance(values, Iterable) and not isinstance(values, bytes | dict):
        items = list(values)
    else:
        raise UsageError(
            f"{what or 'value'} {_shown(values)}: give a name or a list of names, e.g. "
            f"{EXAMPLES.get(what, 'H100-SXM')}"
        )
    if what:
        for item in items:
            if not isinstance(item, str | int | float) or isinstance(item, bool):
                kind = "a number" if what == "chip count" else "a name"
                raise UsageError(f"{what} {_shown(item)}: give {kind}, e.g. {EXAMPLES[what]}")
    parts = [p.strip() for item in items for p in str(item).split(",")]
    unique = list(dict.fromkeys(p for p in parts if p))
    if not unique and what and items:
        raise UsageError(f"the {what} is empty: give one, e.g. {EXAMPLES[what]}")
    return unique or None


# What each filter's message suggests.
EXAMPLES = {
    "chip name": "H100-SXM",
    "region": "us-east-1",
    "pricing model": "on_demand",
    "provider": "aws",
    "chip count": "8",
    "instance type": "p5.48xlarge",
    "baseline": "H100-SXM",
    "origin": "reference",
    "workload": "inference",
    "model": "llama-3-70b",
}


def _shown(value: object, limit: int = 60) -> str:
    """A value as a message quotes it: its repr, cut to `limit` characters."""
    text = repr(value)
    return text if len(text) <= limit else f"{text[: limit - 5]}...{text[-1]}"


# The API quotes a value as these messages do.
shown = _shown


def cut(text: str, limit: int = 60) -> str:
    """Text as a message shows it, cut to `limit` characters."""
    return text if len(text) <= limit else f"{text[: limit - 3]}..."


def _line(chip: str) -> str:
    base = chip.split("-", 1)[0]
    generation = _GENERATION.fullmatch(base)
    return generation.group(1) if generation else base


@cache
def chip_families() -> dict[str, tuple[str, ...]]:
    """Family name -> its chips: product lines (H100, A100, Trainium) and the architectures of
    chips.csv's `family` column (Hopper, Blackwell, CDNA3); only names that are not a chip."""
    families: dict[str, list[str]] = {}
    for row in chip_rows():
        chip = row["chip"]
        if chip == UNKNOWN_CHIP:
            continue
        for name in {_line(chip), row.get("family") or ""} - {"", chip}:
            families.setdefault(name, []).append(chip)
    chips = {c.lower() for c in canonical_chips()}
    return {k: tuple(v) for k, v in sorted(families.items()) if k.lower() not in chips}


def edit_distance(a: str, b: str, within: int | None = None) -> int:
    """Levenshtein distance, ignoring case; with `within`, any distance past it is
    `within + 1` (found without finishing: a name of another length or spelling stops early)."""
    a, b = a.lower(), b.lower()
    if within is not None and abs(len(a) - len(b)) > within:
        return within + 1
    previous = list(range(len(b) + 1))
    for i, ca in enumerate(a, start=1):
        current = [i]
        for j, cb in enumerate(b, start=1):
            current.append(min(previous[j] + 1, current[j - 1] + 1, previous[j - 1] + (ca != cb)))
        if within is not None and min(current) > within:
            return within + 1
        previous = current
    return previous[-1]


# A typed name this many characters longer than every known one is no typo of any: it is
# refused without a search (a 120,000-character --instance searched for 364 s).
LONGER_BY = 3


def close_matches(value: str, known: Iterable[str], n: int = 3) -> list[str]:
    """Up to n known names within a few edits of `value` (or starting with it), closest first.
    Runs within the read under way's time limit (CHIPCOST_SQL_TIMEOUT)."""
    names = list(dict.fromkeys(known))
    if too_long(value, names):
        return []
    limit = max(2, len(value) // 3)
    lowered = value.lower()
    scored = []
    for count, name in enumerate(names):
        if count % 64 == 0:
            check_read_time()
        if lowered and name.lower().startswith(lowered):
            scored.append((1 if name.lower() != lowered else 0, name))
            continue
        distance = edit_distance(value, name, within=limit)
        if distance <= limit:
            scored.append((distance, name))
    return [name for _, name in sorted(scored)[:n]]


def too_long(value: str, known: Sequence[str]) -> bool:
    """Whether `value` is longer than every known name by more than a typo's few characters."""
    return len(value) > max(map(len, known), default=0) + LONGER_BY


def _spellings(known: Iterable[str], aliases: Mapping[str, str] | None) -> dict[str, str]:
    """Each name searched for a typed one and the known name it stands for: the known names,
    then the aliases (a company's name for its cloud) of those among them."""
    names = {k: k for k in known}
    lowered = {k.lower(): k for k in names}
    stand_for = {a: lowered[c.lower()] for a, c in (aliases or {}).items() if c.lower() in lowered}
    return {**names, **{a: k for a, k in stand_for.items() if a not in names}}


def did_you_mean(value: str, known: Iterable[str], aliases: Mapping[str, str] | None = None) -> str:
    """' (did you mean X, Y?)' for the known names a few edits from `value`, or from it
    through one of their `aliases` (amazn: aws, for amazon)."""
    spellings = _spellings(known, aliases)
    names = list(spellings)
    if names and too_long(value, names):
        return f" ({len(value):,} characters, longer than any known name)"
    close = dict.fromkeys(spellings[c] for c in close_matches(value, names))
    return f" (did you mean {', '.join(close)}?)" if close else ""


def suggested(
    value: str, known: Sequence[str], n: int = 3, aliases: Mapping[str, str] | None = None
) -> str:
    """' (did you mean X, Y?)' for names a few edits away, else the `n` nearest of a long
    list (' (nearest: X, Y, Z)', by difflib's ratio): a suggestion even for a name far from
    any, where a list too long to print gives the reader nothing else to go on. A name's
    `aliases` are searched as it."""
    if close := did_you_mean(value, known, aliases):
        return close
    if len(known) <= LISTED:
        return ""
    import difflib

    by_lower = {k.lower(): name for k, name in _spellings(known, aliases).items()}
    check_read_time()
    near = difflib.get_close_matches(value.lower(), list(by_lower), n=len(by_lower), cutoff=0)
    nearest = list(dict.fromkeys(by_lower[k] for k in near))[:n]
    return f" (nearest: {', '.join(nearest)})" if nearest else ""


# The most names a message lists in full; past it, the first ones and where to see them all.
LISTED = 20


def listed(known: Sequence[str], lister: str) -> str:
    """Every name of `known` when there are few; else the first LISTED and '... N more;
    `LISTER` lists them' (a message stays a line, not a screenful of names)."""
    if len(known) <= LISTED:
        return ", ".join(known)
    return f"{', '.join(known[:LISTED])} ... {len(known) - LISTED} more; `{lister}` lists them"


# Commands that list what a message can only count.
CHIPS_LISTED = 'chipcost sql "SELECT chip, vendor, family FROM chips ORDER BY chip"'


def resolve_chip_name(name: str) -> list[str]:
    """The canonical chips a typed name means: a chip, a family's chips, or a provider spelling.

    An unknown name is a UsageError naming the closest chips and families.
    """
    if named := _by_name(normalise_spelling(name)):
        return named
    chip = canonical_chip(name)
    if chip != UNKNOWN_CHIP:
        return [chip]
    if sized := _with_memory(name):
        return [sized]
    if chip := aws_families().get(aws_family(name.strip().lower())):
        # An instance family or type names AWS's offers, not the chip: say which chip it has
        # rather than read it as every provider's offers of that chip.
        raise UsageError(
            f"{_shown(name)} is an AWS instance {'type' if '.' in name else 'family'}, not a chip: "
            f"its chip is {chip} (ask for {chip}, with provider aws for AWS's offers only)"
        )
    if name.strip().lower() == UNKNOWN_CHIP:  # what a table shows of a GPU it cannot name
        raise UsageError(
            f"{_shown(name)} is no chip: it marks offers whose GPU names no chip chipcost knows; "
            f"`{UNKNOWN_OFFERS}` lists them"
        )
    chips = sorted(canonical_chips() - {UNKNOWN_CHIP})
    close = _named_within(name, chips) or suggested(name, [*chips, *chip_families()])
    raise UsageError(
        f"unknown chip {_shown(name)}{close}; give one of "
        f"{len(chips)} chips or {len(chip_families())} families (a line such as H100 or "
        f"Trainium, an architecture such as Hopper): `{CHIPS_LISTED}` lists them"
    )


def _named_within(name: str, chips: Sequence[str]) -> str:
    """' (it names H100: H100-NVL, H100-PCIe, H100-SXM)' for a provider's longer name that
    holds a chip's or a family's name as a word ('NVIDIA H100 80GB HGX'), the longest such
    name first; '' when it holds none."""
    words = {normalise_spelling(w) for w in re.split(r"[\s_/,()]+", name) if w}
    found: dict[str, tuple[str, ...]] = {}
    for family, members in chip_families().items():
        if normalise_spelling(family) in words:
            found[family] = tuple(members)
    for chip in chips:
        if normalise_spelling(chip) in words:
            found[chip] = (chip,)
    if not found:
        return ""
    best = max(found, key=lambda k: len(normalise_spelling(k)))
    members = found[best]
    listed_ = f": {', '.join(sorted(members))}" if members != (best,) else ""
    return f" (it names {best}{listed_})"


# A memory size at the end of a marketplace's name: "MI300X 192GB", "H200 SXM 141 GB HBM3e".
_MEMORY = re.compile(r"^(?P<name>.*?)[\s_-]*(?P<gb>\d+(?:\.\d+)?)\s*gb(?:\s*hbm\w*)?\s*$", re.I)


def _by_name(wanted: str) -> list[str] | None:
    """The chip, or the family's chips, whose normalised name is `wanted`."""
    for chip in sorted(canonical_chips() - {UNKNOWN_CHIP}):
        if normalise_spelling(chip) == wanted:
            return [chip]
    for family, members in chip_families().items():
        if normalise_spelling(family) == wanted:
            return list(members)
    return None


def _with_memory(name: str) -> str | None:
    """The chip a name ending in a memory size means, when the name without it is a chip (or
    a spelling) whose memory (chips.csv) the size matches within 10%, or a family with one
    member of that size ("H100 94GB"); None otherwise."""
    match = _MEMORY.match(name.strip())
    if not match or not match["name"].strip():
        return None
    gb, rest = float(match["gb"]), match["name"]
    named = _by_name(normalise_spelling(rest)) or []
    candidates = named
    if len(named) != 1:  # not a chip: a spelling first, else the family's members
        spelled = canonical_chip(rest, gb)
        candidates = [spelled] if spelled != UNKNOWN_CHIP else named
    sized = [c for c in candidates if _holds(c, gb)]
    return sized[0] if len(sized) == 1 else None


def _holds(chip: str, gb: float) -> bool:
    memory = chip_memory_gb().get(chip)
    return memory is not None and abs(memory - gb) <= 0.1 * memory


def resolve_chip_names(names: str | Sequence[str] | None) -> list[str] | None:
    """Every chip the names (comma lists allowed) stand for, in order, without repeats."""
    values = split_values(names, "chip name")
    if values is None:
        return None
    return list(dict.fromkeys(chip for name in values for chip in resolve_chip_name(name)))


# Company names people type for the providers chipcost names by their cloud, where no source's
# title gives them: a provider's title (Source.title, as the README writes it: 'Vast.ai', 'IBM
# Cloud') is read from the registry by whoever asks (name_among's `titles`).
PROVIDER_ALIASES = {
    "amazon": "aws", "amazon web services": "aws", "google": "gcp", "microsoft": "azure",
    "microsoft azure": "azure", "oracle": "oci", "oracle cloud": "oci",
    # the names the providers' own pages give, where they are not the title
    "lambda labs": "lambda", "datacrunch": "verda",
}  # fmt: skip


def _squeezed(name: str) -> str:
    """A name as provider names are matched: any case, without its spaces ('Hot  Aisle' ->
    'hotaisle')."""
    return "".join(name.split()).lower()


def name_among(
    name: str, known: Iterable[str], titles: Mapping[str, str] | None = None
) -> str | None:
    """The one of `known` (lower-case codes: providers, sources) a name stands for as people
    write it: any case, spaces around or between its words, a provider's title as its source
    declares it (`titles`: title -> provider, 'IBM Cloud' -> 'ibm'), a company's name for its
    cloud ('Amazon', PROVIDER_ALIASES), a code in words ('Massed Compute', 'together
    clusters'); None for none. Titles and aliases are matched without their spaces."""
    names = set(known)
    key = " ".join(name.split()).lower()
    spelled = {_squeezed(k): code for k, code in {**PROVIDER_ALIASES, **(titles or {})}.items()}
    key = spelled.get(key.replace(" ", ""), key)
    for spelling in (key, key.replace(" ", "-"), key.replace(" ", "")):
        if spelling in names:
            return spelling
    return None


def check_known(
    kind: str,
    values: Sequence[str] | None,
    known: Sequence[str],
    *,
    held: tuple[str, str] | None = None,
    option: str | None = None,
    aliases: Mapping[str, str] | None = None,
) -> None:
    """Refuse a filter value that matches nothing known, with the closest known values, found
    through the kind's ALIASES and `aliases` too (a provider's title: 'IBM Clod', ibm)
    (`option`, as the asker spells it, leads the message when given).

    `held` says what the known values are the values of, for a value that may be real but
    has none ("no current price is in region 'eu-west-3'; current prices are in 42
    regions"): (the words before the kind, the words before where they are)."""
    lowered = {k.lower() for k in known}
    for value in values or []:
        if value.lower() in lowered:
            continue
        close = suggested(value, known, aliases={**ALIASES.get(kind, {}), **(aliases or {})})
        said = f"{option}: " if option else ""
        if held and known:  # a value that may be real, with nothing under it
            where = ", ".join(known) if len(known) <= LISTED else f"{len(known)} {kind}s"
            none_in, are_in = held
            raise UsageError(f"{said}{none_in} {kind} {_shown(value)}{close}; {are_in} {where}")
        if not known:
            listing = "; none known yet: run `chipcost collect`"
        elif len(known) <= LISTED:
            listing = f"; known: {', '.join(known)}"
        else:
            lister = LISTERS.get(kind, "")
            listing = f"; {len(known)} known" + (f": `{lister}` lists them" if lister else "")
        raise UsageError(f"{said}unknown {kind} {_shown(value)}{close}{listing}")


# The names people type for the known values of a kind, searched for the nearest too.
ALIASES = {"provider": PROVIDER_ALIASES}
# Commands that list the values of a filter too long for a message.
LISTERS = {
    "instance type": 'chipcost sql "SELECT DISTINCT provider, instance_type FROM current_prices '
    'ORDER BY ALL"',
    "region": 'chipcost sql "SELECT DISTINCT provider, region FROM current_prices ORDER BY ALL"',
    "provider": 'chipcost sql "SELECT DISTINCT provider FROM current_prices ORDER BY ALL"',
}
