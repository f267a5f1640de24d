"""The read commands' questions, declared once.

Each read (`prices`, `cost`, `compare`, `sql`) declares the question it asks as fields: name
(the Python API's keyword and the command's parameter), kind, help, command-line spelling,
default, and where it goes. From these come the Typer options (chipcost.cli.declared), the
fast-start parser (chipcost.cli.quick), the Python API's keyword arguments (chipcost.api) and
the spelling of an option in messages (`Voice`: `--max-price 3` on the command line,
`max_price=3` from Python). Adding a filter to `prices` is one `Field` here (with `query=`, the
keyword of warehouse.prices' query it becomes) plus its condition in that query.

NamedTuples rather than dataclasses: this module is imported on the fast-start path, where a
dataclass costs about a millisecond each to define.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from datetime import date, datetime
from pathlib import Path
from typing import Any, NamedTuple

from chipcost.core.vocabulary import models_help

# The most rows a command shows: enough for any terminal or script, and a bound that keeps
# a mistyped --limit (99999999999999999999) a clear refusal rather than an overflow.
MAX_LIMIT = 1_000_000
# Rows a table shows when --limit is not given (csv and json give every row).
DEFAULT_TABLE_ROWS = 200
DEFAULT_BASELINE = "H100-SXM"

# The kinds of field, and what each is on the command line:
#   names    a repeatable text option (--chip H100 --chip A100, or a comma list)
#   text     one text value          float, int  a number (int: within low..high)
#   flag     --name, no value        switch  --name/--no-name (None when neither is given)
#   format   table|csv|json          price-format  table|csv|json|focus
#   db       the warehouse (--warehouse, --db)
#   argument a positional argument
KINDS = (
    *("names", "text", "float", "int", "flag", "switch"),
    *("format", "price-format", "db", "argument"),
)


class Field(NamedTuple):
    name: str  # the parameter: the API's keyword, the command's dest
    kind: str  # one of KINDS
    help: str
    default: Any = None
    required: bool = False
    cli_required: bool = False  # required on the command line only (the API defaults to None)
    flags: tuple[str, ...] = ()  # the command line's spellings; () is --name-with-dashes
    low: int | None = None  # an int's bounds
    high: int | None = None
    cli: bool = True  # an option of the command
    api: bool = True  # a keyword of the Python API
    positional: bool = False  # the API takes it by position too (a required field always)
    hidden: bool = False  # taken but not listed in --help
    same_as: str | None = None  # an old spelling: its values join this field's
    # A filter of the rows (`prices`): the keyword of the warehouse query it becomes, and how
    # its value is checked (chipcost.pipeline.prices.CHECKS); why_empty names it.
    query: str | None = None
    check: str | None = None
    narrows: bool = True  # a filter (not an order): why_empty may try the rows without it
    api_type: Any = None  # the API's annotation where it is wider than the kind's

    @property
    def cli_requires(self) -> bool:
        """Whether the command line must give it."""
        return self.required or self.cli_required

    @property
    def option(self) -> str:
        """The command line's name of the field: '--max-price'."""
        return self.flags[0] if self.flags else "--" + self.name.replace("_", "-")


