"""One settings object: where data lives and what sources use, from options and the CHIPCOST_*
variables (`Environment`, a pydantic-settings model, each variable declared once there); the
sources' keys and the object store's are chipcost.core.credentials."""

from __future__ import annotations

import os
import re
from dataclasses import dataclass, field
from pathlib import Path
from typing import Annotated, Any

from pydantic_settings import NoDecode

from chipcost.core.asks import MAX_STALE_DAYS
from chipcost.core.clean import masked
from chipcost.core.credentials import REGION_NAME as REGION_NAME
from chipcost.core.credentials import STORAGE_ENV as STORAGE_ENV
from chipcost.core.credentials import SourceSettings as SourceSettings
from chipcost.core.credentials import object_store as object_store
from chipcost.core.credentials import secret_values as secret_values
from chipcost.core.credentials import source_settings as source_settings
from chipcost.core.errors import ChipcostError
from chipcost.core.questions import COMMAND_LINE, Voice
from chipcost.core.sql_limits import SqlLimits, sql_limits
from chipcost.core.variables import Reading, Variables, seconds, stripped, variable, whole

DEFAULT_DATA_DIR = Path("data")
DATA_DIR_ENV = "CHIPCOST_DATA_DIR"
DB_FILENAME = "chipcost.duckdb"
DB_ENV = "CHIPCOST_DB"  # the older name of CHIPCOST_WAREHOUSE, read after it
# A warehouse URL (docs/deploy.md): a DuckDB file path, or ducklake:postgres:<libpq conninfo>
# with the lake's data (Parquet files) under CHIPCOST_LAKE_DATA, a directory or s3://...
WAREHOUSE_ENV = "CHIPCOST_WAREHOUSE"
LAKE_DATA_ENV = "CHIPCOST_LAKE_DATA"
ARCHIVE_ENV = "CHIPCOST_ARCHIVE"
LAKE_PREFIX = "ducklake:"
# observations (every record of every run) are kept this many days back from the newest, so
# the file grows with price changes, not days x offers; price_history keeps every distinct
# price and the raw archive every payload for ever (docs/warehouse.md, "Retention").
DEFAULT_OBSERVATIONS_DAYS = 35
OBSERVATIONS_DAYS_ENV = "CHIPCOST_OBSERVATIONS_DAYS"
# Where price alerts go: apprise URLs separated by commas (docs/reports.md, "Price alerts").
NOTIFY_ENV = "CHIPCOST_NOTIFY"
# A source with no successful run for this many days is named as stale wherever its prices are
# read (the same default as the report's --stale-days).
DEFAULT_STALE_DAYS = 2
STALE_DAYS_ENV = "CHIPCOST_STALE_DAYS"
# DuckDB lets one process write a file and refuses every other opener meanwhile, readers
# included: a writer retries for this long (a reader for at most READ_WAIT) before it gives
# up naming the holder (docs/operations.md, "Readers and writers").
DEFAULT_LOCK_WAIT = 300.0
LOCK_WAIT_ENV = "CHIPCOST_LOCK_WAIT"
# A load holds the file for seconds; a reader that waits longer meets a long rebuild, and is
# better told so than left hanging.
READ_WAIT = 30.0
# An archived payload is refused beyond this many bytes uncompressed: a whole 300 MB AWS
# region CSV fits (aws-bulk archives extracts of a few MB), a gzip bomb does not.
DEFAULT_PAYLOAD_MAX_MB = 512
PAYLOAD_MAX_ENV = "CHIPCOST_PAYLOAD_MAX_MB"
# One HTTP answer is refused once it decodes (gzip, deflate) past this many bytes: a price API
# answers in kilobytes to a few megabytes, and 199 KB of gzip can inflate to 200 MB. AWS's
# price files stream to disk (extract/aws/_files.py) and are not bounded by it.
DEFAULT_ANSWER_MAX_MB = 64
ANSWER_MAX_ENV = "CHIPCOST_ANSWER_MAX_MB"
# And so are a source's payloads of one run together past this many bytes, and a run's
# together past this many, fetched (decoded answers) or replayed: many payloads each within
# the limit held gigabytes at once.
DEFAULT_SOURCE_PAYLOADS_MAX_MB = 1024
SOURCE_PAYLOADS_MAX_ENV = "CHIPCOST_SOURCE_PAYLOADS_MAX_MB"
DEFAULT_RUN_PAYLOADS_MAX_MB = 4096
RUN_PAYLOADS_MAX_ENV = "CHIPCOST_RUN_PAYLOADS_MAX_MB"
# A source's whole fetch (connect, every read, retry wait and download) ends by this many
# seconds: a provider that stalls or trickles fails its source, not the day's run. An hour
# holds aws-bulk's price files of every region on a slow link.
DEFAULT_SOURCE_DEADLINE = 3600.0
SOURCE_DEADLINE_ENV = "CHIPCOST_SOURCE_DEADLINE"
# One alert target (a webhook, a chat) takes an alert within this many seconds, or fails
# alone; the warehouse is closed meanwhile.
DEFAULT_NOTIFY_DEADLINE = 30.0
NOTIFY_DEADLINE_ENV = "CHIPCOST_NOTIFY_DEADLINE"
# The threads DuckDB may use for chipcost's work. Unset, DuckDB's own default: one per core it
# sees. Lower where the machine is shared (several collectors or test workers, each given a
# core) or where a container's CPU quota is smaller than the cores DuckDB sees.
THREADS_ENV = "CHIPCOST_THREADS"
# Your discounts file (docs/your-prices.md), applied by every read unless --list-prices.
DISCOUNTS_ENV = "CHIPCOST_DISCOUNTS"
# The currency reads convert prices to (a code such as EUR); unset, US dollars.
CURRENCY_ENV = "CHIPCOST_CURRENCY"
# AIPerf's command for `chipcost measure` (docs/measure.md); unset, the one chipcost finds.
AIPERF_ENV = "CHIPCOST_AIPERF"
# Set (to anything but 0), a source's unexpected error writes its traceback to the log.
TRACEBACK_ENV = "CHIPCOST_TRACEBACK"
# The longest retention a user can ask for (about 270 years): beyond it the window's start
# falls before year 1 and cannot be computed; 'all' keeps everything.
MAX_OBSERVATIONS_DAYS = 100_000


