"""The read commands' questions, declared once, as typed Python signatures.

Each read (`prices`, `cost`, `compare`, `history`, `index`, `sql`) is a function below whose
signature is the question it asks: each keyword, its type, its default and, in `Annotated`
metadata (`Opt`, chipcost.core.questions), its help and where it goes (`query=`, the keyword of
the warehouse query a filter becomes; `check=`, how its value is checked). chipcost.api answers
these signatures (static checkers and IDEs read the API's keywords from them), and the command
line makes its click options of them, with the options only a terminal needs (--format,
--limit, --wide, ...), declared the same way. Adding a filter to `prices` is one keyword here
plus its condition in warehouse.prices' query.

No `from __future__ import annotations`: the annotations are read at import (`fields_of`).
"""

from collections.abc import Sequence
from datetime import date, datetime
from pathlib import Path
from typing import Annotated

from chipcost.core.questions import Opt, Question
from chipcost.core.vocabulary import models_help

# The most rows a command shows: enough for any terminal or script, and a bound that keeps
# a mistyped --limit (99999999999999999999) a clear refusal rather than an overflow.
MAX_LIMIT = 1_000_000
# The most days without a success before a source is stale: --stale-days on every command that
# takes it, $CHIPCOST_STALE_DAYS and the report's threshold (273 years: no limit in practice).
MAX_STALE_DAYS = 99999
# Rows a table shows when --limit is not given (csv and json give every row): a listing's
# (prices) and a ranking's (cost), whose answer is its top and whose every row cites a figure.
DEFAULT_TABLE_ROWS = 200
DEFAULT_RANKING_ROWS = 25
DEFAULT_BASELINE = "H100-SXM"

Names = str | Sequence[str] | None  # a name, a comma list, or a list of names
Day = date | datetime | str | None  # a day as a date or YYYY-MM-DD

# Keywords many reads share.
DB_HELP = (
    "Warehouse: a DuckDB file, or a lake as ducklake:postgres: and its connection string "
    "(default: the variables CHIPCOST_WAREHOUSE, then CHIPCOST_DB, else chipcost.duckdb in "
    "CHIPCOST_DATA_DIR or ./data)."
)
Db = Annotated[str | Path | None, Opt(DB_HELP, kind="db", flags=("--warehouse", "--db"))]
Currency = Annotated[
    str | None,
    Opt(
        "Show prices in this currency (EUR, GBP, JPY, ...) at the ECB reference rate of each "
        "price's own day (default: $CHIPCOST_CURRENCY, else USD)."
    ),
]
ListPrices = Annotated[bool, Opt("Show list prices: your discounts file is set aside.")]
Speed = Annotated[
    float | str | None,
    Opt(
        "Inference: tokens/s per user each chip's figure must reach: a number, server or "
        "interactive (the model's MLPerf bounds; Llama 2 70B's 5, the default, and 25) or max "
        "(maximum throughput).",
        kind="text",
    ),
]
Ttft = Annotated[
    float | str | None,
    Opt(
        "Inference: the time to first token a figure must meet at the speed: 2s, 500ms "
        "(default by request shape: 2 s for prompts up to 2,048 tokens, 6 s beyond).",
        kind="text",
    ),
]
Shape = Annotated[
    str | None,
    Opt(
        "Inference: only figures at this request shape, input/output tokens: 1k/1k, 8k/1k, "
        "1024/8192 (k is 1,024, as InferenceX names its shapes; each length within 10%). "
        "Default: every shape, the verdict drawn at the one both chips share.",
        kind="text",
    ),
]
Precision = Annotated[
    str | None,
    Opt(
        "Only figures served at this precision class: fp8, bf16 (fp16), fp4 or int8. "
        "Default: every precision, the verdict drawn at the one both chips share.",
        kind="text",
    ),
]
Model = Annotated[str, Opt("Model, e.g. llama-3-70b (see `throughput list`).")]
Workload = Annotated[str, Opt("training or inference.")]
OnlyRegion = Annotated[Names, Opt("Only this region, or zone as a row prints it (us-east-2b).")]
OnlyPricingModel = Annotated[Names, Opt(f"Only this pricing model: {models_help()}.")]
OnlyProvider = Annotated[Names, Opt("Only this provider.")]
Instance = Annotated[
    Names,
    Opt("Instance type, e.g. p5.48xlarge, a3-highgpu-8g, ND96isr_H100_v5 (repeat or comma list)."),
]
Until = Annotated[Day, Opt("Last day, YYYY-MM-DD.", kind="text")]


