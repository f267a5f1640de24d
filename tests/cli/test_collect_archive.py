"""`collect` on archives out of the ordinary: a source whose every price is refused fails and
keeps its offers; a page nested a thousand deep or a manifest number past Python's digits fails
its source alone, named; a source a replay's runs do not hold is named (with the runs that
do not); runs replayed out of order make the history a replay in order makes;
a replay path that is no archive, a folder a replay does not read, a run folder that is a link
and an archive directory that is a file are named before anything loads. Copies of the bundled
sample archive, the command line as its own process."""

from __future__ import annotations

from pathlib import Path

import duckdb
import pytest

from tests.cli_runner import chipcost


def _replaced(run_dir: Path, source: str, data: bytes) -> None:
    """The source's one payload replaced by `data`, its manifest made to match."""
    import gzip
    import hashlib
    import json

    manifest_path = run_dir / source / "manifest.json"
    manifest = json.loads(manifest_path.read_text())
    entry = manifest["payloads"][0]
    (run_dir / source / entry["name"]).write_bytes(gzip.compress(data))
    entry.update(sha256=hashlib.sha256(data).hexdigest(), bytes=len(data))
    manifest_path.write_text(json.dumps(manifest))


def _every_price_unreadable(run_dir: Path) -> None:
    """Latitude's answer with every hourly price 'contact us', its manifest made to match."""
    import gzip
    import json

    payload = run_dir / "latitude" / "0001.json.gz"
    body = json.loads(gzip.decompress(payload.read_bytes()))

    def unpriced(node):
        if isinstance(node, dict):
            return {k: "contact us" if k == "hour" else unpriced(v) for k, v in node.items()}
        if isinstance(node, list):
            return [unpriced(v) for v in node]
        return node

    _replaced(run_dir, "latitude", json.dumps(unpriced(body)).encode())


def test_a_source_whose_every_price_is_refused_fails_and_keeps_its_offers(tmp_path):
    """On 2487f4c Latitude's answer with every price 'contact us' was "ok, 0 records, 5
    rejects", listed under "nothing to note", and withdrew all five of its offers."""
    import shutil

    from tests.paths import ROOT

    archive = tmp_path / "archive"
    for stamp in ("2026-11-20T060000Z", "2026-11-21T060000Z"):
        shutil.copytree(
            ROOT / "sample" / "archive" / stamp / "latitude", archive / stamp / "latitude"
        )
    _every_price_unreadable(archive / "2026-11-21T060000Z")
    db = tmp_path / "w.duckdb"
    done = chipcost("collect", "--replay", str(archive), "--db", str(db))
    said = " ".join((done.stdout + done.stderr).split())
    assert "Traceback" not in said
    assert "latitude: every one of its 5 rows was refused" in said, said
    with duckdb.connect(str(db), read_only=True) as con:
        current = con.execute(
            "SELECT count(*) FROM price_history WHERE provider = 'latitude' AND valid_to IS NULL"
        ).fetchone()[0]
        refused = con.execute("SELECT count(*) FROM rejects WHERE source = 'latitude'").fetchone()
    assert current == 5 and refused[0] >= 5


def _one_run(tmp_path: Path, *sources: str) -> Path:
    import shutil

    from tests.paths import ROOT

    run_dir = tmp_path / "archive" / "2026-11-21T060000Z"
    for source in sources:
        shutil.copytree(ROOT / "sample" / "archive" / run_dir.name / source, run_dir / source)
    return run_dir


def test_a_page_nested_ten_thousand_deep_fails_its_source_as_malformed(tmp_path):
    """On 2487f4c a 12 KB page of 1,000 nested <div>s was "unexpected RecursionError ...
    This is a bug in chipcost" in eight sources that read HTML; 1,000 levels are read now, as
    a browser reads them (tests/extract/test_html_pages.py), 10,000 would take the parse too
    long."""
    run_dir = _one_run(tmp_path, "modal", "lambda")
    _replaced(run_dir, "modal", ("<html><body>" + "<div>" * 10_000 + "</div>" * 10_000).encode())
    done = chipcost("collect", "--replay", str(run_dir.parent), "--db", str(tmp_path / "w.db"))
    said = " ".join((done.stdout + done.stderr).split())
    # The page named by its URL and its archived file, as a JSON payload nested too deep is.
    page = "https://modal.com/pricing (archived as 2026-11-21T060000Z/modal/0001.html.gz)"
    assert f"modal failed: the page from {page} is nested too deeply to read" in said, said
    assert "bug in chipcost" not in said and "RecursionError" not in said
    assert "lambda ok" in said or "ok, nothing to note (1): lambda" in said