@dataclass(frozen=True)
class Warehouse:
    """Where the warehouse lives: a DuckDB file, or a DuckLake catalog and its data path."""

    url: str
    lake_data: str = ""
    # The option or variable that gave the URL ("" for the file in the data directory): a
    # message names what the user set.
    given_by: str = field(default=COMMAND_LINE.name("db"), compare=False)
    # How messages name the option that gives the warehouse: --db, or the API's db=.
    voice: Voice = field(default=COMMAND_LINE, compare=False)

    @property
    def is_lake(self) -> bool:
        return self.url.startswith(LAKE_PREFIX)

    @property
    def path(self) -> Path:
        """The DuckDB file (file warehouses only)."""
        return Path(self.url)

    def __str__(self) -> str:
        # Shown in tables and errors: a password in the conninfo or a URL never is.
        return masked(self.url)


@dataclass(frozen=True)
class Settings:
    data_dir: Path
    db_path: Path
    observations_days: int | None = DEFAULT_OBSERVATIONS_DAYS  # None keeps every observation
    stale_days: int = DEFAULT_STALE_DAYS
    sources: SourceSettings = field(default_factory=SourceSettings)
    # apprise URLs carry tokens (a webhook's secret): kept out of repr like the API keys.
    notify: tuple[str, ...] = field(default=(), repr=False)
    lock_wait: float = DEFAULT_LOCK_WAIT  # seconds a writer waits for the file
    payload_max_bytes: int = DEFAULT_PAYLOAD_MAX_MB << 20  # per archived payload, uncompressed
    answer_max_bytes: int = DEFAULT_ANSWER_MAX_MB << 20  # per HTTP answer fetched, decoded
    # A source's payloads of one run together, and a run's, fetched or replayed, uncompressed.
    source_payloads_max_bytes: int = DEFAULT_SOURCE_PAYLOADS_MAX_MB << 20
    run_payloads_max_bytes: int = DEFAULT_RUN_PAYLOADS_MAX_MB << 20
    source_deadline: float = DEFAULT_SOURCE_DEADLINE  # seconds a source's fetch may take
    notify_deadline: float = DEFAULT_NOTIFY_DEADLINE  # seconds one alert target may take
    # Time, memory and temporary disk of every read (warehouse/reader.py).
    read_limits: SqlLimits = field(default_factory=SqlLimits)

    @property
    def read_wait(self) -> float:
        """Seconds a reading command waits for a writer to finish."""
        return min(self.lock_wait, READ_WAIT)

    # Every credential value known to this run: scrubbed from what it stores, logs or prints.
    secrets: tuple[str, ...] = field(default=(), repr=False)

    warehouse_url: str = ""  # empty: the file at db_path
    lake_data: str = ""
    archive_url: str = ""  # empty: <data dir>/archive
    # The option or variable that gave db_path (or warehouse_url) and data_dir; "" for the
    # defaults (chipcost.duckdb in the data directory, ./data).
    warehouse_given_by: str = COMMAND_LINE.name("db")
    data_dir_given_by: str = COMMAND_LINE.name("data_dir")
    voice: Voice = COMMAND_LINE  # the asker's: the command line's options, or the API's

    @property
    def warehouse(self) -> Warehouse:
        url = self.warehouse_url or str(self.db_path)
        return Warehouse(url, self.lake_data, self.warehouse_given_by, self.voice)

    def again(self) -> str:
        """What a later command must be given to read this warehouse: '' where a variable or
        the default named it (the next command finds it the same way), else ' --db PATH' (an
        option of this command line named it: --db, or --data-dir the file in it)."""
        given = self.warehouse_given_by or self.data_dir_given_by
        if not given.startswith("--"):
            return ""
        import shlex

        return " " + self.voice.said("db", shlex.quote(str(self.warehouse)))

    @property
    def is_lake(self) -> bool:
        return self.warehouse.is_lake

    @property
    def archive_root(self) -> str | Path:
        """Where fetched payloads go: a directory, or an s3://bucket/prefix URL."""
        return self.archive_url or self.archive_dir

    @property
    def archive_dir(self) -> Path:
        return self.data_dir / "archive"

    @property
    def reports_dir(self) -> Path:
        return self.data_dir / "reports"


