"""Replay trusts nothing in the archive: names, links, sizes and manifest fields are checked."""

from __future__ import annotations

import gzip
import json
import tracemalloc
import zlib
from datetime import UTC, datetime
from pathlib import Path

import pytest

from chipcost.archive import MANIFEST, ArchiveWriter, read_payloads
from chipcost.archive.manifest import RESTORE
from chipcost.core.errors import ArchiveError
from chipcost.core.payload import sha256
from chipcost.core.settings import Settings
from chipcost.extract import registry
from chipcost.pipeline.collect import collect_source

STAMP = "2026-11-21T060000Z"
SOURCE = "aws-spot-feed"
MiB = 1 << 20


def archived(root: Path, *payloads: bytes) -> Path:
    """A run directory with one source whose payloads the real writer archived."""
    writer = ArchiveWriter(root, STAMP, SOURCE)
    for data in payloads:
        writer.write(data, "https://example.test/spot.js", ext="js")
    return root / STAMP


def rewrite_manifest(run_dir: Path, change) -> Path:
    path = run_dir / SOURCE / MANIFEST
    manifest = json.loads(path.read_text())
    change(manifest)
    path.write_text(json.dumps(manifest))
    return path


def test_what_the_writer_wrote_reads_back(tmp_path):
    run_dir = archived(tmp_path, b"one", b"two")
    assert [p.data for p in read_payloads(run_dir, SOURCE)] == [b"one", b"two"]


@pytest.mark.parametrize("name", ["../../../outside/x.js.gz", "/etc/x.js.gz", "sub/0001.js.gz"])
def test_a_name_that_leaves_the_source_directory_is_refused(tmp_path, name):
    outside = tmp_path / "outside"
    outside.mkdir()
    (outside / "x.js.gz").write_bytes(gzip.compress(b"planted prices"))
    run_dir = archived(tmp_path / "archive", b"real")

    def plant(manifest: dict) -> None:
        manifest["payloads"][0].update(name=name, sha256=sha256(b"planted prices"))

    manifest = rewrite_manifest(run_dir, plant)
    with pytest.raises(ArchiveError, match="field 'name' is not a file name") as caught:
        read_payloads(run_dir, SOURCE)
    assert str(manifest) in str(caught.value)


def test_a_symlinked_payload_is_refused(tmp_path):
    run_dir = archived(tmp_path / "archive", b"real")
    planted = tmp_path / "planted.js.gz"
    planted.write_bytes(gzip.compress(b"real"))  # even with the right bytes
    payload = run_dir / SOURCE / "0001.js.gz"
    payload.unlink()
    payload.symlink_to(planted)
    with pytest.raises(ArchiveError, match="0001.js.gz is a symbolic link"):
        read_payloads(run_dir, SOURCE)


def test_a_symlinked_source_directory_is_refused(tmp_path):
    elsewhere = archived(tmp_path / "elsewhere", b"planted")
    run_dir = tmp_path / "archive" / STAMP
    run_dir.mkdir(parents=True)
    (run_dir / SOURCE).symlink_to(elsewhere / SOURCE, target_is_directory=True)
    with pytest.raises(ArchiveError, match=f"{SOURCE} is a symbolic link"):
        read_payloads(run_dir, SOURCE)


def test_a_symlinked_run_directory_or_manifest_is_refused(tmp_path):
    elsewhere = archived(tmp_path / "elsewhere", b"planted")
    linked_run = tmp_path / "archive" / STAMP
    linked_run.parent.mkdir()
    linked_run.symlink_to(elsewhere, target_is_directory=True)
    with pytest.raises(ArchiveError, match="symbolic link"):
        read_payloads(linked_run, SOURCE)
    run_dir = archived(tmp_path / "other", b"real")
    manifest = run_dir / SOURCE / MANIFEST
    manifest.unlink()
    manifest.symlink_to(elsewhere / SOURCE / MANIFEST)
    with pytest.raises(ArchiveError, match="manifest.json is a symbolic link"):
        read_payloads(run_dir, SOURCE)