class Question(NamedTuple):
    command: str
    summary: str  # the command's help line (its docstring)
    fields: tuple[Field, ...]

    def field(self, name: str) -> Field:
        for field in self.fields:
            if field.name == name:
                return field
        raise KeyError(f"{self.command} declares no field {name!r}")

    def declares(self, name: str) -> bool:
        return any(f.name == name for f in self.fields)

    def cli_fields(self) -> Iterator[Field]:
        return (f for f in self.fields if f.cli)

    def api_fields(self) -> Iterator[Field]:
        return (f for f in self.fields if f.api)

    def asked(self) -> Iterator[Field]:
        """The fields that become the query's keywords (filters and order)."""
        return (f for f in self.fields if f.query is not None)

    def filters(self) -> Iterator[Field]:
        """The fields that narrow the rows."""
        return (f for f in self.asked() if f.narrows)

    def defaults(self) -> dict[str, Any]:
        return {f.name: f.default for f in self.fields if not f.required}

    def given(self, values: Mapping[str, Any]) -> dict[str, Any]:
        """Every field's value: as given, else its default; an old spelling's values joined
        to its field's. A name the question does not declare is a TypeError, as a Python
        call with an unknown keyword."""
        unknown = set(values) - {f.name for f in self.fields}
        if unknown:
            raise TypeError(f"{self.command}() got unexpected keyword(s) {sorted(unknown)}")
        asked = {**self.defaults(), **values}
        for field in self.fields:
            if field.same_as is not None:
                old = asked.pop(field.name, None)
                if old:
                    asked[field.same_as] = [*(asked.get(field.same_as) or []), *old]
        return asked


class Voice(NamedTuple):
    """How messages name a question's fields: as the command line spells them, or as the
    Python API does."""

    question: Question
    api: bool = False

    def name(self, field: str) -> str:
        """'--max-price' (command line) or 'max_price' (Python)."""
        return field if self.api else self.question.field(field).option

    def said(self, field: str, value: object) -> str:
        """'--max-price 3' (command line) or 'max_price=3' (Python); a switch as it was set
        ('--no-spot', 'spot=False')."""
        if self.api:
            return f"{field}={value}"
        option = self.question.field(field).option
        if self.question.field(field).kind == "switch":
            return option if value else f"--no-{option.removeprefix('--')}"
        return f"{option} {value}"


# Fields many commands share (chipcost.cli.options makes the other commands' options of them).
DB = Field(
    "db",
    "db",
    "Warehouse: a DuckDB file, or a lake as ducklake:postgres: and its connection string "
    "(default: the variables CHIPCOST_WAREHOUSE, then CHIPCOST_DB, else chipcost.duckdb in "
    "CHIPCOST_DATA_DIR or ./data).",
    flags=("--warehouse", "--db"),
    api_type=str | Path | None,
)


FORMAT_HELP = "table (for people), csv or json (for scripts: stable field names, ISO 8601 times)"
LIMIT = Field(
    "limit",
    "int",
    f"Show at most this many rows (table: {DEFAULT_TABLE_ROWS} unless given; csv and json: all).",
    low=1,
    high=MAX_LIMIT,
    api=False,
)
WIDE = Field("wide", "flag", "Every column, however wide the table gets.", False, api=False)
FORMAT = Field("format", "format", f"{FORMAT_HELP}.", "table", api=False)
# Your currency and discounts (chipcost.pipeline.your_prices), on every read of prices.
CURRENCY = Field(
    "currency",
    "text",
    "Show prices in this currency (EUR, GBP, JPY, ...) at the ECB reference rate of each "
    "price's own day (default: $CHIPCOST_CURRENCY, else USD).",
)
LIST_PRICES = Field(
    "list_prices", "flag", "Show list prices: your discounts file is set aside.", False
)
SPEED = Field(
    "speed",
    "text",
    "Inference: tokens/s per user each chip's figure must reach: a number, server (5, MLPerf "
    "Server's bound; the default), interactive (25) or max (maximum throughput).",
    api_type=float | str | None,
)
_MODEL = Field("model", "text", "Model, e.g. llama-3-70b (see `throughput list`).", required=True)
_WORKLOAD = Field("workload", "text", "training or inference.", required=True)
_ONLY_REGION = Field("region", "names", "Only this region.")
ONLY_PRICING_MODEL = Field("pricing_model", "names", f"Only this pricing model: {models_help()}.")
_ONLY_PROVIDER = Field("provider", "names", "Only this provider.")

