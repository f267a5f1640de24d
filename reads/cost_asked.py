"""What `cost` and `compare` were asked (the fields of chipcost.core.asks.COST and
COMPARE), checked in the asker's words, and made into the ranking to run (Ask): the model,
workload, chips and baseline resolved against the warehouse, the point, the quantities of a
cost question.

The command, the fast-start path and the Python API hand over the same values by the same
names; only the Voice differs (`--speed 9x` on the command line, `speed '9x'` from Python).
"""

from __future__ import annotations

import re
from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from typing import Any

import duckdb

from chipcost.core.asks import COST, DEFAULT_BASELINE
from chipcost.core.commands import figure_added, model_size
from chipcost.core.errors import ChipcostError, UsageError
from chipcost.core.figures import DEFAULT_SPEED, shape_value, speed_value, ttft_value
from chipcost.core.questions import Voice
from chipcost.core.settings import DEFAULT_STALE_DAYS
from chipcost.reads.your_prices import YourPrices
from chipcost.transform.cost import (
    CostQuestion,
)
from chipcost.warehouse.cost_per_token import (
    Point,
    chips_with_prices,
    figures,
)

# `chipcost cost`'s voice: the asker a ranking has unless another is given (the API's).
COST_COMMAND = Voice(COST)


@dataclass(frozen=True)
class Ask:
    """The ranking asked for: a model and workload, optionally narrowed."""

    model: str
    workload: str
    chips: list[str]
    baseline: str
    baseline_given: bool
    filters: dict[str, list[str] | None] = field(default_factory=dict)
    all_offers: bool = False
    limit: int = 200
    stale_days: int = DEFAULT_STALE_DAYS
    speed: str = DEFAULT_SPEED  # 'max' or tokens/s per user (core.figures.speed_value)
    ttft: float | None = None  # the TTFT bound in ms; None: the default per request shape
    shape: tuple[int, int] | None = None  # (input, output tokens) asked; None: any
    precision: str | None = None  # the precision class asked ('FP8'); None: any
    max_instances: int | None = None  # drop offers needing more instances to hold the model
    mine: YourPrices = field(default_factory=YourPrices)  # your discounts and currency
    # Spot offers only where AWS's interruption bucket tops out at this percent or less.
    max_interruption: float | None = None
    voice: Voice = COST_COMMAND  # names the fields in messages as the asker did
    model_note: str | None = None  # the model asked stands for `model` (model_equivalents.csv)
    encoder: bool = False  # `model` decodes no token after another: --speed does not apply
    # Of every offer (all_offers), only the cheapest of those alike (ALIKE) are ranked: the
    # reader takes each chip's cheapest per pricing model and term (the articles' answers).
    cheapest_alike: bool = False

    @property
    def point(self) -> Point:
        """The point each chip's figure is chosen at."""
        return Point(self.speed, self.ttft, self.shape, self.precision)


def interruption_percent(
    value: object, option: str = COST.field("max_interruption").option
) -> float | None:
    """'10%', '10' or 10 -> 10.0: a frequency of interruption, in percent (0 to 100); a bucket
    as tables print it is its top: '5-10%' 10, '<5%' 5, '>20%' 100 (any)."""
    if value is None:
        return None
    text = str(value).strip().removesuffix("%").replace(" ", "")
    bucket = re.fullmatch(r"(<|>|\d+(?:\.\d+)?-)(\d+(?:\.\d+)?)", text)
    if bucket:
        text = "100" if bucket[1] == ">" else bucket[2]
    try:
        number = float(text) if not isinstance(value, bool) else -1
    except ValueError:
        number = -1
    if not 0 <= number <= 100:
        raise UsageError(
            f"{option} {value!r}: give a percent from 0 to 100, e.g. 10%, or one of AWS's "
            "buckets, which is its top (<5%, 5-10%, 10-15%, 15-20%, >20%)"
        )
    return number


def every_offer(ask: Ask) -> Ask:
    """The ranking of every chip's every offer under `ask`'s model, workload, speed, filters
    and prices, without a limit: the one ranking narrower asks are taken from (taken_from)."""
    return replace(
        ask, chips=[], baseline_given=False, all_offers=True, limit=10**9, max_instances=None
    )


