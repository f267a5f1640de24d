"""`chipcost throughput add/import/list/remove/model`: the figures cost per token rests on."""

from __future__ import annotations

import csv
import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import click

from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import Db, Format, Limit, Wide
from chipcost.cli.parser import SETTINGS, command
from chipcost.core.clean import from_spreadsheet
from chipcost.core.errors import ChipcostError, NoMatch, UsageError
from chipcost.core.names import shown
from chipcost.core.questions import Opt

if TYPE_CHECKING:  # imported when a command runs: `chipcost --help` stays light
    import duckdb

    from chipcost.core.figures import Figure


# A measurements CSV: what `add` takes, then where and how each point was measured.
IMPORT_COLUMNS = (
    "chip", "model", "workload", "tokens_per_second", "per", "chips", "batch_size", "precision",
    "sequence_length", "mfu", "source", "source_date", "notes", "operating_point", "scenario",
    "tokens_per_second_per_user", "ttft_ms", "tpot_ms", "input_tokens", "output_tokens",
    "concurrency", "software", "system", "stated_as", "source_url", "deployment",
)  # fmt: skip
REQUIRED_COLUMNS = ("chip", "model", "workload", "tokens_per_second")
# What `throughput list --format csv` prints, taken back as it is: its figure per chip, its
# origin (your measurements are recorded; chipcost's references and derived figures are its
# own, left out), the model as published and when each was recorded (the choice rule prefers
# the newest of two measurements alike: a copy keeps which is newer) are read; the rest
# chipcost works out again when the rows are recorded (ids, ranks, implied MFU, the asked
# speed's reading, ranges).
LISTING_READ = ("tokens_per_second_per_chip", "origin", "published_model", "recorded_at")
LISTING_WORKED_OUT = (
    "throughput_id", "kind", "implied_mfu", "usable", "choice_rank", "chosen",
    "set_aside_because", "parameters", "flops_per_token", "peak_tflops",
    "asked_speed", "at_speed", "ttft_bound_ms", "single_stream", "curve", "interpolated",
    "figure_kind", "range_low", "range_high", "superseded", "lower_bound",
)  # fmt: skip
AllowAbovePeak = Annotated[
    bool, Opt("Keep a figure above the chip's dense peak (FP4 or sparsity, say).")
]


def _open_writable(db: Path | None) -> duckdb.DuckDBPyConnection:
    """The warehouse for writing, waiting for another holder like a collection does."""
    from chipcost.core.settings import load_settings
    from chipcost.pipeline.seed import open_warehouse

    settings = load_settings(db=db)
    return open_warehouse(settings.warehouse, wait=settings.lock_wait)


def _store(
    db: Path | None,
    figures: list[Figure],
    allow: bool,
    recorded: list[datetime | None] | None = None,
) -> tuple[dict[str, Figure], set[str], list[str]]:
    """The figures recorded, by their new ids; the ids the choice rule now uses; the ids of
    measurements already recorded that some of `figures` repeat field for field (not
    recorded again: a file imported twice adds nothing). `recorded`: when each figure was
    recorded where a listing says (else now). A model chipcost knew nothing of is noted, with
    the closest it knew (a typo makes a model of its own)."""
    from chipcost.cli.consoles import err
    from chipcost.core.names import did_you_mean
    from chipcost.warehouse.cost_per_token import known_models
    from chipcost.warehouse.throughput_store import add_user_figures, chosen_ids, repeats

    con = _open_writable(db)
    try:
        known = known_models(con)
        repeated = repeats(con, figures)
        fresh = [f for f, old in zip(figures, repeated, strict=True) if old is None]
        when = [w for w, old in zip(recorded or [None] * len(figures), repeated, strict=True)
                if old is None]  # fmt: skip
        ids = add_user_figures(con, fresh, allow_above_peak=allow, recorded=when) if fresh else []
        chosen = chosen_ids(con, ids)
    finally:
        con.close()
    for model in dict.fromkeys(f.model for f in fresh if f.model not in known):
        err.say(
            f"note: {model} is a model chipcost had no figure or size of"
            f"{did_you_mean(model, known)}: `chipcost cost --model {model}` ranks it now",
        )
    stored = dict(zip(ids, fresh, strict=True))
    return stored, chosen, [old for old in repeated if old is not None]