# An instance type, as its provider names it; a name given to --chip is read as one too.
INSTANCE = Field(
    "instance",
    "names",
    "Instance type, e.g. p5.48xlarge, a3-highgpu-8g, ND96isr_H100_v5 (repeat or comma list).",
    query="instance_types",
    check="named",
)

PRICES = Question(
    "prices",
    "Current per-chip hourly prices, cheapest first per chip, pricing model and term.",
    (
        Field(
            "chip",
            "names",
            "Chip or family: H100-SXM, H100 (SXM, PCIe, NVL), A100, Trainium, Hopper. "
            "Repeat it or give a comma list.",
            positional=True,
            query="chips",
            check="chips",
        ),
        Field(
            "region",
            "names",
            "Region code, e.g. us-east-1 (repeat or comma list).",
            query="regions",
            check="named",
        ),
        Field("pricing_model", "names", f"{models_help()}.", query="models", check="named"),
        Field(
            "model",
            "names",
            "Old name of --pricing-model.",
            hidden=True,
            api=False,
            same_as="pricing_model",
        ),
        Field(
            "provider",
            "names",
            "Provider, e.g. aws, runpod (repeat or comma list).",
            query="providers",
            check="named",
        ),
        INSTANCE,
        Field(
            "min_memory",
            "float",
            "At least this much memory per chip, GB.",
            query="min_memory_gb",
            check="number",
        ),
        Field(
            "min_vcpus",
            "float",
            "At least this many vCPUs per instance (offers whose source publishes none are "
            "left out).",
            query="min_vcpus",
            check="number",
        ),
        Field(
            "min_ram",
            "float",
            "At least this much instance memory, GB (offers whose source publishes none are "
            "left out).",
            query="min_ram_gb",
            check="number",
        ),
        Field(
            "chips",
            "names",
            "Chips per instance: 8 (or 1,8).",
            query="chip_counts",
            check="counts",
            api_type=float | list[float] | None,
        ),
        Field(
            "min_price",
            "float",
            "At least this many USD per chip-hour.",
            query="min_price",
            check="number",
        ),
        Field(
            "max_price",
            "float",
            "At most this many USD per chip-hour.",
            query="max_price",
            check="number",
        ),
        Field(
            "spot",
            "switch",
            "Only spot prices, or none of them (default: all).",
            query="spot",
            check="switch",
        ),
        Field(
            "sort",
            "text",
            "Order by price, chip, provider or region (default: price for a family such as "
            "H100, else chip).",
            query="sort",
            check="sort",
            narrows=False,
        ),
        Field(
            "by",
            "text",
            "One row per chip and provider (provider) or per provider and region (region): "
            "the cheapest on-demand, spot and commitment price per chip side by side.",
            api=False,
        ),
        Field(
            "per",
            "text",
            "Prices per hour (the default), month (730 hours) or year (8,760 hours).",
            api=False,
        ),
        CURRENCY,
        LIST_PRICES,
        LIMIT,
        WIDE,
        Field(
            "format",
            "price-format",
            f"{FORMAT_HELP}, or focus (CSV under the FinOps FOCUS column names, docs/focus.md).",
            "table",
            api=False,
        ),
        DB,
    ),
)

COST = Question(
    "cost",
    "Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first.",
    (
        _MODEL,
        _WORKLOAD,
        Field("chip", "names", "Only this chip or family: H200, H100, Trainium (repeat or comma "
              "list)."),
        Field("tokens", "text", "Cost of processing this many tokens: 300e9 or 300B.",
              api_type=float | str | None),
        Field("baseline", "text", "Chip the savings and break-even compare with (default: "
              f"{DEFAULT_BASELINE})."),
        Field("overhead", "float", "Extra share of chip-hours (default 0.15 training, 0 "
              "inference)."),
        Field("migration_cost", "text", "One-off cost of moving off the baseline, USD: 36000.",
              api_type=float | str | None),
        Field("daily_tokens", "text", "Tokens per day, for break-even in days: 1e9 or 1B.",
              api_type=float | str | None),
        SPEED,
        _ONLY_REGION,
        ONLY_PRICING_MODEL,
        _ONLY_PROVIDER,
        INSTANCE._replace(query=None, check=None),
        Field("all_offers", "flag", "Every offer, not the cheapest per chip, pricing model and "
              "term.", False),
        Field("max_instances", "int", "Drop offers needing more than this many instances to "
              "hold the model.", low=1),
        Field("max_interruption", "text", "Spot offers only where AWS's frequency of "
              "interruption bucket (Spot Instance Advisor) tops out at this percent or less, "
              "e.g. 10%; other spot left out.", api_type=float | str | None),
        CURRENCY,
        LIST_PRICES,
        LIMIT,
        WIDE,
        FORMAT,
        DB,
    ),
)  # fmt: skip