def workload_name(value: object, option: str = "workload") -> str:
    """'Inference ' -> 'inference'; anything but training or inference is refused."""
    from chipcost.core.figures import WORKLOADS

    name = value.strip().lower() if isinstance(value, str) else value
    if name not in WORKLOADS:
        raise UsageError(f"{option} {value!r}: use training or inference")
    return str(name)


def baseline_chip(name: object, option: str = "baseline") -> str:
    """The one chip savings are shown against: a chip or its spelling, never a family."""
    from chipcost.core.names import resolve_chip_name

    if not isinstance(name, str):
        raise UsageError(f"{option} {name!r}: give one chip, e.g. H100-SXM")
    if not name.strip():
        raise UsageError(f"the {option} is empty: give one chip, e.g. H100-SXM")
    chips = resolve_chip_name(name)
    if len(chips) > 1:
        raise family_refused(option, name, chips)
    return chips[0]


def family_refused(option: str, name: str, chips: list[str]) -> UsageError:
    """Where one chip is asked for: a family's name names several."""
    return UsageError(
        f"{option} {name!r} is a family ({', '.join(chips)}): pick one chip, e.g. {chips[0]}"
    )


def resolve_chips(
    con: duckdb.DuckDBPyConnection, names: list[str] | str | None, model: str, workload: str
) -> list[str]:
    """Chips for typed names: a chip stays (rank_cost says if it has no price or figure); a
    family (H100, Trainium) becomes its members with a price and a throughput figure."""
    from chipcost.core.names import resolve_chip_name, split_values

    both: set[str] | None = None  # read only for a family: two queries rank_cost runs again
    chips: list[str] = []
    for name in split_values(names, "chip name") or []:
        members = resolve_chip_name(name)
        if len(members) > 1:
            if both is None:
                priced = chips_with_prices(con)
                both = set(priced) & set(figures(con, model, workload).chips())
            members = [c for c in members if c in both]
            if not members:
                raise ChipcostError(
                    f"no {name} chip ({', '.join(resolve_chip_name(name))}) has a current price "
                    f"and a throughput for {model} {workload}"
                )
        chips += [c for c in members if c not in chips]
    return chips


def resolve_model(con: duckdb.DuckDBPyConnection, name: str) -> tuple[str, str | None]:
    """(the model as stored, a note when the name asked stands for it: llama-3.3-70b is
    answered with llama-3-70b's figures), or a message saying how to give chipcost what it
    lacks."""
    from chipcost.transform.throughput_figures import no_model, normalise_model
    from chipcost.warehouse.cost_per_token import known_models

    model = normalise_model(name)
    known = known_models(con)
    if model in known:
        return model, None
    from chipcost.core.names import cut, did_you_mean, shown

    if not model:
        raise UsageError(
            f"{no_model(name)}; give one such as llama-3-70b. Known models: "
            f"{', '.join(known) or 'none'}"
        )
    from chipcost.transform.references import EQUIVALENTS_FILE, model_standing, name_cut
    from chipcost.transform.tokens import parameters_in_name

    # A Hugging Face id (meta-llama/Llama-3.3-70B-Instruct), or its name without the
    # organisation (Llama-3.3-70B-Instruct), holds a model (llama-3.3-70b), which may stand for
    # another (llama-3-70b): chipcost's or one you recorded figures of.
    repo = "/" in name
    plain, release, parts = name_cut(name)
    if not repo and plain == model:
        plain = None  # nothing cut: the name is the model's own
    standing, why = model_standing(plain or name)
    if standing != model and standing in known:
        # why a model stands for another is one lookup away, with its sources: the note is short
        rule = f"the figures of {standing}, the model it stands for ({EQUIVALENTS_FILE} says why)"
        if plain is None:
            return standing, f"{model} is answered with {rule}"
        if repo:
            said = f"{name.strip()} is a Hugging Face id of {plain}"
            read = _not_asked(parts) + ([_released(release)] if release else [])
        else:
            said = f"{name.strip()} is {plain}"
            read = _read_as(parts, release)
        said += f" ({'; '.join(read)})" if read else ""
        return standing, said + (f", answered with {rule}" if why else "")
    # A model chipcost holds nothing of: named as a figure would record it, an id's with what
    # names no layer cut; a name without an organisation as given ('acme-chat' may be a model
    # of its own: nothing is guessed of a model chipcost does not know).
    how = f" (the Hugging Face id {shown(name.strip())})" if repo else ""
    model = plain if repo and plain else model
    # The example fits the model named: its own size where its name states one, else none.
    size = parameters_in_name(model) or "N"
    raise UsageError(
        f"no throughput for model {shown(model)}{how}{did_you_mean(model, _names(known))}: it "
        "has no reference figure, no measurement and no parameter count to derive one from. "
        f"Record a measurement with `{figure_added(model=cut(model))} ...`, or its size with "
        f"`{model_size(cut(model), size)}`"
        f"{'' if size != 'N' else ' (N: its parameter count)'}. "
        f"Known models: {', '.join(known) or 'none'}"
    )