# The CSV columns `add` fills from its options, for its messages.
_OPTIONS = {
    "tokens_per_second": "--tokens-per-second",
    "source_date": "--measured-on",
    "batch_size": "--batch-size",
    "sequence_length": "--sequence-length",
    "mfu": "--mfu",
    "chips": "--chip-count",
    "per": "--figure-per",
    "source": "--citation",
    "tokens_per_second_per_user": "--speed",
    "operating_point": "--operating-point",
}


def add(
    chip: Annotated[str, Opt("Chip measured, e.g. H100-SXM.")],
    model: Annotated[str, Opt("Model, e.g. llama-3-70b.")],
    workload: Annotated[str, Opt("training or inference.")],
    tokens_per_second: Annotated[str, Opt("Tokens/s measured, e.g. 1500.")],
    figure_per: Annotated[str, Opt("What it was measured on: chip or instance.")] = "chip",
    chip_count: Annotated[
        float | None, Opt("Chips in the instance (with --figure-per instance).")
    ] = None,
    batch_size: Annotated[int | None, Opt("Batch size.")] = None,
    precision: Annotated[str | None, Opt("fp8, bf16, ...")] = None,
    sequence_length: Annotated[int | None, Opt("Sequence length.")] = None,
    mfu: Annotated[str | None, Opt("Measured MFU: 0.45 or 45%.")] = None,
    tokens_per_second_per_user: Annotated[
        str | None,
        Opt(flags=("--speed",), help="Inference: tokens/s each user saw (for cost --speed)."),
    ] = None,
    operating_point: Annotated[
        str | None,
        Opt("Inference: max-throughput, latency-bound or fixed-batch."),
    ] = None,
    citation: Annotated[str, Opt("What was run, by whom.")] = "user measurement",
    measured_on: Annotated[str | None, Opt("YYYY-MM-DD (default today).")] = None,
    notes: Annotated[str | None, Opt("Caveats worth keeping.")] = None,
    allow_above_peak: AllowAbovePeak = False,
    db: Db = None,
    # The old spelling, taken for one release with a note (chipcost.cli.parser.Command); --per,
    # --chips and --source are refused naming their new spelling (chipcost.cli.registry.RENAMED).
    per_user: Annotated[
        str | None, Opt("", hidden=True, same_as="tokens_per_second_per_user")
    ] = None,
) -> None:
    """Record a throughput you measured; it wins over every reference for that chip."""
    from chipcost.cli.consoles import out
    from chipcost.cli.reads import resolve_chip
    from chipcost.core.catalog import canonical_chips
    from chipcost.core.figures import speed_value
    from chipcost.transform.references import model_equivalents, model_standing, repo_id_refused
    from chipcost.transform.throughput_figures import figure_from_row

    if refused := repo_id_refused(model):  # a Hugging Face id, what a server serves
        raise UsageError(f"--{refused}")
    if tokens_per_second_per_user:  # as cost and compare print one: '6.9 tok/s per user'
        try:
            tokens_per_second_per_user = speed_value(
                tokens_per_second_per_user, "--speed", model_standing(model)[0]
            )
        except UsageError:
            tokens_per_second_per_user = "max"  # refused below
        if tokens_per_second_per_user == "max":
            raise UsageError(
                "--speed: give the tokens/s each user saw, a number such as 25 or as cost prints "
                "it ('25 tok/s'); a figure at full load is --operating-point max-throughput"
            )
    row = {
        "chip": resolve_chip(chip),
        "model": model,
        "workload": workload,
        "tokens_per_second": tokens_per_second,
        "per": figure_per,
        "chips": f"{chip_count:g}" if chip_count is not None else "",
        "batch_size": "" if batch_size is None else str(batch_size),
        "precision": precision or "",
        "sequence_length": "" if sequence_length is None else str(sequence_length),
        "mfu": mfu or "",
        "tokens_per_second_per_user": tokens_per_second_per_user or "",
        "source": citation,
        "source_date": measured_on or datetime.now(UTC).date().isoformat(),
        "notes": notes or "",
    }
    if operating_point is not None:
        row["operating_point"] = operating_point
    elif tokens_per_second_per_user:
        row["operating_point"] = "latency-bound"
    try:
        figure = figure_from_row(
            row, chips=canonical_chips(), origin="user", throughput_id="new",
            equivalents=model_equivalents(),
        )  # fmt: skip
    except ChipcostError as exc:  # named as the options are, not as the CSV's columns
        field, _, rest = str(exc).partition(" ")
        raise UsageError(f"{_OPTIONS.get(field, field)} {rest}") from None
    stored, chosen, already = _store(db, [figure], allow_above_peak)
    if already:
        out.say(
            f"already recorded as {already[0]}: {figure.chip} {model_named(figure)} "
            f"{figure.workload}, the same figure, point, source and date; nothing recorded"
        )
        return
    (ident,) = stored
    used = (
        "It is now the figure `chipcost cost` uses for this chip, model and workload"
        if ident in chosen
        else "Another measurement of yours, dated later, stays the one `chipcost cost` uses "
        "for this chip, model and workload (see `chipcost throughput list`)"
    )
    out.say(
        f"recorded {ident}: {figure.chip} {model_named(figure)} {figure.workload}, "
        f"{figure.tokens_per_second_per_chip:,.6g} tokens/s per chip (measured). {used}; "
        f"undo with `chipcost throughput remove {ident}`",
    )


