"""The CHIPCOST_* variables of the settings object, read by pydantic-settings: each one's
name, default, the values it takes and the advice a wrong value gets, declared once."""

from __future__ import annotations

import os
from collections.abc import Mapping
from typing import Annotated, Any

from pydantic import Field, StringConstraints, ValidationError, field_validator
from pydantic_core import PydanticUseDefault
from pydantic_settings import BaseSettings, NoDecode, PydanticBaseSettingsSource, SettingsConfigDict

from chipcost.core import settings as s
from chipcost.core.errors import ChipcostError

_Stripped = Annotated[str, StringConstraints(strip_whitespace=True)]
# Seconds from 1 to a day, the bound of every deadline.
_DAY = 86400


def _mib(default: int, variable: str, what: str) -> Any:
    """A size in MiB, 1 or more."""
    advice = f"give {what}, in MiB (1 or more; default {default}), or unset it"
    return Field(default, ge=1, validation_alias=variable, description=advice)


def _deadline(default: float, variable: str, what: str) -> Any:
    """Seconds from 1 to a day."""
    advice = f"give the seconds {what} (1 to {_DAY}, e.g. {default:.0f}), or unset it"
    return Field(default, ge=1, le=_DAY, validation_alias=variable, description=advice)


class Environment(BaseSettings):
    """What the CHIPCOST_* variables set; unset or blank, the default. The names are exact
    (case-sensitive), and nothing else is read (no .env file). A wrong value's message is
    "NAME='value': " and its field's description."""

    model_config = SettingsConfigDict(case_sensitive=True, frozen=True, validate_default=False)

    data_dir: str = Field("", validation_alias=s.DATA_DIR_ENV)
    warehouse: _Stripped = Field("", validation_alias=s.WAREHOUSE_ENV)
    db: str = Field("", validation_alias=s.DB_ENV)
    lake_data: _Stripped = Field("", validation_alias=s.LAKE_DATA_ENV)
    archive: _Stripped = Field("", validation_alias=s.ARCHIVE_ENV)
    notify: Annotated[tuple[str, ...], NoDecode] = Field((), validation_alias=s.NOTIFY_ENV)
    observations_days: int | None = Field(  # None keeps every observation
        s.DEFAULT_OBSERVATIONS_DAYS,
        ge=1,
        le=s.MAX_OBSERVATIONS_DAYS,
        validation_alias=s.OBSERVATIONS_DAYS_ENV,
        description=f"give a number of days from 1 to {s.MAX_OBSERVATIONS_DAYS:,}, or 'all' "
        "to keep every observation",
    )
    stale_days: int = Field(
        s.DEFAULT_STALE_DAYS,
        ge=1,
        le=99999,
        validation_alias=s.STALE_DAYS_ENV,
        description="give a whole number of days from 1 to 99999, e.g. 2",
    )
    lock_wait: float = Field(
        s.DEFAULT_LOCK_WAIT,
        ge=0,
        le=_DAY,
        validation_alias=s.LOCK_WAIT_ENV,
        description="give the seconds a collection waits for readers of the warehouse to close "
        f"it (0 to {_DAY}, e.g. 300), or unset it",
    )
    threads: int | None = Field(  # None: DuckDB's own default, a thread per core it sees
        None,
        ge=1,
        le=1024,
        validation_alias=s.THREADS_ENV,
        description="give the threads DuckDB may use, a whole number from 1 to 1024 (e.g. 2), "
        "or unset it to use one per core",
    )
    payload_max_mb: int = _mib(
        s.DEFAULT_PAYLOAD_MAX_MB,
        s.PAYLOAD_MAX_ENV,
        "the largest uncompressed payload a replay reads",
    )
    answer_max_mb: int = _mib(
        s.DEFAULT_ANSWER_MAX_MB,
        s.ANSWER_MAX_ENV,
        "the largest HTTP answer a fetch takes, decoded",
    )
    source_payloads_max_mb: int = _mib(
        s.DEFAULT_SOURCE_PAYLOADS_MAX_MB,
        s.SOURCE_PAYLOADS_MAX_ENV,
        "the most a replay reads of one source's payloads in a run, all together",
    )
    run_payloads_max_mb: int = _mib(
        s.DEFAULT_RUN_PAYLOADS_MAX_MB,
        s.RUN_PAYLOADS_MAX_ENV,
        "the most a replay reads of one archived run's payloads, all together",
    )
    source_deadline: float = _deadline(
        s.DEFAULT_SOURCE_DEADLINE,
        s.SOURCE_DEADLINE_ENV,
        "a source's fetch may take, retries and downloads included",
    )
    notify_deadline: float = _deadline(
        s.DEFAULT_NOTIFY_DEADLINE, s.NOTIFY_DEADLINE_ENV, "one alert target may take to answer"
    )

    @field_validator("notify", mode="before")
    @classmethod
    def _urls(cls, text: str) -> tuple[str, ...]:
        return s.notify_urls(text)

    @field_validator(
        "observations_days",
        "stale_days",
        "threads",
        "payload_max_mb",
        "answer_max_mb",
        "source_payloads_max_mb",
        "run_payloads_max_mb",
        mode="before",
    )
    @classmethod
    def _whole(cls, text: object, info: Any) -> object:
        """ASCII digits, blanks around aside (str.isdigit() also takes "²", which int()
        refuses, and pydantic's own parsing takes "1.0" and "1_000"); -1, below every range,
        for anything else."""
        if not isinstance(text, str):
            return text
        text = _unless_blank(text).strip()
        if info.field_name == "observations_days" and text.lower() == "all":
            return None
        # Python's int() takes at most 4,300 digits.
        return int(text) if text.isascii() and text.isdigit() and len(text) <= 4300 else -1

    @field_validator("lock_wait", "source_deadline", "notify_deadline", mode="before")
    @classmethod
    def _seconds(cls, text: object) -> object:
        """Python's float(): decimals and exponents; nan and inf fall outside every range."""
        try:
            return float(_unless_blank(text))  # type: ignore[arg-type]
        except (TypeError, ValueError):
            return -1.0


def _unless_blank(text: Any) -> Any:
    """A blank value (CHIPCOST_STALE_DAYS=" ") means the default, as an unset one does."""
    if isinstance(text, str) and not text.strip():
        raise PydanticUseDefault()
    return text


class _Given(Environment):
    """The variables given to it, and no others: one variable checked alone."""

    @classmethod
    def settings_customise_sources(
        cls, settings_cls: type[BaseSettings], init_settings: PydanticBaseSettingsSource, **_: Any
    ) -> tuple[PydanticBaseSettingsSource, ...]:
        return (init_settings,)


def environment() -> Environment:
    """The process's CHIPCOST_* variables, checked: a wrong value is a ChipcostError naming
    its variable and what to give."""
    try:
        return Environment()
    except ValidationError as error:
        raise _refusal(error, os.environ) from None


def one_variable(variable: str, text: str | None) -> Any:
    """The value of `variable` given as `text` (None or blank: its default), checked as
    `environment` checks it, the rest of the environment aside."""
    field = next(f for f, i in Environment.model_fields.items() if i.validation_alias == variable)
    given = {} if text is None else {variable: text}
    try:
        return getattr(_Given(**given), field)
    except ValidationError as error:
        raise _refusal(error, given) from None


def _refusal(error: ValidationError, given: Mapping[str, str]) -> ChipcostError:
    variable = str(error.errors()[0]["loc"][0])
    advice = next(
        i.description for i in Environment.model_fields.values() if i.validation_alias == variable
    )
    return ChipcostError(f"{variable}={given.get(variable)!r}: {advice}")
