"""Reading a price cell of a page: the amount, the provider's "no price" words, and what the
cell says it prices (one GPU or the whole instance, or a lowest price) against what its parser
reads it as."""

from __future__ import annotations

import re

# Cells that say "no price here" on purpose: a reject with a reason, never a parse error.
NOT_A_PRICE = frozenset(
    {
        "",
        "-",
        "--",
        "—",
        "–",
        "n/a",
        "na",
        "tbd",
        "tba",
        "contact sales",
        "contact us",
        "coming soon",
        "sold out",
        "unavailable",
        "not available",
        "on request",
    }
)
# A cell of dashes alone ("—", "––") is a "no price" marker however many the page prints.
DASHES = frozenset("-–—")
_NUMBER = re.compile(r"\d[\d.,]*")
# One amount, strictly: its whole part plain ("1234") or grouped in threes by one separator
# ("1,234", "1.234.567"), then at most one decimal mark, the other one ("1,234.50",
# "1.234,50", "2,49"). "2..49", "2.4.9", "2,49,99" are no amount: refused, never read as 249.
# ASCII digits: \d takes every script's ("\u0662.49"), which float() would read.
_AMOUNT = re.compile(
    r"(?P<whole>[1-9][0-9]{0,2}(?P<sep>[.,])[0-9]{3}(?:(?P=sep)[0-9]{3})*|[0-9]+)"
    r"(?:(?P<mark>[.,])(?P<fraction>[0-9]+))?"
)
# A minus before the amount, wherever it stands among the currency marks: "-1.50", "USD -2.49",
# "$-3.90/GPU-hr", "- US$ 2". A hyphen after it ("$2-3", "GPU-hr") is no sign.
_NEGATIVE = re.compile(r"(?i)[-−]\s*(?:us\$|\$|usd)?\s*$")
# A minus right after the amount and nothing after it: a debit as accounts write it ("2.49-").
_TRAILING_MINUS = re.compile(r"\s*[-−]\s*$")
# Currency marks, separators and the hour around a price: "$2.49/hr", "US$ 2.49 per hour",
# "2,49 USD". Nothing that says what the price is for: those words are read, not thrown away.
_DECORATION = re.compile(r"(?i)(us\$|\$|usd|/|per|hour|hr|h\b|at|-|\s)+")
# What a parser states its price cells price (parse_price's `per`): one GPU, or the whole
# instance (a node, a VM of N GPUs). A cell saying the other is refused, not read as it.
PER_GPU, PER_INSTANCE = "GPU", "instance"
# A cell's own word of what it prices: "/GPU", "per GPU-hour", "GPU/hr"; "/node", "per instance".
_SAYS_PER = {
    PER_GPU: re.compile(r"(?i)gpus?"),
    PER_INSTANCE: re.compile(r"(?i)\b(?:instance|node|server|machine|vm)s?\b"),
}
# Digits raised after a whole amount, as the element tree shows a <sup> there ("$10³²" of
# "$10<sup>32</sup>", extract/_html_tree.py): its cents or a footnote mark, and the page does
# not say which. Refused: read as 10 it would be wrong by the cents, as 10.32 by a footnote.
_RAISED = re.compile(
    r"(?<![0-9.,])(?P<whole>[0-9]{1,3}(?:,[0-9]{3})+|[0-9]+)(?![0-9.,])"
    r"\s*(?P<raised>[⁰¹²³⁴⁵⁶⁷⁸⁹]+)"
)
_LOWERED = str.maketrans("⁰¹²³⁴⁵⁶⁷⁸⁹", "0123456789")
# A lowest price, not a price: "From $50.44", "starting at $2", "as low as $1.10".
_LOWER_BOUND = re.compile(r"(?i)\b(?:from|starting at|starts at|as low as)\b")


class PriceError(ValueError):
    """A price cell that is neither a price nor a known "no price" marker."""