def model_named(figure: Figure) -> str:
    """'llama-3-70b (given as llama-3.3-70b)': the model a figure counts for, and the name it
    was given where that stands for it (core/data/model_equivalents.csv)."""
    given = figure.published_model
    return f"{figure.model} (given as {given})" if given else figure.model


def _read_import(path: Path) -> tuple[list[int], list[dict[str, str]], int]:
    """(line numbers, rows as `add` takes them, rows left out) of a measurements CSV, or of
    what `throughput list` printed as csv or json; its columns checked."""
    try:
        listing, lines, rows = _json_rows(path) if _is_json(path) else _csv_rows(path)
    except (OSError, UnicodeDecodeError, csv.Error) as exc:
        raise ChipcostError(f"cannot read {path}: {exc}") from exc
    if not rows:
        raise ChipcostError(f"{path} has a header but no rows")
    if not listing:
        return lines, rows, 0
    kept, problems = [], []
    for line, listed in zip(lines, rows, strict=True):
        try:
            row = _as_added(listed)
        except ChipcostError as exc:
            problems.append(f"line {line}: {exc}")
            continue
        if row is not None:
            kept.append((line, row))
    if problems:
        raise ChipcostError(f"{path} has bad rows (nothing was loaded)", details=problems)
    if not kept:
        raise ChipcostError(
            f"{path} lists no measurement of yours (origin user): chipcost ships and derives "
            "its reference and derived figures itself"
        )
    return [n for n, _ in kept], [row for _, row in kept], len(rows) - len(kept)


def _csv_rows(path: Path) -> tuple[bool, list[int], list[dict[str, str]]]:
    """(whether it is a listing, line numbers, rows) of a CSV, an empty cell a value not given."""
    rows, lines = [], []
    # utf-8-sig: Excel's "CSV UTF-8" starts with a byte-order mark, no part of a column
    with path.open(encoding="utf-8-sig", newline="") as handle:
        reader = csv.DictReader(handle)
        columns = [c.strip() for c in reader.fieldnames or []]
        listing = _check_columns(path, columns)
        try:
            for r in reader:
                if None in r:
                    raise ChipcostError(f"{path}, line {reader.line_num}: more values than columns")
                # a text chipcost's csv defused ("'-5% against ...") is read back as it was
                given = {k.strip(): from_spreadsheet((v or "").strip()) for k, v in r.items() if k}
                rows.append({k: v for k, v in given.items() if v})
                lines.append(reader.line_num)
        except csv.Error as exc:  # a value past the field limit, a NUL byte
            raise ChipcostError(f"{path}, line {reader.line_num + 1}: {exc}") from None
    return listing, lines, rows


# A list of measurements is kilobytes; a file past this is no such list, and is not read.
MAX_JSON_BYTES = 64 << 20


def _is_json(path: Path) -> bool:
    """Whether the file is JSON (what `throughput list --format json` prints starts with '[')."""
    with path.open("rb") as handle:
        head = handle.read(64).removeprefix(b"\xef\xbb\xbf").lstrip()
    return head[:1] in (b"[", b"{")