# Options only the command line has (a terminal's or a pipe's): the API returns a DataFrame.
FORMAT_HELP = "table (for people), csv or json (for scripts: stable field names, ISO 8601 times)"
STALE_DAYS_HELP = (
    "A source with no success for this many days is stale (default: $CHIPCOST_STALE_DAYS, else 2)."
)
Limit = Annotated[
    int | None,
    Opt(
        f"Show at most this many rows (table: {DEFAULT_TABLE_ROWS} unless given; csv and json: "
        "all).",
        low=1,
        high=MAX_LIMIT,
    ),
]
RankingLimit = Annotated[
    int | None,
    Opt(
        f"Show at most this many rows (table: {DEFAULT_RANKING_ROWS} unless given; csv and "
        "json: all).",
        low=1,
        high=MAX_LIMIT,
    ),
]
Wide = Annotated[bool, Opt("Every column, however wide the table gets.")]
Format = Annotated[str, Opt(f"{FORMAT_HELP}.", kind="format")]
PriceFormat = Annotated[
    str,
    Opt(
        f"{FORMAT_HELP}, or focus (CSV under the FinOps FOCUS column names, docs/focus.md).",
        kind="price-format",
    ),
]
StaleDays = Annotated[int | None, Opt(STALE_DAYS_HELP, low=1, high=MAX_STALE_DAYS)]


def _amount(help: str, query: str) -> Opt:
    """A number filter of `prices` written as tables print it ('80GB', '$2.50', '1,024'): the
    command line's text (or Python's, or a number), read in its unit by its check
    (chipcost.reads.price_ask)."""
    return Opt(help, kind="text", query=query, check="number", metavar="N")


def prices(
    chip: Annotated[
        Names,
        Opt(
            "Chip or family: H100-SXM, H100 (SXM, PCIe, NVL), A100, Trainium, Hopper. "
            "Repeat it or give a comma list.",
            query="chips",
            check="chips",
        ),
    ] = None,
    *,
    region: Annotated[
        Names,
        Opt(
            "Region code, e.g. us-east-1, or a zone as a row prints it, e.g. us-east-2b (repeat "
            "or comma list).",
            query="regions",
            check="named",
        ),
    ] = None,
    pricing_model: Annotated[Names, Opt(f"{models_help()}.", query="models", check="named")] = None,
    provider: Annotated[
        Names,
        Opt("Provider, e.g. aws, runpod (repeat or comma list).", query="providers", check="named"),
    ] = None,
    instance: Annotated[
        Names, Opt(Instance.__metadata__[0].help, query="instance_types", check="named")
    ] = None,
    min_memory: Annotated[
        float | None,
        _amount("At least this much memory per chip, GB: 80 or 80GB.", "min_memory_gb"),
    ] = None,
    min_vcpus: Annotated[
        float | None,
        _amount(
            "At least this many vCPUs per instance (offers whose source publishes none are "
            "left out).",
            "min_vcpus",
        ),
    ] = None,
    min_ram: Annotated[
        float | None,
        _amount(
            "At least this much instance memory, GB (offers whose source publishes none are "
            "left out).",
            "min_ram_gb",
        ),
    ] = None,
    chip_count: Annotated[
        float | Sequence[float] | str | None,
        Opt(
            "Chips per instance: 8 (or 1,8).",
            kind="names",
            query="chip_counts",
            check="counts",
            metavar="N",
        ),
    ] = None,
    min_price: Annotated[
        float | None,
        _amount(
            "At least this price per chip-hour (or per chip-month or -year), in the currency "
            "and unit the table shows (USD unless --currency): 2.5 or $2.50.",
            "min_price",
        ),
    ] = None,
    max_price: Annotated[
        float | None,
        _amount(
            "At most this price per chip-hour (or per chip-month or -year), in the currency "
            "and unit the table shows (USD unless --currency): 2.5 or $2.50.",
            "max_price",
        ),
    ] = None,
    spot: Annotated[
        bool | None,
        Opt("Only spot prices, or none of them (default: all).", query="spot", check="switch"),
    ] = None,
    sort: Annotated[
        str | None,
        Opt(
            "Order by price, chip, provider or region (default: price for a family such as "
            "H100, else chip).",
            query="sort",
            check="sort",
            narrows=False,
        ),
    ] = None,
    by: Annotated[
        str | None,
        Opt(
            "One row per chip (chip): its cheapest offer anywhere, with where, pricing model, "
            "instance and its count of offers; or per chip and provider (provider) or per "
            "provider and region (region): the cheapest on demand, spot and commitment price "
            "per chip side by side; or every offer, one a row (offer). Default: a table with "
            "no filter, --sort or --limit leads with chip; any of them, and csv, json and "
            "focus, list every offer."
        ),
    ] = None,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
    chips: Annotated[
        float | Sequence[float] | str | None,
        Opt(
            "Old name of chip_count (the API's only: the command line's --chips is measure's).",
            kind="names",
            cli=False,
            hidden=True,
            same_as="chip_count",
        ),
    ] = None,
):  # the API answers it: chipcost.api
    """Current per-chip hourly prices, cheapest first per chip, pricing model and term."""