def gzip_of_zeros(path: Path, size: int) -> None:
    """A gzip file of `size` zero bytes, written in blocks (a small file that inflates big)."""
    packer = zlib.compressobj(9, zlib.DEFLATED, 31)
    block = bytes(MiB)
    with open(path, "wb") as out:
        for _ in range(size // MiB):
            out.write(packer.compress(block))
        out.write(packer.flush())


def test_a_payload_that_inflates_past_the_cap_is_refused_without_inflating_it(tmp_path):
    run_dir = archived(tmp_path, b"placeholder")
    bomb = run_dir / SOURCE / "0001.js.gz"
    gzip_of_zeros(bomb, 256 * MiB)
    assert bomb.stat().st_size < MiB
    rewrite_manifest(run_dir, lambda m: m["payloads"][0].update(sha256="0" * 64))
    tracemalloc.start()
    try:
        with pytest.raises(ArchiveError, match=r"inflates to more than 32 MiB.*PAYLOAD_MAX_MB"):
            read_payloads(run_dir, SOURCE, max_bytes=32 * MiB)
        _, peak = tracemalloc.get_traced_memory()
    finally:
        tracemalloc.stop()
    assert peak < 64 * MiB, f"reading stopped at the cap, yet {peak / MiB:.0f} MiB were used"


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (lambda e: e.pop("sha256"), "payload 1 (0001.js.gz): field 'sha256' is missing"),
        (lambda e: e.update(sha256="abc"), "field 'sha256' is not 64 lower-case hex"),
        (lambda e: e.update(fetched_at="yesterday"), "field 'fetched_at' 'yesterday' is not"),
        (lambda e: e.update(fetched_at="2026-11-21T06:00:00"), "with a UTC offset"),
        (lambda e: e.pop("name"), "payload 1: field 'name' is missing"),
        (lambda e: e.update(name=7), "field 'name' is not a text"),
        (lambda e: e.update(request=[1]), "field 'request' has the wrong type"),
        (lambda e: e.update(charset=["utf-8"]), "field 'charset' has the wrong type"),
    ],
)
def test_a_malformed_entry_names_the_file_and_the_field(tmp_path, change, words):
    run_dir = archived(tmp_path, b"data")
    manifest = rewrite_manifest(run_dir, lambda m: change(m["payloads"][0]))
    with pytest.raises(ArchiveError) as caught:
        read_payloads(run_dir, SOURCE)
    assert str(manifest) in str(caught.value) and words in str(caught.value)


@pytest.mark.parametrize(
    ("body", "words"),
    [([1, 2], "is a JSON list, not an object"), ({"source": SOURCE}, "field 'payloads'")],
)
def test_a_manifest_of_the_wrong_shape_is_refused(tmp_path, body, words):
    run_dir = archived(tmp_path, b"data")
    (run_dir / SOURCE / MANIFEST).write_text(json.dumps(body))
    with pytest.raises(ArchiveError, match=words):
        read_payloads(run_dir, SOURCE)


@pytest.mark.parametrize("complete", ["yes", 1, None])
def test_a_complete_field_not_true_or_false_says_what_to_do(tmp_path, complete):
    run_dir = archived(tmp_path, b"data")
    path = rewrite_manifest(run_dir, lambda m: m.update(complete=complete))
    with pytest.raises(ArchiveError) as caught:
        read_payloads(run_dir, SOURCE)
    # on ad7e6775 it ended at "is not true or false", saying nothing of what to do
    assert str(caught.value) == f"{path}: field 'complete' is not true or false; {RESTORE}"


@pytest.mark.parametrize("kept", [0.5, 0.9, 1])
def test_a_manifest_cut_short_is_said_cut_short(tmp_path, kept):
    run_dir = archived(tmp_path, b"one", b"two")
    path = run_dir / SOURCE / MANIFEST
    text = path.read_text()
    path.write_text(text[: int(len(text) * kept) - 1])
    with pytest.raises(ArchiveError) as caught:
        read_payloads(run_dir, SOURCE)
    # on 8f824434: "is nested deeper than 32 levels (or its brackets do not balance)"
    assert f"{path} is cut short or not valid JSON" in str(caught.value)


def test_an_empty_payload_file_is_said_empty_not_changed(tmp_path):
    run_dir = archived(tmp_path, b"one", b"two")
    (payload,) = (run_dir / SOURCE).glob("0002.*")
    payload.write_bytes(b"")
    with pytest.raises(ArchiveError) as caught:
        read_payloads(run_dir, SOURCE)
    # on 8f824434: "does not match its sha256 in the manifest: the file changed"
    assert f"{payload} is empty (0 bytes): it was cut short" in str(caught.value)
    assert "sha256" not in str(caught.value)