def _released(release: str) -> str:
    """What a release tag cut says (a Hugging Face id's, with its organisation or without)."""
    return f"release {release}: new weights of its layers, read with its figures"


def _read_as(parts: tuple[str, ...], release: str | None) -> list[str]:
    """How a name without its organisation was read: 'its -instruct cut: the same layers',
    'release 2507: new weights of its layers, read with its figures', and of a storage
    precision cut ('-fp8') that it is not the figures' precision unless asked."""
    said = [f"its {' and '.join(parts)} cut: the same layers"] if parts else []
    return said + _not_asked(parts) + ([_released(release)] if release else [])


def _not_asked(parts: tuple[str, ...]) -> list[str]:
    """'FP8 not asked of the figures: --precision fp8 asks it', of each storage precision a
    name's cut parts hold."""
    from chipcost.core.questions import COMMAND_LINE
    from chipcost.transform.references import STORED_AS

    stored = dict.fromkeys(  # '-fp8-kv' and '-fp8' are both FP8 weights
        part.removeprefix("-").split("-")[0] for part in parts if part in STORED_AS
    )
    return [
        f"{kind.upper()} not asked of the figures: {COMMAND_LINE.name('precision')} {kind} asks it"
        for kind in stored
    ]


def _names(known: list[str]) -> list[str]:
    """The names a model asked may be a slip of: the models known and those standing for one
    (model_equivalents.csv: deepseek-r1-distill-llama-70b for llama-3-70b)."""
    from chipcost.transform.references import model_equivalents

    return [*known, *(n for n, (target, _) in model_equivalents().items() if target in known)]


def _unsigned(money: object, currency: str, voice: Voice) -> object:
    """'$36,000', '€36,000' or 'EUR 36,000', as outputs print money, without its sign
    (parse_quantity reads the commas): the ranking's currency's sign or code, never
    another's."""
    from chipcost.transform.tokens import SYMBOLS

    if not isinstance(money, str):
        return money
    text = money.strip()
    if text.upper().startswith(currency) or text.upper().endswith(currency):  # 'CHF 36,000'
        return text.upper().removeprefix(currency).removesuffix(currency).strip()
    for code, sign in SYMBOLS.items():
        for mark in (sign, code):
            if text.upper().startswith(mark):
                text = text[len(mark) :].strip()
            elif text.upper().endswith(mark):
                text = text[: -len(mark)].strip()
            else:
                continue
            if code != currency:
                raise UsageError(
                    f"{voice.said('migration_cost', repr(money))} is in {code}, the ranking in "
                    f"{currency}: give it in {currency}, or ask for the ranking in {code} "
                    f"({voice.said('currency', code)})"
                )
            return text
    return text