def _prices_terminal(
    per: Annotated[
        str | None, Opt("Prices per hour (the default), month (730 hours) or year (8,760 hours).")
    ] = None,
    limit: Limit = None,
    wide: Wide = False,
    format: PriceFormat = "table",
    stale_days: StaleDays = None,
): ...


PRICES = Question.of(prices, _prices_terminal)


def cost(
    model: Model,
    workload: Workload,
    *,
    chip: Annotated[
        Names, Opt("Only this chip or family: H200, H100, Trainium (repeat or comma list).")
    ] = None,
    tokens: Annotated[
        float | str | None,
        Opt("Cost of processing this many tokens: 300e9 or 300B.", kind="text"),
    ] = None,
    baseline: Annotated[
        str | None,
        Opt(f"Chip the savings and break-even compare with (default: {DEFAULT_BASELINE})."),
    ] = None,
    overhead: Annotated[
        float | None, Opt("Extra share of chip-hours (default 0.15 training, 0 inference).")
    ] = None,
    migration_cost: Annotated[
        float | str | None,
        Opt("One-off cost of moving off the baseline, USD: 36000.", kind="text"),
    ] = None,
    daily_tokens: Annotated[
        float | str | None,
        Opt("Tokens per day, for break-even in days: 1e9 or 1B.", kind="text"),
    ] = None,
    speed: Speed = None,
    ttft: Ttft = None,
    shape: Shape = None,
    precision: Precision = None,
    region: OnlyRegion = None,
    pricing_model: OnlyPricingModel = None,
    provider: OnlyProvider = None,
    instance: Instance = None,
    all_offers: Annotated[
        bool, Opt("Every offer, not the cheapest per chip, pricing model and term.")
    ] = False,
    max_instances: Annotated[
        int | None,
        Opt("Drop offers needing more than this many instances to hold the model.", low=1),
    ] = None,
    max_interruption: Annotated[
        float | str | None,
        Opt(
            "Spot offers only where AWS's frequency of interruption bucket (Spot Instance "
            "Advisor) tops out at this percent or less, e.g. 10%; other spot left out.",
            kind="text",
        ),
    ] = None,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
):  # the API answers it: chipcost.api
    """Cost per million tokens (and of N tokens) per chip and pricing model, cheapest first."""


def _terminal(
    limit: RankingLimit = None,
    wide: Wide = False,
    format: Format = "table",
    stale_days: StaleDays = None,
): ...


COST = Question.of(cost, _terminal)


def compare(
    chip_a: Annotated[str, Opt("The chip asked about, e.g. Trainium2.", kind="argument")],
    chip_b: Annotated[str, Opt("The chip it is compared with, e.g. H100-SXM.", kind="argument")],
    model: Model,
    workload: Workload,
    *,
    speed: Speed = None,
    ttft: Ttft = None,
    shape: Shape = None,
    precision: Precision = None,
    region: OnlyRegion = None,
    pricing_model: OnlyPricingModel = None,
    provider: OnlyProvider = None,
    currency: Currency = None,
    list_prices: ListPrices = False,
    db: Db = None,
):  # the API answers it: chipcost.api
    """Is chip A cheaper per token than chip B? Per pricing model, with the figures used.

    Both prices, both throughput figures (with their sources and operating points) and the
    range the figures chipcost holds allow."""


