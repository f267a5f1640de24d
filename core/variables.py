"""Settings read from environment variables with pydantic-settings: a field per variable, named
exactly (case-sensitive), its default when unset or blank, its text read by a `Reading` whose
advice a wrong value gets as a ChipcostError ("NAME='value': advice"). Nothing else is read
(no .env file, no secrets directory)."""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from typing import Any

from pydantic import Field, ValidationInfo, field_validator
from pydantic_settings import BaseSettings, SettingsConfigDict

from chipcost.core.errors import ChipcostError


@dataclass(frozen=True)
class Reading:
    """How a variable's text is read (`read` raises ValueError for a value outside what it
    takes) and the advice a wrong value gets. Blank, the default, unless `blank_is_default` is
    False (the text is then read as it is)."""

    read: Callable[[str], Any]
    advice: str = ""
    blank_is_default: bool = True


def variable(name: str, default: Any, *, shown: bool = True) -> Any:
    """The field set by the variable `name` (exactly that name), `default` when unset; a
    value that is not `shown` stays out of repr (a URL's token)."""
    return Field(default, validation_alias=name, repr=shown)


class Variables(BaseSettings):
    """Fields declared `name: Annotated[type, Reading(...)] = variable(NAME, default)`:
    `Model()` reads the process's environment, `Model.one(NAME, text)` one text (the
    environment aside)."""

    model_config = SettingsConfigDict(
        case_sensitive=True, frozen=True, validate_default=False, extra="ignore"
    )

    @field_validator("*", mode="before")
    @classmethod
    def _read(cls, text: Any, info: ValidationInfo) -> Any:
        return cls._value(info.field_name or "", text)

    @classmethod
    def _value(cls, field: str, text: Any) -> Any:
        """The value `text` gives `field`'s variable (blank, where that means it: the
        default), or a ChipcostError naming the variable and what to give."""
        field_info = cls.model_fields[field]
        reading = next(m for m in field_info.metadata if isinstance(m, Reading))
        if not isinstance(text, str):
            return text
        if reading.blank_is_default and not text.strip():
            return field_info.default
        try:
            return reading.read(text)
        except (TypeError, ValueError, OverflowError):
            name = field_info.validation_alias
            raise ChipcostError(f"{name}={text!r}: {reading.advice}") from None

    @classmethod
    def names(cls) -> tuple[str, ...]:
        """The variables read, in their order."""
        return tuple(str(f.validation_alias) for f in cls.model_fields.values())

    @classmethod
    def one(cls, name: str, text: str | None) -> Any:
        """The value the variable `name` takes from `text` (None or blank: its default),
        checked as the environment's is, the rest of the environment aside (not through
        model_validate, which pydantic-settings fills from the environment)."""
        field = next(f for f, i in cls.model_fields.items() if i.validation_alias == name)
        return cls.model_fields[field].default if text is None else cls._value(field, text)


def stripped(text: str) -> str:
    return text.strip()


def whole(low: int, high: float, *, every: bool = False) -> Callable[[str], int | None]:
    """ASCII digits from `low` to `high`, blanks around aside (str.isdigit() also takes "²",
    which int() refuses; Python's int() takes at most 4,300 digits); 'all' is None where
    `every` allows it."""

    def read(text: str) -> int | None:
        text = text.strip()
        if every and text.lower() == "all":
            return None
        if not (text.isascii() and text.isdigit() and len(text) <= 4300):
            raise ValueError(text)
        value = int(text)
        if not low <= value <= high:
            raise ValueError(text)
        return value

    return read


def seconds(low: float, high: float, *, above_low: bool = False) -> Callable[[str], float]:
    """Python's float(): decimals and exponents; nan and inf fall outside every range; with
    `above_low`, `low` itself is refused too."""

    def read(text: str) -> float:
        value = float(text)
        if not (low < value <= high if above_low else low <= value <= high):
            raise ValueError(text)
        return value

    return read
