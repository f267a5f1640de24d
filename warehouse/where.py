"""A WHERE clause built from the filters a read was given, its values bound as parameters
($p0, $p1, ...), never written into the query's text."""

from __future__ import annotations

from collections.abc import Iterable
from dataclasses import dataclass, field


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

    def sql(self) -> str:
        return " AND ".join(self.conditions) or "TRUE"