COMPARE = Question(
    "compare",
    "Is chip A cheaper per token than chip B? Per pricing model, with the figures used.\n\n"
    "Both prices, both throughput figures (with their sources and operating points) and the "
    "range the figures chipcost holds allow.",
    (
        Field("chip_a", "argument", "The chip asked about, e.g. Trainium2.", required=True),
        Field("chip_b", "argument", "The chip it is compared with, e.g. H100-SXM.", required=True),
        _MODEL,
        _WORKLOAD,
        SPEED,
        _ONLY_REGION,
        ONLY_PRICING_MODEL,
        _ONLY_PROVIDER,
        CURRENCY,
        LIST_PRICES,
        FORMAT,
        DB,
    ),
)

SQL = Question(
    "sql",
    "Run an ad hoc read-only query against the warehouse.",
    (
        Field("query", "argument", "A read-only SQL query (SELECT ...).", required=True),
        DB,
        FORMAT,
        Field("max_rows", "int", "Rows shown in table format.", 100, low=1, high=MAX_LIMIT),
    ),
)

_DAY = date | datetime | str | None  # the API takes a day as a date or YYYY-MM-DD
_UNTIL = Field("until", "text", "Last day, YYYY-MM-DD.", api_type=_DAY)

HISTORY = Question(
    "history",
    "The cheapest per-chip-hour price per day per pricing model, with a terminal chart.",
    (
        Field(
            "chip",
            "names",
            "Chip or family, e.g. H100-SXM or H100 (repeatable: a chart each).",
            cli_required=True,
            positional=True,
        ),
        Field("provider", "names", "Provider, e.g. aws."),
        Field("region", "names", "Region code, e.g. us-east-1."),
        INSTANCE._replace(query=None, check=None),
        PRICES.field("pricing_model"),
        PRICES.field("model"),
        Field(
            "since",
            "text",
            "First day, YYYY-MM-DD (default: the whole history).",
            api_type=_DAY,
        ),
        _UNTIL,
        CURRENCY,
        PRICES.field("format"),
        Field("no_chart", "flag", "The table only.", False, api=False),
        DB,
    ),
)

INDEX = Question(
    "index",
    "The daily rental price index per chip, with its changes and constituents.\n\n"
    "The level is the median of each provider's cheapest per-chip price "
    "(docs/price-index.md).",
    (
        Field(
            "chip",
            "names",
            "Chip or family (repeatable): its daily index. Default: every chip's latest.",
            positional=True,
        ),
        Field("bucket", "names", "on_demand (default), spot or 1yr (repeat or comma list)."),
        Field(
            "since",
            "text",
            "First day, YYYY-MM-DD (default: 30 days to --until).",
            api_type=_DAY,
        ),
        _UNTIL,
        # The command line shows every chip's latest day unless chips or --since are given.
        Field("latest", "flag", "Each chip's newest day only.", False, cli=False),
        CURRENCY,
        FORMAT,
        DB,
    ),
)

QUESTIONS = {q.command: q for q in (PRICES, COST, COMPARE, SQL, HISTORY, INDEX)}