def test_a_manifest_number_past_pythons_digits_is_named_as_not_json(tmp_path):
    """On 2487f4c a manifest's 5,000-digit "bytes" was "unexpected ValueError ... This is a
    bug in chipcost"."""
    run_dir = _one_run(tmp_path, "lambda")
    manifest = run_dir / "lambda" / "manifest.json"
    text = manifest.read_text()
    manifest.write_text(text.replace('"bytes": ', '"bytes": ' + "9" * 5000 + ', "was": ', 1))
    done = chipcost("collect", "--replay", str(run_dir.parent), "--db", str(tmp_path / "w.db"))
    said = " ".join((done.stdout + done.stderr).split())
    assert f"{manifest} is cut short or not valid JSON" in said, said
    assert "bug in chipcost" not in said, said


def _history(db: Path) -> set[tuple]:
    with duckdb.connect(str(db), read_only=True) as con:
        return set(
            con.execute(
                "SELECT provider, region, zone, instance_type, pricing_model, term, payment, "
                "plan, price_per_hour, valid_from, valid_to, end_reason, last_seen_at "
                "FROM price_history"
            ).fetchall()
        )


def test_runs_replayed_out_of_order_make_the_history_an_in_order_replay_makes(tmp_path):
    """On 2487f4c the newest run replayed first, then the older ones, left a history no
    replay in order makes (H100-SXM on demand at 2.55 on days it was 1.29, no price on
    others), with every run "ok"."""
    import shutil

    from tests.paths import ROOT

    stamps = ("2026-11-18T060000Z", "2026-11-19T060000Z", "2026-11-20T060000Z",
              "2026-11-21T060000Z")  # fmt: skip
    sources = ("runpod", "lambda", "vastai", "verda")
    whole, newest = tmp_path / "whole", tmp_path / "newest"
    for stamp in stamps:
        for source in sources:
            from_dir = ROOT / "sample" / "archive" / stamp / source
            shutil.copytree(from_dir, whole / stamp / source)
            if stamp == stamps[-1]:
                shutil.copytree(from_dir, newest / stamp / source)
    in_order, late = tmp_path / "in_order.duckdb", tmp_path / "late.duckdb"
    assert chipcost("collect", "--replay", str(whole), "--db", str(in_order)).returncode == 0
    assert chipcost("collect", "--replay", str(newest), "--db", str(late)).returncode == 0
    done = chipcost("collect", "--replay", str(whole), "--db", str(late), "--verbose")
    assert done.returncode == 0, done.stderr[-2000:]
    said = " ".join(done.stdout.split())
    assert "older than runpod prices already loaded: the history from" in said
    assert "older than lambda, runpod" not in said  # each note names its own source
    assert _history(late) == _history(in_order)


@pytest.mark.parametrize(
    ("replay", "said"),
    [
        # On 2487f4c: the working directory replayed; a botocore traceback; "does not exist".
        ("", "--replay is empty: give the archive root"),
        ("s3://", "cannot list s3:// (NoCredentialsError"),
        ("/dev/null", "archive directory /dev/null is not a directory"),
    ],
)
def test_a_replay_path_that_is_no_archive_is_named(tmp_path, monkeypatch, replay, said):
    for name in ("AWS_ACCESS_KEY_ID", "AWS_SECRET_ACCESS_KEY", "AWS_PROFILE"):
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("AWS_CONFIG_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_SHARED_CREDENTIALS_FILE", str(tmp_path / "none"))
    monkeypatch.setenv("AWS_EC2_METADATA_DISABLED", "true")
    done = chipcost("collect", "--replay", replay, "--db", str(tmp_path / "w.duckdb"))
    assert done.returncode != 0 and "Traceback" not in done.stderr, done.stderr[-2000:]
    assert said in " ".join(done.stderr.split())
    assert not (tmp_path / "w.duckdb").exists()


