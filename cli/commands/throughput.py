"""`chipcost throughput add/import/list/remove/model`: the figures cost per token rests on."""

from __future__ import annotations

import re
from datetime import UTC, datetime
from pathlib import Path
from typing import TYPE_CHECKING, Annotated

import click

from chipcost.cli.commands.throughput_file import read_import, recorded_at, user_number
from chipcost.cli.consoles import print_fitted
from chipcost.cli.fit import Cell, Column, Styled, fit_table, plain
from chipcost.cli.formats import OutputFormat
from chipcost.cli.options import Db, Format, Limit, Wide
from chipcost.cli.parser import SETTINGS, command
from chipcost.cli.render import say_more_rows, shown
from chipcost.core.errors import ChipcostError, NoMatch, UsageError
from chipcost.core.questions import Opt
from chipcost.transform.change_words import AT_LEAST, at_least_note

if TYPE_CHECKING:  # imported when a command runs: `chipcost --help` stays light
    import duckdb
    import polars as pl

    from chipcost.cli.consoles import Screen
    from chipcost.core.figures import Figure


AllowAbovePeak = Annotated[
    bool, Opt("Keep a figure above the chip's dense peak (FP4 or sparsity, say).")
]
NewModel = Annotated[
    bool, Opt("Record a model named close to one chipcost knows as a model of its own.")
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
    new_model: bool = False,
) -> tuple[dict[str, Figure], set[str], list[str]]:
    """The figures recorded, by their new ids; the ids the choice rule now uses; the ids of
    measurements already recorded that some of `figures` repeat field for field (not
    recorded again: a file imported twice adds nothing). `recorded`: when each figure was
    recorded where a listing says (else now). A model chipcost knew nothing of is noted, with
    the closest it knew; one a few letters from a known one is refused unless `new_model`
    (a typo would make a model of its own that no `cost` of the known one reads)."""
    from chipcost.cli.consoles import err
    from chipcost.core.names import close_matches, did_you_mean
    from chipcost.warehouse.cost_per_token import known_models
    from chipcost.warehouse.throughput_store import add_user_figures, repeats

    con = _open_writable(db)
    try:
        known = known_models(con)
        if not new_model:
            for model in dict.fromkeys(f.model for f in figures if f.model not in known):
                if close := close_matches(model, known):
                    raise UsageError(
                        f"model {model!r} is none chipcost knows (did you mean "
                        f"{', '.join(close)}?): nothing recorded; give the model's name as "
                        f"`chipcost throughput list` shows it, or pass --new-model to record "
                        f"{model!r} as a model of its own"
                    )
        repeated = repeats(con, figures)
        fresh = [f for f, old in zip(figures, repeated, strict=True) if old is None]
        when = [w for w, old in zip(recorded or [None] * len(figures), repeated, strict=True)
                if old is None]  # fmt: skip
        ids, chosen = add_user_figures(con, fresh, allow_above_peak=allow, recorded=when)
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
    chip: Annotated[str, Opt("Chip measured, e.g. H100-SXM.", metavar="NAME")],
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
        Opt(
            flags=("--speed",),
            help="Inference: tokens/s each user saw (for cost --speed).",
            metavar="SPEED",
        ),
    ] = None,
    operating_point: Annotated[
        str | None,
        Opt("Inference: max-throughput, latency-bound or fixed-batch."),
    ] = None,
    citation: Annotated[str, Opt("What was run, by whom.")] = "user measurement",
    measured_on: Annotated[str | None, Opt("YYYY-MM-DD (default today).")] = None,
    notes: Annotated[str | None, Opt("Caveats worth keeping.")] = None,
    allow_above_peak: AllowAbovePeak = False,
    new_model: NewModel = False,
    db: Db = None,
    # The old spelling, taken for one release with a note (chipcost.cli.parser.Command); --per,
    # --chips and --source are refused naming their new spelling (chipcost.cli.registry.RENAMED).
    per_user: Annotated[
        str | None, Opt("", hidden=True, same_as="tokens_per_second_per_user")
    ] = None,
) -> None:
    """Record a throughput you measured; it wins over every reference for that chip."""
    from chipcost.cli.consoles import out
    from chipcost.cli.options import resolve_chip
    from chipcost.core.catalog import canonical_chips
    from chipcost.core.figures import SpeedOutOfBounds, speed_value
    from chipcost.transform.references import model_equivalents, model_standing, repo_id_refused
    from chipcost.transform.throughput_figures import figure_from_row

    if refused := repo_id_refused(model):  # a Hugging Face id, what a server serves
        raise UsageError(f"--{refused}")
    if tokens_per_second_per_user:  # as cost and compare print one: '6.9 tok/s per user'
        try:
            tokens_per_second_per_user = speed_value(
                tokens_per_second_per_user, "--speed", model_standing(model)[0]
            )
        except SpeedOutOfBounds:
            raise
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
    stored, chosen, already = _store(db, [figure], allow_above_peak, new_model=new_model)
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
        else "Another figure stays the one `chipcost cost` uses for this chip, model and "
        "workload by the choice rule (a newer run of the same configuration, or a better figure "
        "at the speed: `chipcost throughput list` marks it)"
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


