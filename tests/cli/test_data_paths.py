"""A data directory, a warehouse path or an archive that cannot work is refused before Prefect
starts, in one line naming what gave it: the option, the variable, or the default."""

from __future__ import annotations

import sys

import pytest

from chipcost.cli import prefect_server
from tests.conftest import SAMPLE

FIRST_RUN = str(sorted(p for p in SAMPLE.iterdir() if p.is_dir())[0])


@pytest.fixture(autouse=True)
def no_prefect(monkeypatch):
    """Each of these commands must stop before its server starts."""

    def started(*args, **kwargs):
        raise AssertionError("Prefect started for a command that cannot run")

    monkeypatch.setattr(prefect_server, "temporary_server", started)


@pytest.fixture
def a_file(tmp_path):
    path = tmp_path / "hostname"
    path.write_text("not a directory\n")
    return path


def said(done) -> str:
    assert done.returncode == 1, (done.returncode, done.stdout[-500:], done.stderr[-2000:])
    assert "Traceback" not in done.stderr, done.stderr[-3000:]
    return " ".join(done.stderr.split())


@pytest.mark.parametrize(
    "args",
    [
        ["collect", "--replay", FIRST_RUN],
        ["collect", "--source", "runpod"],
        ["backfill", "--since", "2025-01-01"],
        ["demo"],
        ["migrate"],
    ],
    ids=lambda args: " ".join(args[:2]),
)
def test_a_data_directory_variable_that_names_a_file(run, a_file, args):
    done = run(*args, env={"CHIPCOST_DATA_DIR": str(a_file)})
    message = said(done)
    assert f"error: CHIPCOST_DATA_DIR='{a_file}' is not a directory" in message
    assert "unset it to use ./data" in message
    assert "FileExistsError" not in message and "Flow run" not in message


@pytest.mark.parametrize("command", [["collect", "--replay", FIRST_RUN], ["demo"]])
def test_a_data_directory_option_that_names_a_file(run, a_file, command):
    message = said(run(*command, "--data-dir", str(a_file)))
    assert f"error: --data-dir {a_file} is not a directory: give --data-dir a directory" in message


def test_a_data_directory_under_a_file(run, a_file):
    message = said(run("backfill", "--since", "2025-01-01", "--data-dir", str(a_file / "data")))
    assert f"--data-dir {a_file / 'data'} cannot be created, since {a_file} is not a" in message


def test_the_default_data_directory_as_a_file(run, tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "data").write_text("")
    message = said(run("migrate", env={"CHIPCOST_DATA_DIR": ""}))
    assert message.startswith("error: the data directory data is not a directory: move data")
    assert "--data-dir or CHIPCOST_DATA_DIR" in message


@pytest.mark.parametrize("variable", ["CHIPCOST_WAREHOUSE", "CHIPCOST_DB"])
@pytest.mark.parametrize(
    "args",
    [
        ["prices"],
        ["collect", "--replay", FIRST_RUN],
        ["backfill", "--since", "2025-01-01"],
        ["migrate"],
    ],
    ids=lambda args: args[0],
)
def test_a_warehouse_variable_that_names_a_directory(run, tmp_path, variable, args):
    # It said "--db data is a directory", an option the user had not given.
    folder = tmp_path / "data"
    folder.mkdir()
    message = said(run(*args, env={variable: str(folder)}))
    assert f"error: {variable}='{folder}' is a directory: set it to the path" in message
    assert "--db" not in message


def test_a_warehouse_option_that_names_a_directory_is_said_as_before(run, tmp_path):
    message = said(run("collect", "--replay", FIRST_RUN, "--db", str(tmp_path)))
    assert message == f"error: --db {tmp_path} is a directory: give the path of a .duckdb file"


def test_the_default_warehouse_as_a_directory(run, tmp_path):
    (tmp_path / "data" / "chipcost.duckdb").mkdir(parents=True)
    message = said(run("prices"))
    assert f"error: the warehouse {tmp_path / 'data' / 'chipcost.duckdb'} is a directory" in message
    assert "--db or CHIPCOST_WAREHOUSE" in message


# Each command that reads or writes the archive, with it on s3://.
S3_ARCHIVE_COMMANDS = pytest.mark.parametrize(
    ("args", "env"),
    [
        (["collect", "--replay", "s3://bucket/x"], {}),
        (["collect", "--source", "runpod"], {"CHIPCOST_ARCHIVE": "s3://bucket/x"}),
        (["backfill", "--since", "2025-01-01"], {"CHIPCOST_ARCHIVE": "s3://bucket/x"}),
    ],
    ids=["replay", "collect", "backfill"],
)


@S3_ARCHIVE_COMMANDS
def test_an_s3_archive_without_the_lake_extra(run, monkeypatch, args, env):
    # A base install has no upath: a replay printed its traceback, a live collection failed
    # each source with "No module named 'upath'. This is a bug in chipcost".
    monkeypatch.setitem(sys.modules, "upath", None)
    message = said(run(*args, env=env))
    assert message == (
        "error: the archive s3://bucket/x is an s3:// URL, which needs chipcost's `lake` extra: "
        "in chipcost's clone run scripts/setup.sh lake (for another environment: pip install "
        "-c constraints.txt '.[lake]' in the clone, with that environment's pip) (it brings "
        "universal-pathlib)"
    )


@S3_ARCHIVE_COMMANDS
def test_an_s3_archive_whose_endpoint_is_left_in_aws_endpoint_url(run, monkeypatch, args, env):
    # Before CHIPCOST_S3_*, the store's endpoint was AWS_ENDPOINT_URL, which boto3 also gave
    # the AWS pricing clients: an existing deployment is told what to set, not left to write
    # to AWS S3 instead.
    monkeypatch.delenv("CHIPCOST_S3_ENDPOINT_URL", raising=False)
    endpoint = "http://minio.internal:9000"
    message = said(run(*args, env={**env, "AWS_ENDPOINT_URL": endpoint}))
    assert message.startswith(
        f"error: AWS_ENDPOINT_URL='{endpoint}' is set and the archive s3://bucket/x is on "
        "object storage: chipcost takes the store's endpoint and keys from "
        "CHIPCOST_S3_ENDPOINT_URL, CHIPCOST_S3_ACCESS_KEY_ID and CHIPCOST_S3_SECRET_ACCESS_KEY"
    )
    assert f"set CHIPCOST_S3_ENDPOINT_URL='{endpoint}'" in message
