"""Whether the user's endpoint serves the model `chipcost measure` records: the name it lists
(GET /v1/models, or --served-model) and the name its answers carry (a chat completion's
`model`), each read as chipcost names models. A name that is a model chipcost knows
(core/data/models.csv, or a name standing for one by model_equivalents.csv, a Hugging Face
id's organisation and tuning cut off) must be the model measured; a name it cannot read a model
from must state no other size ('my-8b' is no 70B model) and name no other family of models
chipcost knows ('qwen-prod' is no Llama), and one stating a size must name the measured model's
family too ('mistral-70b', 'falcon-70b' or 'prod-70b' is no Llama 3 70B by its size alone;
'Hermes-3-Llama-3.1-70B' may be): only an alias stating nothing ('prod', 'test-model') is taken
on trust. Whatever the name, it must not state another version of the family ('Llama-2-70b' is
no Llama 3 70B, though model_equivalents.csv lets a published Llama 2 figure stand for one) nor
two sizes ('llama-3-70b-distilled-to-8b'). Anything else is refused in one line before the load:
a figure recorded under another model's name would price that model at this one's speed."""

from __future__ import annotations

import json
import re
import unicodedata
from decimal import Decimal
from typing import NamedTuple

import httpx

from chipcost.core.errors import UsageError
from chipcost.core.names import shown
from chipcost.core.questions import COMMAND_LINE
from chipcost.pipeline.endpoint import MODELS_TIMEOUT, Endpoint, _headers, _whole_within
from chipcost.transform.references import model_equivalents, model_rows, model_standing, repo_cut
from chipcost.transform.throughput_figures import normalise_model

# A parameter count in a name: '70b', '8b', '1.5b', '8x7b', '135m', '1t', read as a number, so
# '0.07t' is 70B and '70m' is not ('a3b', an active count, is not one; nor is '128k', a context).
# Written as people write it too: '8-b', '8 B', '8bn', '8billion', glued to a word before it
# ('instruct8b': two letters or more, so 'a3b' stays an active count) or to one after it that
# names a variant ('8binstruct'), in full-width digits ('８b', read as NFKC reads them).
_SIZE = re.compile(
    r"(?:(?<![a-z0-9.])|(?<=[a-z]{2}))((?:\d+x)?)(\d+(?:\.\d+)?)-?"
    r"(billion|million|trillion|bn|mn|tn|[mbt])(?=(?:instruct|chat|base|hf)?(?![a-z0-9]))"
)
_UNITS = {"m": 6, "b": 9, "t": 12}  # powers of ten, by the unit's first letter
# A family of models: the letters a model's name opens with ('llama' of 'llama-3-70b', 'qwen' of
# 'qwen3-32b'), and any run of letters in a served name ('llama' in 'Hermes-3-Llama-3.1-70B').
_LETTERS = re.compile(r"[a-z]+")
# The answer to one token read no further than this: an answer naming its model is a few KB.
MAX_ANSWER_BYTES = 1 << 20
# What the endpoint is asked to answer, one token of it, to read the model its answers name.
ASKED = {"messages": [{"role": "user", "content": "Say hello."}], "max_tokens": 1}


def named_model(name: str) -> str | None:
    """The model chipcost keeps figures of that a served name names: 'llama-3-8b' ->
    'llama-3-8b', 'meta-llama/Llama-3.3-70B-Instruct' -> 'llama-3-70b'; None for a name that
    names no model chipcost knows."""
    known = {str(m["model"]) for m in model_rows()}
    for candidate in (name.rsplit("/", 1)[-1], repo_cut(name)[0]):
        standing, _ = model_standing(candidate)
        if standing in known:
            return standing
    return None


def _sizes(name: str) -> dict[tuple[str, Decimal], str]:
    """The parameter counts a name states, each as (experts, count) -> as written, upper case:
    'llama-3-70b' -> {('', 70e9): '70B'}; 'mixtral-8x7b' -> {('8x', 7e9): '8X7B'}."""
    sizes = {}
    plain = unicodedata.normalize("NFKC", name.rsplit("/", 1)[-1])
    for experts, count, unit in _SIZE.findall(normalise_model(plain)):
        parameters = Decimal(count).scaleb(_UNITS[unit[0]]).normalize()
        sizes[experts, parameters] = f"{experts}{count}{unit[0]}".upper()
    return sizes


def _generations(name: str, kin: str) -> set[str]:
    """The generations of family `kin` a name states: the whole number of the version after the
    family's name ('Llama-3.1-70B' -> {'3'}, 'llama2-70b' -> {'2'}, 'deepseek-v3' -> {'3'});
    a point release is its generation's (model_equivalents.csv has Llama 3.1 and 3.3 70B stand
    for Llama 3 70B, the same layers); a count after the name ('llama-70b') is no version."""
    version = re.compile(rf"(?<![a-z]){re.escape(kin)}-?v?(\d+)(?:\.\d+)*(?=-|$)")
    return set(version.findall(normalise_model(name.rsplit("/", 1)[-1])))


def _words(name: str) -> set[str]:
    return set(_LETTERS.findall(normalise_model(name)))