def load_settings(
    db: str | Path | None = None, data_dir: str | Path | None = None, voice: Voice = COMMAND_LINE
) -> Settings:
    """Options win over CHIPCOST_WAREHOUSE / CHIPCOST_DB / CHIPCOST_DATA_DIR, then ./data; the
    other CHIPCOST_* variables are read and checked by `environment` (Environment, below).

    `db` is a warehouse URL: a DuckDB file path or ducklake:postgres:<conninfo>; `voice` names
    `db` and `data_dir` in messages as the asker gave them (--db, or the API's db=).
    """
    for name, given in (("db", db), ("data_dir", data_dir)):
        if given is not None and not str(given).strip():  # '' would be the default: never meant
            raise ChipcostError(
                f"{voice.name(name)} is empty: give "
                + ("the warehouse, a DuckDB file's path" if name == "db" else "a directory")
            )
    env = environment()
    data_given_by, data = _first(
        (voice.name("data_dir"), data_dir), (DATA_DIR_ENV, env.data_dir), ("", DEFAULT_DATA_DIR)
    )
    data = Path(data)
    warehouse_given_by, url = _first(
        (voice.name("db"), db),
        (WAREHOUSE_ENV, env.warehouse),
        (DB_ENV, env.db),
        ("", data / DB_FILENAME),
    )
    url = str(url)
    lake = url.startswith(LAKE_PREFIX)
    if lake:
        _check_lake(url)
    elif _URL.match(url):  # read as a file path, it became "no warehouse at postgres:/x"
        shown = masked(url)  # no password in a message
        raise ChipcostError(
            f"warehouse {shown} is a URL: a warehouse is a DuckDB file's path, or a "
            "lake, ducklake:postgres:<conninfo> (e.g. ducklake:postgres:dbname=chipcost "
            "host=db.internal), docs/deploy.md"
        )
    return Settings(
        data_dir=data,
        # A lake has no file: db_path names where a file warehouse would be, and is unused.
        db_path=data / DB_FILENAME if lake else Path(url),
        observations_days=env.observations_days,
        stale_days=env.stale_days,
        sources=SourceSettings.from_environment(),
        secrets=secret_values(os.environ),
        notify=env.notify,
        lock_wait=env.lock_wait,
        payload_max_bytes=env.payload_max_mb << 20,
        answer_max_bytes=env.answer_max_mb << 20,
        source_payloads_max_bytes=env.source_payloads_max_mb << 20,
        run_payloads_max_bytes=env.run_payloads_max_mb << 20,
        source_deadline=env.source_deadline,
        notify_deadline=env.notify_deadline,
        read_limits=sql_limits(),
        warehouse_url=url if lake else "",
        lake_data=env.lake_data,
        archive_url=env.archive,
        warehouse_given_by=warehouse_given_by,
        data_dir_given_by=data_given_by,
        voice=voice,
    )