def parse_price(text: str | float | int | None, per: str | None = None) -> float | None:
    """USD amount in a price string; None for "Contact sales", "—", "N/A" or empty.

    "$2.49/hr" -> 2.49, "2,49" -> 2.49 (decimal comma), "$1,234.50" -> 1234.5. Raises
    PriceError (a ValueError) for text that is neither, such as "$2-3" or "call", for a number
    of any other shape ("$2..49", "$2,49,99": never read as 249 or 24999), and for a minus
    before the amount ("USD -2.49", "$-3.90/GPU-hr") or ending the cell after it ("2.49-"),
    and for digits raised after a whole amount ("$10³²": cents or a footnote). `per`: what the
    parser reads the cell as pricing (PER_GPU, PER_INSTANCE); a cell that says it prices
    the other ("$18.00/GPU" where an instance's price is read) or gives a lowest price ("From
    $50.44") is refused. None: the cell's words of its unit and "from" are not read (a parser
    that reads a lowest price on purpose, and says so in its record).
    """
    if text is None:
        return None
    if isinstance(text, int | float) and not isinstance(text, bool):
        return _positive(float(text), str(text))
    cleaned = " ".join(str(text).split())
    if says_no_price(cleaned):
        return None
    first = _NUMBER.search(cleaned)
    if first is not None and (
        _NEGATIVE.search(cleaned, 0, first.start()) or _TRAILING_MINUS.match(cleaned, first.end())
    ):  # "-2.49", "USD -2.49", or as accounts write a debit, "2.49-"
        raise PriceError(f"price {str(text)!r} is negative")
    if raised := _RAISED.search(cleaned):
        whole, cents = raised["whole"], raised["raised"].translate(_LOWERED)
        raise PriceError(
            f"price {str(text)!r} has {cents} raised after the whole amount {whole}: cents or a "
            f"footnote cannot be told apart, so it is read neither as {whole} nor as "
            f"{whole}.{cents}"
        )
    if per is not None:
        _check_unit(cleaned, per, str(text))
    numbers = _NUMBER.findall(cleaned)
    # the cell's own word of the unit it is read in ("$50.44/node" read per instance) is
    # decoration; with no unit asked, a GPU's, as before units were read
    own = _SAYS_PER[per or PER_GPU]
    words = _LOWER_BOUND.sub("", own.sub("", _NUMBER.sub("", cleaned)))
    if len(numbers) != 1 or _DECORATION.sub("", words):
        raise PriceError(f"price {str(text)!r} is not one USD amount")
    return _positive(_decimal(numbers[0], str(text)), str(text))


def _check_unit(cleaned: str, per: str, original: str) -> None:
    """PriceError when a cell read as a price per `per` says it is a lowest price, or a price
    per the other unit: a per-GPU price read as an 8-GPU instance's is 8 times too cheap."""
    if bound := _LOWER_BOUND.search(cleaned):
        raise PriceError(
            f"price {original!r} is a lowest price ({bound[0]!r}), not the price of one offer: "
            "not read as one"
        )
    for unit, says in _SAYS_PER.items():
        if unit != per and says.search(cleaned):
            raise PriceError(
                f"price {original!r} is per {unit}, where this column is read as a price per "
                f"{per}: not read as one"
            )


def says_no_price(text: object) -> bool:
    """A cell that says "no price here" on purpose ("Contact sales", "—", "N/A", empty): the
    provider's word that it lists no price, not a price chipcost cannot read."""
    cleaned = " ".join(str(text).split())
    return cleaned.lower().rstrip(".") in NOT_A_PRICE or set(cleaned) <= DASHES


def _decimal(number: str, original: str) -> float:
    """'1,234.50' and '1.234,50' -> 1234.5; '2,49' -> 2.49; '1,234' -> 1234; '1.5' -> 1.5.
    PriceError for any other shape ('2..49', '2.4.9', '2,49,99', '1,23,456'), naming the cell."""
    if number[-1] in ".," and number[-2:-1].isdigit():
        number = number[:-1]  # the sentence's full stop or comma after it ("$2.49.")
    amount = _AMOUNT.fullmatch(number)
    if amount is None or (amount["sep"] and amount["sep"] == amount["mark"]):
        raise PriceError(
            f"price {original!r} is not a number chipcost reads ({number!r}: one amount, "
            "its digits grouped in threes by one separator at most, one decimal mark): not "
            "read as one"
        )
    whole, sep = amount["whole"], amount["sep"] or ""
    if sep == "." and whole.count(".") == 1 and not amount["mark"]:
        return float(whole)  # "1.234": one dot before three digits is a decimal point
    fraction = f".{amount['fraction']}" if amount["mark"] else ""
    return float((whole.replace(sep, "") if sep else whole) + fraction)


def _positive(value: float, original: str) -> float:
    if not value > 0 or value != value or value == float("inf"):
        raise PriceError(f"price {original!r} is not a positive amount")
    return value


def price_of(text: object, what: str, per: str | None = None) -> tuple[float | None, str]:
    """(USD amount, "") or (None, why not): "Contact sales" and "—" are reasons, not errors;
    `per` as parse_price's."""
    try:
        value = parse_price(text, per)  # type: ignore[arg-type]
    except PriceError as exc:
        return None, f"{what}: {exc}"
    if value is None:
        shown = " ".join(str(text).split()) if text is not None else "nothing"
        return None, f"{what}: no price listed ({shown or 'empty'})"
    return value, ""