def family(model: str) -> str:
    """The family a chipcost model name opens with: 'llama-3-70b' -> 'llama'."""
    found = _LETTERS.match(normalise_model(model))
    return found.group() if found else model


def known_families() -> frozenset[str]:
    """The families of the models chipcost knows: 'llama', 'qwen', 'gemma' ..."""
    return frozenset(family(str(m["model"])) for m in model_rows())


class Other(NamedTuple):
    """What a served name is when it cannot be the model measured: how it reads ('llama-3-8b',
    '8B by its name'), the name --model takes to measure it (None when chipcost has none), and
    whether it states two sizes (then no --model says which model it is)."""

    what: str
    named: str | None
    ambiguous: bool = False


def known_as(name: str) -> str | None:
    """chipcost's name for a served name the catalogue knows, as --model takes it:
    'meta-llama/Llama-2-70b-chat-hf' -> 'llama-2-70b' (which stands for llama-3-70b by
    model_equivalents.csv); None for a name it does not know."""
    known = {str(m["model"]) for m in model_rows()} | set(model_equivalents())
    for candidate in (normalise_model(name.rsplit("/", 1)[-1]), repo_cut(name)[0]):
        if candidate in known:
            return candidate
    return None


def other_model(name: str, model: str, given: str | None = None) -> Other | None:
    """What a served `name` is when it cannot be `model` (chipcost's name for the model
    measured, given on the command line as `given`, 'llama-3.3-70b' for 'llama-3-70b'): None
    when it may be. A model the catalogue does not know (its size given with `model size`) is
    checked by size, version and family."""
    given = given or model
    name = unicodedata.normalize("NFKC", name)  # full-width 'ｌｌａｍａ-２' is llama-2
    said, own = _sizes(name), _sizes(model)
    if len(said) > 1:
        return Other(f"{' and '.join(said.values())} by its name: two sizes", None, True)
    lineage = family(given)
    stated, meant = _generations(name, lineage), _generations(given, lineage)
    if meant and stated - meant:
        plain = known_as(name)
        return Other(plain or f"{lineage} {', '.join(sorted(stated))} by its name", plain)
    named = named_model(name)
    if named is not None and named_model(model) == model:
        return None if named == model else Other(named, named)
    size = f"{', '.join(said.values())} by its name"
    if said and own and not said.keys() & own.keys():
        return Other(size, None)
    words, kin = _words(name), family(model)
    if kin in words:
        return None
    others = sorted((words & known_families()) - {kin})
    if others:
        return Other(f"a {others[0]} model by its name", None)
    if said:
        return Other(f"{size}, no {kin} model", None)
    return None


def refuse_other_model(name: str, model: str, given: str, endpoint: str, how: str) -> None:
    """A UsageError when the endpoint serves `name` (as `how` says: 'lists', 'answers as')
    and that is not `model` (given on the command line as `given`)."""
    other = other_model(name, model, given)
    if other is None:
        return
    served_model = COMMAND_LINE.name("served_model")
    if other.ambiguous:  # no --model can say which of its sizes is served
        advice = f"Give {served_model} a name it serves {model} by that states one size"
    else:
        measure_it = (
            f"{COMMAND_LINE.said('model', other.named)} to measure it"
            if other.named
            else f"the {COMMAND_LINE.name('model')} it serves"
        )
        advice = f"Give {measure_it}, or {served_model} the name it serves {model} by"
    which = f" ({other.what})" if other.what != name else ""
    raise UsageError(
        f"{COMMAND_LINE.said('model', given)}: {endpoint} {how} {shown(name)}{which}, not "
        f"{model}; nothing measured. {advice}"
    )


def answered_model(endpoint: Endpoint, served: str, timeout: float) -> str | None:
    """The model the endpoint's answer to one token of `served` names (a chat completion's or
    its first streamed chunk's `model`); None when no answer names one: a refusal, a redirect,
    a stall, a stream chipcost cannot read (the load's own run says what is wrong with them)."""
    wait = min(timeout, MODELS_TIMEOUT)
    asked = {"model": served, **ASKED, "stream": False}

    def ask() -> str | None:
        with httpx.stream(
            "POST", f"{endpoint.url}/v1/chat/completions", json=asked,
            headers=_headers(endpoint), timeout=wait,
        ) as answer:  # fmt: skip
            if answer.status_code != 200:
                return None
            body = bytearray()
            for chunk in answer.iter_bytes():
                body += chunk
                if (found := model_in(bytes(body))) or len(body) > MAX_ANSWER_BYTES:
                    return found
            return model_in(bytes(body))

    try:
        return _whole_within(wait, ask)
    except httpx.HTTPError:
        return None


def model_in(body: bytes) -> str | None:
    """The `model` of a chat completion, or of the first server-sent chunk naming one; None
    when there is none yet (a stream cut short, a body that is no JSON)."""
    text = body.decode("utf-8", "replace").strip()
    lines = [line.removeprefix("data:").strip() for line in text.splitlines()]
    pieces = lines if text.startswith("data:") else [text]
    for piece in pieces:
        try:
            answer = json.loads(piece)
        except (ValueError, RecursionError):
            continue
        name = answer.get("model") if isinstance(answer, dict) else None
        if isinstance(name, str) and 0 < len(name) <= 256 and name.isprintable():
            return name
    return None