def cost_question(
    workload: str,
    tokens: object = None,
    overhead: object = None,
    migration_cost: object = None,
    daily_tokens: object = None,
    *,
    currency: str | None = None,
    voice: Voice = COST_COMMAND,
) -> CostQuestion:
    """What was asked beyond the ranking, checked; messages name the fields as the asker did
    (`voice`: --daily-tokens on the command line, daily_tokens= from Python)."""
    from chipcost.transform.cost import DEFAULT_OVERHEAD
    from chipcost.transform.tokens import parse_quantity

    def quantity(value: object, field: str, *examples: str) -> float | None:
        if value is None:
            return None
        if isinstance(value, bool) or not isinstance(value, str | int | float):
            value = str(value)  # refused as text (the Python API's tokens=[3e11])
        number = parse_quantity(value, voice.name(field), *examples)
        if number > _MOST[field]:  # 1e308 tokens filled the table with 300-digit dollars
            raise UsageError(
                f"{voice.said(field, str(value))}: {_MOST_SAID[field]}; give at most "
                f"{_MOST[field]:.0e}".replace("e+", "e")
            )
        return number

    if daily_tokens is not None and migration_cost is None:
        raise UsageError(
            f"{voice.option('daily_tokens')} is for the break-even: give "
            f"{voice.option('migration_cost')} too"
        )
    fraction = DEFAULT_OVERHEAD[workload]
    if isinstance(overhead, int | float) and not isinstance(overhead, bool) and 0 <= overhead <= 10:
        fraction = float(overhead)
    elif overhead is not None:
        number = isinstance(overhead, int | float) and not isinstance(overhead, bool)
        given = f"{overhead:g}" if number else repr(overhead)
        raise UsageError(f"{voice.said('overhead', given)}: give a fraction, e.g. 0.15 for 15%")
    code = (currency or "USD").strip().upper()
    money = f"250000, '250K' or 2.5e5 ({code})" if voice.api else f"250000, 250K or 2.5e5 ({code})"
    return CostQuestion(
        tokens=quantity(tokens, "tokens"),
        overhead=fraction,
        migration_cost=quantity(_unsigned(migration_cost, code, voice), "migration_cost", money),
        daily_tokens=quantity(daily_tokens, "daily_tokens"),
        currency=code,
    )


# The largest quantities a cost question takes: a quintillion tokens is some 60,000 times the
# 15 trillion Llama 3 was trained on; a quadrillion dollars is more than the world makes in a
# decade.
_MOST = {"tokens": 1e18, "daily_tokens": 1e18, "migration_cost": 1e15}


_TOKENS_SAID = "more tokens than any workload (Llama 3 was trained on 15 trillion)"


_MOST_SAID = {
    "tokens": _TOKENS_SAID,
    "daily_tokens": _TOKENS_SAID,
    "migration_cost": "more than any move costs (a quadrillion is more than the world makes "
    "in a decade)",
}


def ask_of(
    con: duckdb.DuckDBPyConnection,
    model: str,
    workload: str,
    *,
    chip: list[str] | str | None,
    baseline: str,
    baseline_given: bool,
    region: list[str] | str | None,
    pricing_model: list[str] | str | None,
    provider: list[str] | str | None,
    all_offers: bool,
    instance: list[str] | str | None = None,
    limit: int,
    stale_days: int,
    speed: str = DEFAULT_SPEED,
    ttft: float | None = None,
    shape: tuple[int, int] | None = None,
    precision: str | None = None,
    max_instances: int | None = None,
    mine: YourPrices | None = None,
    max_interruption: float | None = None,
    voice: Voice = COST_COMMAND,
) -> Ask:
    """The ranking asked for, its names resolved against the warehouse (the command and the
    Python API ask alike)."""
    from chipcost.reads.price_ask import checked_filters
    from chipcost.warehouse.cost_per_token import is_encoder

    name, model_note = resolve_model(con, model)
    return Ask(
        model=name,
        model_note=model_note,
        encoder=workload == "inference" and is_encoder(con, name),
        workload=workload,
        chips=resolve_chips(con, chip, name, workload),
        baseline=baseline,
        baseline_given=baseline_given,
        filters=checked_filters(con, region, pricing_model, provider, instance, voice),
        all_offers=all_offers,
        limit=limit,
        stale_days=stale_days,
        speed=speed,
        ttft=ttft,
        shape=shape,
        precision=precision,
        max_instances=_max_instances(max_instances),
        mine=mine or YourPrices(),
        max_interruption=max_interruption,
        voice=voice,
    )


def _max_instances(value: object) -> int | None:
    if value is None:
        return None
    if isinstance(value, bool) or not isinstance(value, int) or value < 1:
        raise UsageError(f"max instances {value!r}: give a whole number of instances, 1 or more")
    return value


def checked(asked: Mapping[str, Any], voice: Voice) -> dict[str, Any]:
    """The values a ranking needs that can be checked before the warehouse is opened: the
    model named, the workload, the baseline chip (and whether it was given), the speed and
    the most interruption; the rest as given."""
    model = asked["model"]
    if not isinstance(model, str) or not model.strip():
        said = voice.said("model", repr(model))
        raise UsageError(f"{said}: give a model name, e.g. 'llama-3-70b'")
    baseline = asked.get("baseline")
    # compare's baseline is its chip B, checked as such; it takes no --max-interruption
    declared = voice.takes
    return {
        **asked,
        "workload": workload_name(asked["workload"], voice.name("workload")),
        "baseline": baseline_chip(
            DEFAULT_BASELINE if baseline is None else baseline,
            voice.name("baseline") if declared("baseline") else "chip B",
        ),
        "baseline_given": baseline is not None,
        "speed": speed_value(asked["speed"], voice.name("speed"), _standing(model)),
        "ttft": ttft_value(asked.get("ttft"), voice.name("ttft")),
        **_point(asked, voice),
        "max_interruption": interruption_percent(
            asked["max_interruption"], voice.name("max_interruption")
        )
        if declared("max_interruption")
        else None,
    }