def _first(*given: tuple[str, object]) -> tuple[str, object]:
    """The first value set, with the name of the option or variable that set it."""
    return next((name, value) for name, value in given if value)


def named(given_by: str, value: object) -> str:
    """A value as a message names it, with what set it: `--db data`, `CHIPCOST_DB='data'`
    (a variable, or the API's `db='data'`), or the value alone when it is a default."""
    if given_by.startswith("--"):
        return f"{given_by} {value}"
    return f"{given_by}={str(value)!r}" if given_by else str(value)


def check_data_dir(settings: Settings) -> None:
    """The data directory is one, or can be made one (chipcost creates it): a file in its
    place is said before anything runs, naming what set it."""
    path = settings.data_dir
    while not path.exists() and path != path.parent:
        path = path.parent
    if path.is_dir():
        return
    data, given_by = settings.data_dir, settings.data_dir_given_by
    where = named(given_by, data) if given_by else f"the data directory {data}"
    what = (
        f"{where} is not a directory"
        if path == data
        else f"{where} cannot be created, since {path} is not a directory"
    )
    if given_by.startswith("--"):
        todo = f"give {given_by} a directory (chipcost creates a missing one)"
    elif given_by:
        todo = "set it to a directory (chipcost creates a missing one), or unset it to use ./data"
    else:
        option = settings.voice.option("data_dir")
        todo = f"move {path} away, or choose another directory with {option} or {DATA_DIR_ENV}"
    raise ChipcostError(f"{what}: {todo}")


def notify_urls(text: str | None) -> tuple[str, ...]:
    """CHIPCOST_NOTIFY: apprise URLs separated by commas; empty or unset sends no alert."""
    return tuple(dict.fromkeys(u.strip() for u in (text or "").split(",") if u.strip()))


# A URL's scheme (postgres://, s3://, md:...): never a DuckDB file's path.
_URL = re.compile(r"^[A-Za-z][A-Za-z0-9+.-]*://")


def _check_lake(url: str) -> None:
    if not url.startswith(LAKE_PREFIX + "postgres:"):
        raise ChipcostError(
            f"warehouse {Warehouse(url)}: a lake is ducklake:postgres:<conninfo>, e.g. "
            "ducklake:postgres:dbname=chipcost host=db.internal user=chipcost"
        )
    # CHIPCOST_LAKE_DATA is checked where it is needed: a writer needs it, a reader of a lake
    # on a file system reads the data path its catalog keeps (warehouse/lake.py).


# Seconds from 1 to a day, the bound of every deadline.
_DAY = 86400


def _mib(default: int, what: str) -> Reading:
    """A size in MiB, 1 or more."""
    advice = f"give {what}, in MiB (1 or more; default {default}), or unset it"
    return Reading(whole(1, float("inf")), advice)


def _deadline(default: float, what: str) -> Reading:
    """Seconds from 1 to a day."""
    advice = f"give the seconds {what} (1 to {_DAY}, e.g. {default:.0f}), or unset it"
    return Reading(seconds(1, _DAY), advice)