def test_what_a_replay_leaves_unread_is_named(tmp_path):
    """On 2487f4c a run folder renamed `...Z.restored` and a source folder `Lambda/` were
    skipped in silence, even with --verbose."""
    run_dir = _one_run(tmp_path, "runpod", "lambda")
    (run_dir / "lambda").rename(run_dir / "Lambda")
    restored = run_dir.parent / f"{run_dir.name}.restored"
    restored.mkdir()
    done = chipcost("collect", "--replay", str(run_dir.parent), "--db", str(tmp_path / "w.db"))
    said = " ".join(done.stderr.split())
    assert f"note: not replayed: {restored.name} (not a run" in said, said
    assert f"{run_dir.name}/Lambda (no source of that name)" in said


def test_an_archive_that_is_a_file_is_refused_before_any_fetch(tmp_path, monkeypatch):
    """On 2487f4c a live collect with CHIPCOST_ARCHIVE naming a file fetched every source,
    each then failing to write its payloads "(Not a directory)"."""
    afile = tmp_path / "archive.txt"
    afile.write_text("x")
    monkeypatch.setenv("CHIPCOST_ARCHIVE", str(afile))
    done = chipcost("collect", "--db", str(tmp_path / "w.duckdb"))
    said = " ".join(done.stderr.split())
    assert done.returncode == 2 and f"the archive directory {afile} is not a directory" in said
    assert not (tmp_path / "w.duckdb").exists()


def test_a_run_folder_that_is_a_link_is_refused_once_before_anything_loads(tmp_path):
    """On 2487f4c it was refused 48 times, once per source, and stored as a failed run: every
    source's latest attempt then read "failed"."""
    run_dir = _one_run(tmp_path, "runpod", "lambda")
    linked = tmp_path / "links" / run_dir.name
    linked.parent.mkdir()
    linked.symlink_to(run_dir)
    db = tmp_path / "w.duckdb"
    done = chipcost("collect", "--replay", str(linked.parent), "--db", str(db))
    said = done.stdout + done.stderr
    assert done.returncode != 0 and said.count("is a symbolic link") == 1, said
    assert not db.exists()


def test_a_source_no_run_holds_is_named_and_nothing_loads(tmp_path):
    """On ad7e6775 `--replay RUN --source lambda` of a run without lambda printed an `ok` run of
    0 records and exit 0: nothing loaded, nothing said."""
    run_dir = _one_run(tmp_path, "runpod", "modal")
    db = tmp_path / "w.duckdb"
    done = chipcost("collect", "--replay", str(run_dir), "--source", "lambda", "--db", str(db))
    said = " ".join(done.stderr.split())
    assert done.returncode == 1, done.stdout + done.stderr
    assert (
        f"the archive run {run_dir} holds no payload of lambda (its sources: modal, runpod): "
        "nothing was loaded; give --source a source the archive holds" in said
    ), said
    assert not db.exists() and "try: chipcost" not in done.stdout


def test_runs_without_the_source_asked_are_named_and_the_others_load(tmp_path):
    import shutil

    from tests.paths import ROOT

    holding = _one_run(tmp_path, "lambda")
    other = holding.parent / "2026-11-20T060000Z"
    shutil.copytree(ROOT / "sample" / "archive" / other.name / "runpod", other / "runpod")
    db = tmp_path / "w.duckdb"
    replay = str(holding.parent)
    done = chipcost("collect", "--replay", replay, "--source", "lambda", "--db", str(db))
    assert done.returncode == 0, done.stdout + done.stderr
    said = " ".join(done.stderr.split())
    assert f"note: not replayed: {other.name} (no payload of lambda)" in said, said
    with duckdb.connect(str(db), read_only=True) as con:
        runs = con.sql("SELECT archive_run FROM runs").fetchall()
    assert runs == [(holding.name,)]