def _compare_terminal(
    chart: Annotated[
        bool, Opt("Chart $/M tokens against tokens/s per user for both chips.")
    ] = False,
    wide: Wide = False,
    format: Format = "table",
    stale_days: StaleDays = None,
): ...


COMPARE = Question.of(compare, _compare_terminal)


def history(
    chip: Annotated[
        Names,
        Opt("Chip or family, e.g. H100-SXM or H100 (repeatable: a chart each).", cli_required=True),
    ] = None,
    *,
    provider: Annotated[Names, Opt("Provider, e.g. aws.")] = None,
    region: Annotated[
        Names, Opt("Region code, e.g. us-east-1, or a zone as a row prints it, e.g. us-east-2b.")
    ] = None,
    instance: Instance = None,
    pricing_model: Annotated[Names, Opt(f"{models_help()}.")] = None,
    since: Annotated[
        Day, Opt("First day, YYYY-MM-DD (default: the whole history).", kind="text")
    ] = None,
    until: Until = None,
    currency: Currency = None,
    db: Db = None,
):  # the API answers it: chipcost.api
    """The cheapest per-chip-hour price per day per pricing model, with a terminal chart."""


def _history_terminal(
    no_chart: Annotated[bool, Opt("The table only.")] = False,
    wide: Wide = False,
    format: PriceFormat = "table",
    stale_days: StaleDays = None,
): ...


HISTORY = Question.of(history, _history_terminal)


def index(
    chip: Annotated[
        Names,
        Opt("Chip or family (repeatable): its daily index. Default: every chip's latest."),
    ] = None,
    *,
    pricing_model: Annotated[
        Names,
        Opt(
            "on_demand (default), spot or commitment (any 1-year commitment; repeat or comma list)."
        ),
    ] = None,
    since: Annotated[
        Day, Opt("First day, YYYY-MM-DD (default: 30 days to --until).", kind="text")
    ] = None,
    until: Until = None,
    bucket: Annotated[
        Names, Opt("Old name of --pricing-model.", hidden=True, same_as="pricing_model")
    ] = None,
    # The command line shows every chip's latest day unless chips or --since are given.
    latest: Annotated[bool, Opt("Each chip's newest day only.", cli=False)] = False,
    currency: Currency = None,
    db: Db = None,
):  # the API answers it: chipcost.api
    """The daily rental price index per chip, with its changes and constituents.

    The level is the median of each provider's cheapest per-chip price (docs/price-index.md)."""


def _index_terminal(wide: Wide = False, format: Format = "table", stale_days: StaleDays = None): ...


# Options other reads take that a read does not, and why: said where one is given to it
# (chipcost.cli.parser), as docs/cli.md says it.
_ONE_INDEX = (
    "its level is the median of every provider's cheapest price, so a filter would make "
    "another index, not a narrower view of this one (docs/price-index.md)"
)
NOT_TAKEN = {("index", "--provider"): _ONE_INDEX, ("index", "--region"): _ONE_INDEX}


INDEX = Question.of(index, _index_terminal)


def sql(
    query: Annotated[str, Opt("A read-only SQL query (SELECT ...).", kind="argument")],
    db: Db = None,
):  # the API answers it: chipcost.api
    """Run an ad hoc read-only query against the warehouse."""


def _sql_terminal(
    format: Format = "table",
    limit: Annotated[
        int | None,
        Opt(
            "Show at most this many rows (table: 100 unless given; csv and json: all).",
            low=1,
            high=MAX_LIMIT,
        ),
    ] = None,
    max_rows: Annotated[
        int | None,
        Opt("Old name of --limit.", hidden=True, same_as="limit", low=1, high=MAX_LIMIT),
    ] = None,
    stale_days: StaleDays = None,
): ...


SQL = Question.of(sql, _sql_terminal)

QUESTIONS = {q.command: q for q in (PRICES, COST, COMPARE, SQL, HISTORY, INDEX)}