def _json_rows(path: Path) -> tuple[bool, list[int], list[dict[str, str]]]:
    """(whether it is a listing, line numbers, rows) of a JSON array of objects, as `throughput
    list --format json` prints it: each object's line is the line it starts on, a null is a
    value not given, and a number is written back as the text that reads as it."""
    import json

    if path.stat().st_size > MAX_JSON_BYTES:
        raise ChipcostError(
            f"{path} is over {MAX_JSON_BYTES >> 20} MB: no list of measurements is; give the "
            "rows `chipcost throughput list --origin user --format json` prints"
        )
    text = path.read_text(encoding="utf-8-sig")
    at = _past_space(text, 0)
    if not text.startswith("[", at):
        raise ChipcostError(
            f"{path} is one JSON object, not a list of them: give [{{...}}, {{...}}], as "
            "`chipcost throughput list --format json` prints it"
        )
    decoder, at = json.JSONDecoder(object_pairs_hook=_once_each), at + 1
    objects: list[tuple[int, dict]] = []
    line, counted = 1, 0
    try:
        while True:
            at = _past_space(text, at)
            if text.startswith("]", at):
                break
            line, counted = line + text.count("\n", counted, at), at
            item, at = decoder.raw_decode(text, at)
            if not isinstance(item, dict):
                raise ChipcostError(f"{path}, line {line}: {type(item).__name__}, not an object")
            objects.append((line, item))
            at = _past_space(text, at)
            if text.startswith(",", at):
                at += 1
            elif not text.startswith("]", at):
                raise ValueError(f"',' or ']' expected after the object of line {line}")
    except _NamedTwice as exc:
        raise ChipcostError(f"{path}, line {line}: {exc} in one object") from None
    except (ValueError, RecursionError) as exc:
        said = str(exc)
        if "int_max_str_digits" in said:  # Python's guard against numbers too long to read
            said = "a number of more than 4,300 digits, which no measurement is"
        raise ChipcostError(f"cannot read {path} as JSON: {said[:200]}") from None
    rest = _past_space(text, at + 1)
    if rest < len(text):
        after = line + text.count("\n", counted, rest)
        raise ChipcostError(
            f"{path}, line {after}: more after the list's closing ']'; one list of measurements "
            "a file (join two lists into one)"
        )
    columns = list(dict.fromkeys(k.strip() for _, item in objects for k in item))
    listing = _check_columns(path, columns)
    # the fields read (and the id, for the order new ids are given in); a listing's worked-out
    # ones (its curve, its choice) are checked, not read
    read = (*IMPORT_COLUMNS, *LISTING_READ, "throughput_id")
    rows = [
        {k.strip(): _json_text(path, n, k, v) for k, v in item.items() if k.strip() in read}
        for n, item in objects
    ]
    return listing, [n for n, _ in objects], [{k: v for k, v in r.items() if v} for r in rows]


class _NamedTwice(ValueError):
    """A key given twice in one JSON object (Python's JSON reader keeps the last)."""