# What each of inference's own options is, as its refusal for training says it.
_INFERENCE_ONLY = {
    "speed": "a per-user speed of inference: training figures are at their one point",
    "ttft": "a time to first token of inference: training figures are at their one point",
    "shape": "a request shape of inference: training figures are at their sequence length",
}


def _point(asked: Mapping[str, Any], voice: Voice) -> dict[str, Any]:
    """The request shape and precision class asked for (None: any), checked: a shape, a speed
    and a time to first token are inference's only."""
    from chipcost.transform.precision import precision_asked

    shape = shape_value(asked.get("shape"), voice.name("shape"))
    if workload_name(asked["workload"], "") == "training":
        for name, what in _INFERENCE_ONLY.items():
            if asked.get(name) is not None:
                raise UsageError(
                    f"{voice.name(name)} is {what}; leave {voice.name(name)} out for training"
                )
    return {
        "shape": shape,
        "precision": precision_asked(asked.get("precision"), voice.name("precision")),
    }


def _standing(model: str) -> str:
    """The model whose figures answer for `model` as asked (a Hugging Face id's, with its
    organisation or without, an equivalent's: llama-3.3-70b is answered with llama-3-70b's),
    whose MLPerf bounds a named speed is (chipcost.core.figures.MLPERF_BOUNDS)."""
    from chipcost.transform.references import (
        model_equivalents,
        model_rows,
        model_standing,
        repo_cut,
    )
    from chipcost.transform.throughput_figures import normalise_model

    named = {str(m["model"]) for m in model_rows()} | set(model_equivalents())
    as_named = "/" not in model and normalise_model(model) in named  # nothing to cut
    return model_standing(model if as_named else repo_cut(model)[0])[0]


def question(asked: Mapping[str, Any], voice: Voice) -> CostQuestion:
    """What `cost` asks beyond the ranking (tokens, overhead, break-even), checked; `asked`
    as `checked` returns it."""
    daily = asked["daily_tokens"]
    return cost_question(
        asked["workload"],
        asked["tokens"],
        asked["overhead"],
        asked["migration_cost"],
        daily if voice.api else (daily or None),  # a blank --daily-tokens is none
        currency=_currency(asked.get("currency")),
        voice=voice,
    )


def _currency(asked: object) -> str | None:
    """The ranking's currency as the read takes it (chipcost.reads.your_prices): the one
    asked, else $CHIPCOST_CURRENCY's; the migration cost is in it."""
    from chipcost.core.settings import CURRENCY_ENV, process_variable

    if asked is not None:
        return asked if isinstance(asked, str) else None  # refused by the read, naming it
    return process_variable(CURRENCY_ENV) or None


def ranking(
    con: duckdb.DuckDBPyConnection,
    asked: Mapping[str, Any],
    voice: Voice,
    *,
    limit: int,
    stale_days: int,
) -> Ask:
    """The ranking asked for, its names resolved against the warehouse; `asked` as `checked`
    returns it."""
    from chipcost.reads.your_prices import for_read

    return ask_of(
        con,
        asked["model"],
        asked["workload"],
        chip=asked.get("chip"),
        baseline=asked["baseline"],
        baseline_given=asked["baseline_given"],
        region=asked["region"],
        pricing_model=asked["pricing_model"],
        provider=asked["provider"],
        instance=asked.get("instance"),
        all_offers=asked.get("all_offers", False),
        limit=limit,
        stale_days=stale_days,
        speed=asked["speed"],
        ttft=asked.get("ttft"),
        shape=asked.get("shape"),
        precision=asked.get("precision"),
        max_instances=asked.get("max_instances"),
        mine=for_read(con, asked["currency"], asked["list_prices"], voice=voice),
        max_interruption=asked["max_interruption"],
        voice=voice,
    )