def test_a_fetch_that_did_not_finish_is_not_replayed_as_whole(tmp_path):
    writer = ArchiveWriter(tmp_path, STAMP, SOURCE, in_progress=True)
    writer.write(b"page 1", "https://example.test/1")
    with pytest.raises(ArchiveError, match="did not finish .* after 1 payload"):
        read_payloads(tmp_path / STAMP, SOURCE)
    writer.write(b"page 2", "https://example.test/2")
    writer.finish()
    assert [p.data for p in read_payloads(tmp_path / STAMP, SOURCE)] == [b"page 1", b"page 2"]


def test_a_bad_manifest_fails_its_source_with_the_reason_not_as_a_bug(tmp_path):
    run_dir = archived(tmp_path, b"data")
    rewrite_manifest(run_dir, lambda m: m["payloads"][0].pop("sha256"))
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    result = collect_source(registry()[SOURCE], settings=settings, stamp=STAMP, replay_dir=run_dir)
    assert result.status == "failed"
    assert "field 'sha256' is missing" in result.message and "bug" not in result.message


def test_the_cap_comes_from_the_settings(tmp_path):
    run_dir = archived(tmp_path, bytes(2 * MiB))
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb", payload_max_bytes=MiB)
    result = collect_source(registry()[SOURCE], settings=settings, stamp=STAMP, replay_dir=run_dir)
    assert result.status == "failed" and "inflates to more than 1 MiB" in result.message


def test_writer_timestamps_are_what_replay_reads(tmp_path):
    when = datetime(2026, 11, 21, 6, 0, 3, tzinfo=UTC)
    writer = ArchiveWriter(tmp_path, STAMP, SOURCE)
    writer.write(b"x", "https://example.test/", fetched_at=when)
    assert read_payloads(tmp_path / STAMP, SOURCE)[0].fetched_at == when


def test_payloads_without_their_manifest_are_an_unfinished_archive_said_as_such(tmp_path):
    from chipcost.archive import archived_sources, unfinished_sources

    run_dir = archived(tmp_path, b"data")
    assert archived_sources(run_dir) == [SOURCE] and unfinished_sources(run_dir) == []
    (run_dir / SOURCE / MANIFEST).unlink()
    (run_dir / "empty-dir").mkdir()  # nothing archived there: neither list holds it
    assert archived_sources(run_dir) == [] and unfinished_sources(run_dir) == [SOURCE]
    with pytest.raises(ArchiveError, match="the run stopped before writing it, or it was deleted"):
        read_payloads(run_dir, SOURCE)


def test_a_replay_given_a_file_or_nothing_says_which(tmp_path):
    from chipcost.archive import run_directories

    file = tmp_path / "afile"
    file.write_text("not an archive")
    with pytest.raises(ArchiveError, match="afile is not a directory"):
        run_directories(file)
    with pytest.raises(ArchiveError, match="nowhere does not exist"):
        run_directories(tmp_path / "nowhere")


def test_a_manifest_listing_no_payloads_says_there_is_nothing_to_replay(tmp_path):
    run_dir = archived(tmp_path, b"data")
    rewrite_manifest(run_dir, lambda m: m["payloads"].clear())
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    result = collect_source(registry()[SOURCE], settings=settings, stamp=STAMP, replay_dir=run_dir)
    assert result.status == "failed"
    assert "lists no payloads, so there is nothing to replay" in result.message
    assert "the fetch returned" not in result.message


def test_a_name_longer_than_a_file_name_may_be_is_said_so_not_corrupt(tmp_path):
    # It was "... is corrupt ([Errno 36] File name too long ...)": the file was never there.
    run_dir = archived(tmp_path, b"data")
    long = "a" * 300 + ".js.gz"
    rewrite_manifest(run_dir, lambda m: m["payloads"][0].update(name=long))
    settings = Settings(data_dir=tmp_path, db_path=tmp_path / "w.duckdb")
    result = collect_source(registry()[SOURCE], settings=settings, stamp=STAMP, replay_dir=run_dir)
    assert result.status == "failed" and "corrupt" not in result.message
    assert "field 'name' is 306 characters long, longer than a file name may be" in result.message
    assert "the manifest names a file" in result.message and RESTORE in result.message
    assert long not in result.message  # shown cut, not 300 characters of it