def _once_each(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found: dict[str, object] = {}
    for key, value in pairs:
        if key.strip() in found:
            raise _NamedTwice(f"{shown(key.strip(), 40)} given twice")
        found[key.strip()] = value
    return found


def _past_space(text: str, at: int) -> int:
    while at < len(text) and text[at] in " \t\r\n":
        at += 1
    return at


def _json_text(path: Path, line: int, key: str, value: object) -> str:
    """A JSON value as the CSV cell that holds it: null empty, a number as it reads back."""
    if value is None:
        return ""
    if isinstance(value, bool):
        return str(value).lower()
    if isinstance(value, int | float):
        return repr(value)
    if isinstance(value, str):
        if len(value) > csv.field_size_limit():  # what a CSV cell may hold
            raise ChipcostError(
                f"{path}, line {line}: {key} holds {len(value):,} characters, more than a "
                f"value may ({csv.field_size_limit():,})"
            )
        try:
            value.encode("utf-8")
        except UnicodeEncodeError:  # '\ud800': half of a UTF-16 pair, no character
            raise ChipcostError(
                f"{path}, line {line}: {key} holds an unpaired surrogate (\\ud800-\\udfff), "
                "no character"
            ) from None
        return value.strip()
    raise ChipcostError(f"{path}, line {line}: {key} holds a {type(value).__name__}, not a value")


def _check_columns(path: Path, columns: list[str]) -> bool:
    """A header of known columns, each once, with the required ones: a measurements CSV's,
    or what `throughput list --format csv` prints (then True)."""
    listing = "tokens_per_second_per_chip" in columns
    allowed = IMPORT_COLUMNS + (LISTING_READ + LISTING_WORKED_OUT if listing else ())
    required = REQUIRED_COLUMNS
    if listing:
        required = (*REQUIRED_COLUMNS[:3], "tokens_per_second_per_chip", "origin")
    # a column is named only when it could be a column's name: the first line of a file given
    # by mistake (a password file) is not echoed
    unknown = [c if _COLUMN.match(c) else "one that is no column name" for c in columns
               if c not in allowed]  # fmt: skip
    missing = [c for c in required if c not in columns]
    twice = sorted({c for c in columns if columns.count(c) > 1})
    if unknown or missing or twice:
        raise ChipcostError(
            f"{path}: " + "; ".join(
                part for part in (
                    f"unknown column(s) {', '.join(dict.fromkeys(unknown))}" if unknown else "",
                    f"missing column(s) {', '.join(missing)}" if missing else "",
                    f"column(s) named twice: {', '.join(twice)}" if twice else "",
                ) if part
            ) + f". Columns: {', '.join(IMPORT_COLUMNS)} (the first four are required, each "
            "once), or what `chipcost throughput list --format csv` prints"
        )  # fmt: skip
    return listing


_COLUMN = re.compile(r"^[a-z_]{1,40}$")


def _as_added(listed: dict[str, str]) -> dict[str, str] | None:
    """A row `throughput list` printed as `add` takes it; None for a figure not the user's."""
    from chipcost.transform.references import model_equivalents
    from chipcost.transform.throughput_figures import equivalence_note
    from chipcost.transform.tokens import parse_quantity

    if listed.get("origin") != "user":
        return None
    row = {k: v for k, v in listed.items() if k in IMPORT_COLUMNS}
    # when it was recorded, and its id there: the order the new ids are given in
    row["recorded_at"] = listed.get("recorded_at", "")
    row["listed_id"] = listed.get("throughput_id", "")
    per_chip = listed.get("tokens_per_second_per_chip", "")
    chips = listed.get("chips")
    row["per"], row["tokens_per_second"] = "chip", per_chip
    if chips:  # recorded per instance: the chips behind it are part of its point
        total = parse_quantity(per_chip, "tokens_per_second_per_chip")
        total *= parse_quantity(chips, "chips")
        row["per"], row["tokens_per_second"] = "instance", repr(total)
    published = listed.get("published_model")
    rule = model_equivalents().get(published or "")
    if published and rule:
        # recorded as the model it stands for, the name given kept: given again, it says so again
        row["model"] = published
        notes = row.get("notes", "").removeprefix(equivalence_note(published, *rule))
        row["notes"] = notes.strip()
    return row


def import_(
    path: Annotated[
        Path,
        Opt(
            "CSV with a header row, or a JSON list of rows; see docs/cost-per-token.md.",
            kind="argument",
        ),
    ],
    allow_above_peak: AllowAbovePeak = False,
    db: Db = None,
) -> None:
    """Record measurements from a CSV or JSON file: all rows, or none if any row is wrong.

    The file is yours (docs/cost-per-token.md names its columns) or what `chipcost throughput
    list --format csv` (or json) printed: your measurements in it are recorded, chipcost's own
    figures left out."""
    from chipcost.cli.consoles import out
    from chipcost.core.catalog import UNKNOWN_CHIP, canonical_chip, canonical_chips
    from chipcost.transform.references import model_equivalents, repo_id_refused
    from chipcost.transform.throughput_figures import figures_from_rows
    from chipcost.warehouse.throughput_store import repeated_within

    path = Path(path)
    lines, rows, left_out = _read_import(path)
    ids = [(n, repo_id_refused(r.get("model", ""))) for n, r in zip(lines, rows, strict=True)]
    if said := [f"line {n}: {refused}" for n, refused in ids if refused]:
        raise ChipcostError(f"{path} has bad rows (nothing was loaded)", details=said)
    today = datetime.now(UTC).date().isoformat()
    when = [
        _recorded_at(path, n, r.pop("recorded_at", "")) for n, r in zip(lines, rows, strict=True)
    ]
    listed = [_user_number(r.pop("listed_id", "")) for r in rows]
    for row in rows:
        mapped = canonical_chip(row["chip"]) if row["chip"] else UNKNOWN_CHIP
        row["chip"] = mapped if mapped != UNKNOWN_CHIP else row["chip"]  # keep it for the error
        row["source"] = row.get("source") or f"user measurement ({path.name})"
        row["source_date"] = row.get("source_date") or today
    figures = figures_from_rows(
        rows, chips=canonical_chips(), origin="user", where=str(path), lines=lines,
        equivalents=model_equivalents(),
    )  # fmt: skip
    # A row the file gives again, field for field, is not recorded twice: refused as a second
    # import of the file refuses it, naming both lines.
    twice = repeated_within(figures)
    # a JSON list on one line: its rows named by their place in the list
    at = [f"line {n}" for n in lines] if len(set(lines)) == len(lines) else [
        f"row {n + 1}" for n in range(len(lines))]  # fmt: skip
    again = [f"{at[n]} (as {at[first]})" for n, first in enumerate(twice) if first is not None]
    kept = [n for n, first in enumerate(twice) if first is None]
    figures, when, listed = ([x[n] for n in kept] for x in (figures, when, listed))
    # oldest first, as they were recorded (then as they were numbered): the new ids (user-N)
    # keep their order
    order = sorted(range(len(figures)), key=lambda n: (when[n] is None, when[n] or 0, listed[n], n))
    figures, when = [figures[n] for n in order], [when[n] for n in order]
    stored, chosen, already = _store(db, figures, allow_above_peak, when)
    recorded = f": {', '.join(stored)}" if stored else ""
    out.say(f"recorded {len(stored)} measurement(s) from {path}{recorded}")
    if already:
        out.say(
            f"already recorded, not recorded again: {len(already)} row(s) the same field for "
            f"field as {', '.join(already)}"
        )
    if again:
        shown_again = ", ".join(again[:10]) + (
            f" and {len(again) - 10} more" if len(again) > 10 else ""
        )
        out.say(
            f"given twice in {path}, not recorded again: {len(again)} row(s) the same field for "
            f"field as an earlier row: {shown_again}"
        )
    if left_out:
        out.say(
            f"left out {left_out} reference and derived figure(s) the file lists: chipcost "
            "ships and derives those itself"
        )
    unused = [i for i in stored if i not in chosen]
    points = [i for i in unused if stored[i].tokens_per_second_per_user is not None]
    if points:
        speeds = ", ".join(f"{i} to {stored[i].tokens_per_second_per_user:,.3g}" for i in points)
        out.say(
            "not the figure at the default speed, each a point of its curve that `chipcost "
            f"cost` and `compare` read at --speed up to its own: {speeds}"
        )
    if others := [i for i in unused if i not in points]:
        out.say(
            f"not used by `chipcost cost` (another measurement wins the choice rule): "
            f"{', '.join(others)}; see `chipcost throughput list`",
        )


def _user_number(listed_id: str) -> int:
    """N of a listed id user-N (0 where it is none)."""
    found = re.fullmatch(r"user-(\d{1,18})", listed_id.strip())
    return int(found[1]) if found else 0


def _recorded_at(path: Path, line: int, text: str) -> datetime | None:
    """When a listed measurement was recorded, as the listing says (None where it says
    nothing: now); a time that is none, or is still to come, is refused naming its line."""
    if not text.strip():
        return None
    try:
        when = datetime.fromisoformat(text.strip())
    except ValueError:
        when = None
    if when is None or when.tzinfo is None or when > datetime.now(UTC):
        raise ChipcostError(
            f"{path}, line {line}: recorded_at {shown(text, 40)} is not a time past with its "
            "offset, as `chipcost throughput list` prints it (2026-11-27T08:35:14+00:00)"
        )
    return when


def _stored_as(name: str) -> list[str]:
    """The names a model's figures are kept under: llama-3.3-70b's are llama-3-70b's (and any
    recorded under its own name before it stood for llama-3-70b)."""
    from chipcost.transform.references import model_asked
    from chipcost.transform.throughput_figures import normalise_model

    return list(dict.fromkeys((normalise_model(name), model_asked(name)[0])))


def list_(
    model: Annotated[list[str] | None, Opt("Only this model.")] = None,
    chip: Annotated[list[str] | None, Opt("Only this chip or family (H100, Trainium).")] = None,
    workload: Annotated[list[str] | None, Opt("training or inference.")] = None,
    origin: Annotated[list[str] | None, Opt("reference, derived or user.")] = None,
    derived: Annotated[bool, Opt("Include derived figures.")] = False,
    limit: Limit = None,
    wide: Wide = False,
    format: Format = OutputFormat.table,
    db: Db = None,
) -> None:
    """Every throughput figure, the one the choice rule uses first, with where it came from."""
    from chipcost.cli.consoles import notices, out
    from chipcost.cli.formats import write_frame
    from chipcost.cli.render_throughput import print_throughput
    from chipcost.core.asks import DEFAULT_TABLE_ROWS, MAX_LIMIT
    from chipcost.core.names import check_known, resolve_chip_names, split_values
    from chipcost.core.settings import load_settings
    from chipcost.transform.verdict import listing_with_ranges
    from chipcost.warehouse.cost_per_token import throughput_listing
    from chipcost.warehouse.reader import read_connection

    origins = origin or (["reference", "user", "derived"] if derived else ["reference", "user"])
    check_known("origin", split_values(origins, "origin"), ["reference", "user", "derived"])
    check_known("workload", split_values(workload, "workload"), ["training", "inference"])
    settings = load_settings(db=db)
    con = read_connection(settings)
    try:
        frame = throughput_listing(
            con,
            models=[n for m in split_values(model, "model") or [] for n in _stored_as(m)],
            chips=resolve_chip_names(chip),
            workloads=split_values(workload),
            origins=split_values(origins),
        )
    finally:
        con.close()
    frame = listing_with_ranges(frame)
    table = format is OutputFormat.table
    # As `prices --limit`: a table shows DEFAULT_TABLE_ROWS unless given, csv and json all.
    shown = frame.head(limit or DEFAULT_TABLE_ROWS) if table else frame.head(limit or MAX_LIMIT)
    if not table:
        write_frame(format, shown)  # when empty, [] or the header: a pipe still parses
    if frame.is_empty():  # exit 1 in every format, as every read
        raise NoMatch("no throughput figure matches these filters (try --derived)")
    if not table:
        if frame.height > shown.height:
            notices(format).say(f"{frame.height - shown.height} more rows (--limit)")
        return
    print_throughput(out, shown, total=frame.height, wide=wide)


def remove(
    throughput_id: Annotated[str, Opt("Id of your measurement, e.g. user-3.", kind="argument")],
    db: Db = None,
) -> None:
    """Delete one of your measurements (references cannot be removed)."""
    from chipcost.cli.consoles import out
    from chipcost.warehouse.throughput_store import remove_user_figure

    # as `throughput list` prints it, copied with spaces around, or typed in capitals
    throughput_id = throughput_id.strip()
    if re.fullmatch(r"(?i)user-\d+", throughput_id):
        throughput_id = throughput_id.lower()
    con = _open_writable(db)
    try:
        remove_user_figure(con, throughput_id)
    finally:
        con.close()
    out.say(f"removed {throughput_id}")


def model_(
    name: Annotated[str, Opt("Model name, e.g. my-13b.", kind="argument")],
    parameters: Annotated[str, Opt("Parameter count: 13e9 or 13B.")],
    citation: Annotated[str, Opt("Where the count comes from.")] = "user",
    db: Db = None,
) -> None:
    """Give the size of a model of yours, so chipcost can derive its throughput."""
    from chipcost.cli.consoles import out
    from chipcost.pipeline.seed import add_user_model
    from chipcost.transform.throughput_figures import normalise_model
    from chipcost.transform.tokens import human_count, parse_quantity

    model = normalise_model(name)
    count = parse_quantity(parameters, "--parameters")
    con = _open_writable(db)
    try:
        add_user_model(con, model, count, citation)
    finally:
        con.close()
    out.say(
        f"{model}: {human_count(count)} parameters; derived figures now cover it "
        f"(`chipcost throughput list --model {model} --derived`)"
    )


SUMMARY = "Throughput figures: references, derived figures and your own measurements."
throughput = click.Group(
    "throughput",
    {c.name: c for c in map(command, (add, import_, list_, remove, model_))},
    help=SUMMARY,
    short_help=SUMMARY,
    context_settings=SETTINGS,
    no_args_is_help=True,
)