class Environment(Variables):
    """What the CHIPCOST_* variables set, each declared once: its field, the variable, its
    default, how its text is read and the advice a wrong value gets (core/variables.py); the
    CHIPCOST_SQL_* limits are SqlVariables (core/sql_limits.py)."""

    data_dir: Annotated[str, Reading(str, blank_is_default=False)] = variable(DATA_DIR_ENV, "")
    warehouse: Annotated[str, Reading(stripped)] = variable(WAREHOUSE_ENV, "")
    db: Annotated[str, Reading(str, blank_is_default=False)] = variable(DB_ENV, "")
    lake_data: Annotated[str, Reading(stripped)] = variable(LAKE_DATA_ENV, "")
    archive: Annotated[str, Reading(stripped)] = variable(ARCHIVE_ENV, "")
    notify: Annotated[tuple[str, ...], NoDecode, Reading(notify_urls, blank_is_default=False)] = (
        variable(NOTIFY_ENV, (), shown=False)
    )
    observations_days: Annotated[  # None keeps every observation
        int | None,
        Reading(
            whole(1, MAX_OBSERVATIONS_DAYS, every=True),
            f"give a number of days from 1 to {MAX_OBSERVATIONS_DAYS:,}, or 'all' to keep "
            "every observation",
        ),
    ] = variable(OBSERVATIONS_DAYS_ENV, DEFAULT_OBSERVATIONS_DAYS)
    stale_days: Annotated[
        int,
        Reading(
            whole(1, MAX_STALE_DAYS),
            f"give a whole number of days from 1 to {MAX_STALE_DAYS}, e.g. 2",
        ),
    ] = variable(STALE_DAYS_ENV, DEFAULT_STALE_DAYS)
    lock_wait: Annotated[
        float,
        Reading(
            seconds(0, _DAY),
            "give the seconds a collection waits for readers of the warehouse to close it "
            f"(0 to {_DAY}, e.g. 300), or unset it",
        ),
    ] = variable(LOCK_WAIT_ENV, DEFAULT_LOCK_WAIT)
    threads: Annotated[  # None: DuckDB's own default, a thread per core it sees
        int | None,
        Reading(
            whole(1, 1024),
            "give the threads DuckDB may use, a whole number from 1 to 1024 (e.g. 2), or unset "
            "it to use one per core",
        ),
    ] = variable(THREADS_ENV, None)
    payload_max_mb: Annotated[
        int, _mib(DEFAULT_PAYLOAD_MAX_MB, "the largest uncompressed payload a replay reads")
    ] = variable(PAYLOAD_MAX_ENV, DEFAULT_PAYLOAD_MAX_MB)
    answer_max_mb: Annotated[
        int, _mib(DEFAULT_ANSWER_MAX_MB, "the largest HTTP answer a fetch takes, decoded")
    ] = variable(ANSWER_MAX_ENV, DEFAULT_ANSWER_MAX_MB)
    source_payloads_max_mb: Annotated[
        int,
        _mib(
            DEFAULT_SOURCE_PAYLOADS_MAX_MB,
            "the most a replay reads of one source's payloads in a run, all together",
        ),
    ] = variable(SOURCE_PAYLOADS_MAX_ENV, DEFAULT_SOURCE_PAYLOADS_MAX_MB)
    run_payloads_max_mb: Annotated[
        int,
        _mib(
            DEFAULT_RUN_PAYLOADS_MAX_MB,
            "the most a replay reads of one archived run's payloads, all together",
        ),
    ] = variable(RUN_PAYLOADS_MAX_ENV, DEFAULT_RUN_PAYLOADS_MAX_MB)
    source_deadline: Annotated[
        float,
        _deadline(
            DEFAULT_SOURCE_DEADLINE, "a source's fetch may take, retries and downloads included"
        ),
    ] = variable(SOURCE_DEADLINE_ENV, DEFAULT_SOURCE_DEADLINE)
    notify_deadline: Annotated[
        float, _deadline(DEFAULT_NOTIFY_DEADLINE, "one alert target may take to answer")
    ] = variable(NOTIFY_DEADLINE_ENV, DEFAULT_NOTIFY_DEADLINE)
    discounts: Annotated[str, Reading(stripped)] = variable(DISCOUNTS_ENV, "")
    currency: Annotated[str, Reading(stripped)] = variable(CURRENCY_ENV, "")
    aiperf: Annotated[str, Reading(stripped)] = variable(AIPERF_ENV, "")
    traceback: Annotated[  # any value but "" or "0"
        bool, Reading(lambda text: text not in ("", "0"), blank_is_default=False)
    ] = variable(TRACEBACK_ENV, False)


def environment() -> Environment:
    """The process's CHIPCOST_* variables, checked: a wrong value is a ChipcostError naming
    its variable and what to give."""
    return Environment()


def one_variable(variable: str, text: str | None) -> Any:
    """The value of `variable` given as `text` (None or blank: its default), checked as
    `environment` checks it, the rest of the environment aside."""
    return Environment.one(variable, text)


def process_variable(variable: str) -> Any:
    """The value of `variable` as this process's environment sets it, checked alone."""
    return one_variable(variable, os.environ.get(variable))


def observations_days(text: str | None) -> int | None:
    """CHIPCOST_OBSERVATIONS_DAYS: a number of days (1 or more), or 'all' to keep them all."""
    return one_variable(OBSERVATIONS_DAYS_ENV, text)


def source_deadline(text: str | None) -> float:
    """CHIPCOST_SOURCE_DEADLINE: seconds a source's whole fetch may take (1 to 86400)."""
    return one_variable(SOURCE_DEADLINE_ENV, text)


def notify_deadline(text: str | None) -> float:
    """CHIPCOST_NOTIFY_DEADLINE: seconds one alert target may take to answer (1 to 86400)."""
    return one_variable(NOTIFY_DEADLINE_ENV, text)
