"""A measurements file read as `chipcost throughput import` takes it: a CSV or JSON list of
your rows, or what `throughput list --format csv` (or json) printed; its columns and values
checked, each refusal naming the file and the line."""

from __future__ import annotations

import csv
import re
from datetime import UTC, datetime
from pathlib import Path

from chipcost.core.clean import from_spreadsheet
from chipcost.core.errors import ChipcostError
from chipcost.core.names import shown

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


def read_import(path: Path) -> tuple[list[int], list[dict[str, str]], int]:
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
        columns = [_column(c) for c in reader.fieldnames or []]
        listing = _check_columns(path, columns)
        try:
            for r in reader:
                if None in r:
                    raise ChipcostError(f"{path}, line {reader.line_num}: more values than columns")
                # a text chipcost's csv defused ("'-5% against ...") is read back as it was
                given = {_column(k): from_spreadsheet((v or "").strip()) for k, v in r.items() if k}
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
    columns = list(dict.fromkeys(_column(k) for _, item in objects for k in item))
    listing = _check_columns(path, columns)
    # the fields read (and the id, for the order new ids are given in); a listing's worked-out
    # ones (its curve, its choice) are checked, not read
    read = (*IMPORT_COLUMNS, *LISTING_READ, "throughput_id")
    rows = [
        {_column(k): _json_text(path, n, k, v) for k, v in item.items() if _column(k) in read}
        for n, item in objects
    ]
    return listing, [n for n, _ in objects], [{k: v for k, v in r.items() if v} for r in rows]


class _NamedTwice(ValueError):
    """A key given twice in one JSON object (Python's JSON reader keeps the last)."""


def _once_each(pairs: list[tuple[str, object]]) -> dict[str, object]:
    found: dict[str, object] = {}
    for key, value in pairs:
        if _column(key) in found:
            raise _NamedTwice(f"{shown(_column(key), 40)} given twice")
        found[_column(key)] = value
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


def _column(name: str) -> str:
    """A column as the header gives it, read as chipcost names them: `Chip ` is chip."""
    return name.strip().lower()


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


def user_number(listed_id: str) -> int:
    """N of a listed id user-N (0 where it is none)."""
    found = re.fullmatch(r"user-(\d{1,18})", listed_id.strip())
    return int(found[1]) if found else 0


def recorded_at(path: Path, line: int, text: str) -> datetime | None:
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