@pytest.mark.parametrize(
    ("change", "words"),
    [
        (
            lambda m: m["payloads"].append(dict(m["payloads"][0])),
            "payload 2 (0001.js.gz): field 'name' names the file payload 1 names: a payload "
            "listed twice would be parsed twice",
        ),
        (
            lambda m: m["payloads"][0].update(bytes="lots"),
            "payload 1 (0001.js.gz): field 'bytes' 'lots' is not a whole number of bytes",
        ),
        (lambda m: m["payloads"][0].update(bytes=-4), "field 'bytes' -4 is not a whole number"),
        (lambda m: m["payloads"][0].update(bytes=4.0), "field 'bytes' 4.0 is not a whole number"),
        (lambda m: m["payloads"][0].update(bytes=True), "field 'bytes' True is not a whole number"),
        (lambda m: m["payloads"][0].update(bytes=None), "field 'bytes' None is not a whole number"),
        (
            lambda m: m["payloads"][0].update(bytes=5),
            "payload 1 (0001.js.gz): field 'bytes' says 5, but the payload is 4 bytes",
        ),
        (
            lambda m: m.update(source="lambda"),
            f"field 'source' is 'lambda', not '{SOURCE}', the source whose directory holds it",
        ),
        (lambda m: m.update(source=["lambda"]), "field 'source' is not a text"),
    ],
    ids=["listed twice", "bytes text", "bytes below 0", "bytes float", "bytes true", "bytes null",
         "bytes not the payload's", "another source's", "source not a text"],
)  # fmt: skip
def test_a_manifest_field_a_replay_trusted_is_refused_in_one_line(tmp_path, change, words):
    """On c96d2408 each was read: a payload listed twice was parsed twice (its rejects
    doubled), any `bytes` passed, and a manifest naming another source was read as this one's."""
    run_dir = archived(tmp_path, b"data")
    manifest = rewrite_manifest(run_dir, change)
    with pytest.raises(ArchiveError) as caught:
        read_payloads(run_dir, SOURCE)
    said = str(caught.value)
    assert said.startswith(f"{manifest}: ") and words in said, said
    assert said.endswith(RESTORE) and "\n" not in said


def test_what_the_writer_writes_passes_the_new_checks(tmp_path):
    """Its `source` is its directory's, each `bytes` the payload's size, each name once; a
    manifest without `source` or `bytes` (written before them) is read as before."""
    run_dir = archived(tmp_path, b"one", b"", b"three")
    assert [p.data for p in read_payloads(run_dir, SOURCE)] == [b"one", b"", b"three"]

    def older(manifest: dict) -> None:
        manifest.pop("source")
        for entry in manifest["payloads"]:
            entry.pop("bytes")

    rewrite_manifest(run_dir, older)
    assert [p.data for p in read_payloads(run_dir, SOURCE)] == [b"one", b"", b"three"]


def test_a_replayed_run_fails_only_the_sources_whose_manifest_is_refused(tmp_path, archive_copy):
    """QA's cases in one archived run of the sample: nebius's manifest lists a payload twice,
    gmicloud's says it is lambda's, lium's gives `bytes` as "lots". Each of those sources fails
    with one line naming its manifest and the field; the run's other sources load, and nothing
    of the three is loaded (nebius's rejects were loaded twice over)."""
    import duckdb

    from tests import warehouses
    from tests.collecting import collect

    run_dir = sorted(archive_copy.iterdir())[0]

    def planted(source: str, change) -> Path:
        path = run_dir / source / MANIFEST
        manifest = json.loads(path.read_text())
        change(manifest)
        path.write_text(json.dumps(manifest))
        return path

    broken = {
        "nebius": (lambda m: m["payloads"].append(m["payloads"][0]), "field 'name'"),
        "gmicloud": (lambda m: m.update(source="lambda"), "field 'source' is 'lambda'"),
        "lium": (lambda m: m["payloads"][0].update(bytes="lots"), "field 'bytes' 'lots'"),
    }
    paths = {source: planted(source, change) for source, (change, _) in broken.items()}
    db = warehouses.new(tmp_path / "w.duckdb")
    [outcome] = collect(replay=str(run_dir), db=str(db), data_dir=str(tmp_path))
    said = {s.source: (s.status, s.message) for s in outcome.run.sources}
    for source, (_, words) in broken.items():
        status, message = said.pop(source)
        assert status == "failed" and message.startswith(f"{paths[source]}: ") and words in message
        assert "\n" not in message
    assert said and {status for status, _ in said.values()} == {"ok"}
    assert outcome.run.status == "partial"
    with duckdb.connect(str(db), read_only=True) as con:
        loaded = con.sql("SELECT source FROM rejects UNION SELECT source FROM observations")
        assert not {source for (source,) in loaded.fetchall()} & set(broken)