def import_(
    path: Annotated[
        Path,
        Opt(
            "CSV with a header row, or a JSON list of rows; see docs/cost-per-token.md.",
            kind="argument",
        ),
    ],
    allow_above_peak: AllowAbovePeak = False,
    new_model: NewModel = False,
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
    lines, rows, left_out = read_import(path)
    ids = [(n, repo_id_refused(r.get("model", ""))) for n, r in zip(lines, rows, strict=True)]
    if said := [f"line {n}: {refused}" for n, refused in ids if refused]:
        raise ChipcostError(f"{path} has bad rows (nothing was loaded)", details=said)
    today = datetime.now(UTC).date().isoformat()
    when = [
        recorded_at(path, n, r.pop("recorded_at", "")) for n, r in zip(lines, rows, strict=True)
    ]
    listed = [user_number(r.pop("listed_id", "")) for r in rows]
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
    stored, chosen, already = _store(db, figures, allow_above_peak, when, new_model)
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


def _stored_as(name: str) -> list[str]:
    """The names a model's figures are kept under: llama-3.3-70b's are llama-3-70b's (and any
    recorded under its own name before it stood for llama-3-70b)."""
    from chipcost.transform.references import model_asked
    from chipcost.transform.throughput_figures import normalise_model

    return list(dict.fromkeys((normalise_model(name), model_asked(name)[0])))


def list_(
    model: Annotated[list[str] | None, Opt("Only this model.", metavar="MODEL")] = None,
    chip: Annotated[list[str] | None, Opt("Only this chip or family (H100, Trainium).")] = None,
    workload: Annotated[list[str] | None, Opt("training or inference.", metavar="WORKLOAD")] = None,
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
            say_more_rows(notices(format), frame.height - shown.height)
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


# What `chipcost throughput list` prints.
def counted(shown: int, total: int | None) -> str:
    """'200 of 2,787 (--limit N shows more)', or '74' when every figure is shown."""
    if total is None or total <= shown:
        return f"{shown:,}"
    return f"{shown:,} of {total:,} (--limit N shows more)"


def status(row: dict) -> Cell:
    """chosen, alternative, or set aside (the reason is said under the table)."""
    if row["chosen"]:
        return Styled("chosen", "green")
    if not row["usable"]:
        return Styled("set aside", "yellow")
    return "alternative"


def _tps(row: dict) -> str:
    """'5,479', or '≥5,479' where the figure is a lower bound at the speed the choice rule
    asks (a curve's point measured faster than it: the chip does at least that much there),
    the mark cost's table gives a lower bound (transform/change_words.py AT_LEAST)."""
    said = f"{row['tokens_per_second_per_chip']:,.0f}"
    return f"{AT_LEAST}{said}" if row.get("lower_bound") else said


def bound_note(frame: pl.DataFrame) -> str | None:
    """What the table's ≥ says, where a figure shown is a lower bound, as cost's note says it
    (transform/change_words.py at_least_note) with the speed; None where none is."""
    speeds = [str(r["asked_speed"]) for r in frame.iter_rows(named=True) if r.get("lower_bound")]
    if not speeds:
        return None
    speed = " or ".join(dict.fromkeys(speeds))  # one speed: the listing's, the default
    return at_least_note(
        f"a lower bound at {speed} or more tokens/s per user, the speed the choice rule asks (a "
        "curve's point measured faster than that: the chip does at least that much there, as "
        "`chipcost cost` says; lower_bound true in --format csv and json)"
    )


def _range(row: dict) -> str:
    """A derived figure's range, '396-2,460' (the derivation's error out of sample)."""
    if row.get("range_low") is None:
        return ""
    return f"{row['range_low']:,.0f}-{row['range_high']:,.0f}"


def _shape(row: dict) -> str:
    """'5000/500', or the point's name where the document states no lengths ('Offline')."""
    if row.get("input_tokens") and row.get("output_tokens"):
        return f"{row['input_tokens']}/{row['output_tokens']}"
    if row.get("workload") == "training":
        return ""
    return "dataset" if row.get("scenario") and row.get("origin") != "derived" else ""


def _speed(row: dict) -> str:
    if row.get("operating_point") == "max-throughput":
        return "max"
    user = row.get("tokens_per_second_per_user")
    return "" if user is None else f"{user:,.1f}"


def _point(row: dict) -> str:
    """'5000/500 @25.8/u x2', 'dataset @max x16': the request shape (a benchmark's own
    dataset where it states none), the per-user speed or max, and the chips measured on."""
    speed = _speed(row)
    said = [
        _shape(row),
        f"@{speed}/u" if speed not in ("", "max") else f"@{speed}" if speed else "",
    ]
    said.append("" if row.get("chips") is None else f"x{row['chips']}")
    return " ".join(p for p in said if p)


def print_throughput(
    console: Screen, frame: pl.DataFrame, *, total: int | None = None, wide: bool = False
) -> None:
    """The figures as a table that fits the terminal, each source a numbered line under it:
    a derivation's source is a paragraph, which wrapped one word a line in a table cell.
    `total`: how many figures matched, said first with how many are shown (default: all)."""
    import polars as pl

    columns = [
        Column("id", "id", essential=True),
        Column("chip", "chip", essential=True),
        Column("model", "model"),
        Column("workload", "workload"),
        Column("tps", "tok/s/chip", numeric=True, essential=True),
        Column("range", "range", numeric=True),
        Column("kind", "kind"),
        Column("batch", "batch", numeric=True),
        Column("point", "point"),
        Column("precision", "precision"),
        Column("peak", "% of peak", numeric=True),
        Column("status", "status", essential=True),
        Column("source", "source", essential=True),
    ]
    sources: dict[str, int] = {}
    cells = []
    for row in frame.iter_rows(named=True):
        mfu = row["implied_mfu"]
        cited = f"{row['source']} ({row['source_date']})"
        number = sources.setdefault(cited, len(sources) + 1)
        cells.append(
            {
                "id": plain(row["throughput_id"]),
                "chip": plain(row["chip"]),
                "model": plain(row["model"]),
                "workload": plain(row["workload"]),
                "tps": _tps(row),
                "range": _range(row),
                "kind": plain(row.get("figure_kind") or row["kind"]),
                "batch": "" if row["batch_size"] is None else str(row["batch_size"]),
                "point": _point(row),
                "precision": plain(row["precision"] or "n/p"),
                "peak": "" if mfu is None else f"{100 * mfu:,.0f}%",
                "status": status(row),
                "source": f"[{number}]",
            }
        )
    # Kept last: id, chip, tok/s/chip, status and the source's number; the id whole, the
    # rest folded under it where the line is too narrow.
    keep = ("kind", "range", "model", "workload", "precision", "point", "peak", "batch")
    fitted = fit_table(console, columns, cells, keep_order=keep, wide=wide)
    console.say(f"throughput figures (tokens/s per chip): {counted(frame.height, total)}")
    print_fitted(console, fitted)
    for row in frame.filter(~pl.col("usable")).iter_rows(named=True):
        said = shown(f"set aside: {row['throughput_id']}: {row['set_aside_because']}")
        console.say([(said, "yellow")])
    if note := bound_note(frame):
        console.say(shown(note))
    for cited, number in sources.items():
        console.say(shown(f"[{number}] {cited}"))
    console.say(
        "choice rule per chip, model and workload: a figure above the chip's dense peak is set "
        "aside; at the asked speed first (a derived figure there, calibrated on the chip's "
        "measurements, before a published one elsewhere); published before derived; then "
        "measured > benchmark > independent > vendor-claim > estimate; a derived figure's "
        "range is the derivation's error out of sample (docs/cost-per-token.md)"
    )


throughput = click.Group(
    "throughput",
    {c.name: c for c in map(command, (add, import_, list_, remove, model_))},
    help=SUMMARY,
    short_help=SUMMARY,
    context_settings=SETTINGS,
    no_args_is_help=True,
)
