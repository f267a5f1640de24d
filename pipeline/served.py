"""Whether the user's endpoint serves the model `chipcost measure` records: the name it lists
(GET /v1/models, or --served-model) and the name its answers carry (a chat completion's
`model`), each read as chipcost names models. A name that is a model chipcost knows
(core/data/models.csv, or a name standing for one by model_equivalents.csv, a Hugging Face
id's organisation and tuning cut off) must be the model measured; a name it cannot read a model
from must state no other size ('my-8b' is no 70B model) and name no other family of models
chipcost knows ('qwen-prod' is no Llama), and one stating a size must name the measured model's
family too ('mistral-70b', 'falcon-70b' or 'prod-70b' is no Llama 3 70B by its size alone;
'Hermes-3-Llama-3.1-70B' may be): only an alias stating nothing ('prod', 'test-model') is taken
on trust. Anything else is refused in one line before the load: a figure recorded under another
model's name would price that model at this one's speed."""

from __future__ import annotations

import json
import re

import httpx

from chipcost.core.errors import UsageError
from chipcost.core.names import shown
from chipcost.core.questions import COMMAND_LINE
from chipcost.pipeline.endpoint import MODELS_TIMEOUT, Endpoint, _headers, _whole_within
from chipcost.transform.references import model_rows, model_standing, repo_cut
from chipcost.transform.throughput_figures import normalise_model

# A parameter count in a name: '70b', '8b', '1.5b', '8x7b' ('a3b', an active count, is not one).
_SIZE = re.compile(r"(?<![a-z0-9.])((?:\d+x)?\d+(?:\.\d+)?)b(?![a-z0-9])")
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


def _sizes(name: str) -> set[str]:
    return set(_SIZE.findall(normalise_model(name.rsplit("/", 1)[-1])))


def _words(name: str) -> set[str]:
    return set(_LETTERS.findall(normalise_model(name)))


def family(model: str) -> str:
    """The family a chipcost model name opens with: 'llama-3-70b' -> 'llama'."""
    found = _LETTERS.match(normalise_model(model))
    return found.group() if found else model


def known_families() -> frozenset[str]:
    """The families of the models chipcost knows: 'llama', 'qwen', 'gemma' ..."""
    return frozenset(family(str(m["model"])) for m in model_rows())


def other_model(name: str, model: str) -> tuple[str, str | None] | None:
    """(what a served `name` is, the model it names or None) when it cannot be `model`:
    ('llama-3-8b', 'llama-3-8b'), ('8B by its name', None); None when it may be `model`.
    `model` is chipcost's name for the model measured; one the catalogue does not know (its
    size given with `model size`) is checked by size alone."""
    named = named_model(name)
    if named is not None and named_model(model) == model:
        return None if named == model else (named, named)
    said, own = _sizes(name), _sizes(model)
    size = f"{', '.join(s.upper() for s in sorted(said))}B by its name"
    if said and own and not said & own:
        return size, None
    words, kin = _words(name), family(model)
    if kin in words:
        return None
    others = sorted((words & known_families()) - {kin})
    if others:
        return f"a {others[0]} model by its name", None
    if said:
        return f"{size}, no {kin} model", None
    return None


def refuse_other_model(name: str, model: str, given: str, endpoint: str, how: str) -> None:
    """A UsageError when the endpoint serves `name` (as `how` says: 'lists', 'answers as')
    and that is not `model` (given on the command line as `given`)."""
    other = other_model(name, model)
    if other is None:
        return
    what, named = other
    measure_it = (
        f"{COMMAND_LINE.said('model', named)} to measure it"
        if named
        else f"the {COMMAND_LINE.name('model')} it serves"
    )
    which = f" ({what})" if what != name else ""
    raise UsageError(
        f"{COMMAND_LINE.said('model', given)}: {endpoint} {how} {shown(name)}{which}, not "
        f"{model}; nothing measured. Give {measure_it}, or {COMMAND_LINE.name('served_model')} "
        f"the name it serves {model} by"
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
