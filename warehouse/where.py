"""A WHERE clause built from the filters a read was given, its values bound as parameters
($p0, $p1, ...), never written into the query's text."""

from __future__ import annotations

from collections.abc import Callable, Iterable
from dataclasses import dataclass, field

from chipcost.core.vocabulary import pricing_parts


@dataclass
class Where:
    conditions: list[str] = field(default_factory=list)
    params: dict[str, object] = field(default_factory=dict)

    def bind(self, value: object) -> str:
        """A new parameter holding `value`, as the query names it."""
        name = f"p{len(self.params)}"
        self.params[name] = value
        return f"${name}"

    def add(self, condition: str, value: object) -> None:
        """`condition` with its `{}` standing for `value`, bound."""
        self.conditions.append(condition.format(self.bind(value)))

    def any_of(self, column: str, values: Iterable[str] | None) -> None:
        """`column` is one of `values` in any case (nothing added when there are none)."""
        wanted = [v.lower() for v in values or ()]
        if wanted:
            self.add(f"list_contains({{}}, lower({column}))", wanted)

    def places(self, values: Iterable[str] | None, prefix: str = "") -> None:
        """The offer is in one of `values`, each a region or a zone as a row prints it
        ('us-east-1', 'us-east-2b': that zone's offers alone), in any case; `prefix` is the
        columns' table alias ('h.'). Nothing added when there are none."""
        wanted = [v.lower() for v in values or ()]
        if wanted:
            bound = self.bind(wanted)
            self.conditions.append(
                f"(list_contains({bound}, lower({prefix}region)) "
                f"OR list_contains({bound}, lower({prefix}zone)))"
            )

    def pricing(self, codes: Iterable[str] | None, prefix: str = "") -> None:
        """The offer is paid as one of `codes` (chipcost.core.vocabulary.pricing_code: a
        pricing model, and the term, payment and plan it names); nothing added when none."""
        if either := pricing_sql(codes, self.bind, prefix):
            self.conditions.append(either)

    def sql(self) -> str:
        return " AND ".join(self.conditions) or "TRUE"


def pricing_sql(codes: Iterable[str] | None, value: Callable[[str], str], prefix: str = "") -> str:
    """'((lower(pricing_model) = $p0 AND lower(term) = $p1) OR ...)' for pricing codes, each
    value written by `value` (a bound parameter, or a quoted literal in SQL shown to a reader);
    '' for none. `prefix` is the columns' table alias ('h.')."""
    either = [
        "("
        + " AND ".join(
            f"lower({prefix}{column}) = {value(word.lower())}"
            for column, word in pricing_parts(code).items()
        )
        + ")"
        for code in codes or ()
    ]
    return f"({' OR '.join(either)})" if either else ""
