"""The settings object reads the sources' keys and endpoints from the environment, once."""

from __future__ import annotations

from pathlib import Path

import pytest

from chipcost.core.errors import ChipcostError
from chipcost.core.settings import (
    MAX_OBSERVATIONS_DAYS,
    Settings,
    SourceSettings,
    load_settings,
    observations_days,
    source_settings,
)
from chipcost.extract import source_env

# The variables the registered sources declare (Source.settings), by setting name.
SOURCE_ENV = source_env()


def test_every_variable_reaches_its_typed_field():
    environ = {
        "RUNPOD_API_KEY": " rp-key\n",
        "VAST_API_KEY": "vast-key",
        "SPHERON_API_KEY": "sph-key",
        "LAMBDA_API_KEY": "lambda-key",
        "GCP_API_KEY": "gcp-key",
        "DIGITALOCEAN_TOKEN": "do-token",
        "HOTAISLE_API_KEY": "ha-key",
        "HOTAISLE_TEAM_HANDLE": " my-team ",
        "JL_API_KEY": "jl-key",
        "SEEWEB_API_TOKEN": "sw-token",
        "SHADEFORM_API_KEY": "sf-key",
        "HYPERBOLIC_API_KEY": "hb-key",
        "PRIME_API_KEY": "pi-key",
        "MITHRIL_API_KEY": "mi-key",
        "FLUIDSTACK_API_KEY": "fs-key",
        "HYPERSTACK_API_KEY": "hs-key",
        "NOVITA_API_KEY": "nv-key",
        "SIMPLEPOD_API_KEY": "sp-key",
        "AMD_DEVCLOUD_TOKEN": "amd-token",
        "MASSED_COMPUTE_API_KEY": "mc-key",
        "LATITUDE_API_KEY": "lt-key",
        "PAPERSPACE_API_KEY": "ps-key",
        "TENSORDOCK_API_KEY": "td-key",
        "CHIPCOST_AWS_PRICE_LIST_URL": "https://mirror.example.test/prices",
        "CHIPCOST_AWS_SPOT_FEED_URL": "http://127.0.0.1:8080/spot.js",
        "CHIPCOST_ECB_RATES_URL": "https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.xml",
        "CHIPCOST_AWS_REGIONS": " us-east-1, us-west-2 ,,us-east-1",
        "UNRELATED": "ignored",
    }
    assert source_settings(environ, SOURCE_ENV) == SourceSettings(
        runpod_api_key="rp-key",
        vast_api_key="vast-key",
        spheron_api_key="sph-key",
        lambda_api_key="lambda-key",
        gcp_api_key="gcp-key",
        digitalocean_api_key="do-token",
        hotaisle_api_key="ha-key",
        hotaisle_team="my-team",
        jarvislabs_api_key="jl-key",
        seeweb_api_key="sw-token",
        shadeform_api_key="sf-key",
        hyperbolic_api_key="hb-key",
        primeintellect_api_key="pi-key",
        mithril_api_key="mi-key",
        fluidstack_api_key="fs-key",
        hyperstack_api_key="hs-key",
        novita_api_key="nv-key",
        simplepod_api_key="sp-key",
        amddevcloud_api_key="amd-token",
        massed_compute_api_key="mc-key",
        latitude_api_key="lt-key",
        paperspace_api_key="ps-key",
        tensordock_api_key="td-key",
        aws_price_list_url="https://mirror.example.test/prices",
        aws_spot_feed_url="http://127.0.0.1:8080/spot.js",
        ecb_rates_url="https://www.ecb.europa.eu/stats/eurofxref/eurofxref-hist.xml",
        aws_regions=("us-east-1", "us-west-2"),
    )
    assert set(SOURCE_ENV.values()) == set(environ) - {"UNRELATED"}


def test_unset_or_blank_means_the_defaults():
    blank = {name: "  " for name in SOURCE_ENV.values()}
    assert source_settings({}, SOURCE_ENV) == source_settings(blank, SOURCE_ENV) == SourceSettings()
    assert SourceSettings().aws_regions is None and SourceSettings().secrets() == ()
    assert Settings(data_dir=Path("d"), db_path=Path("d/x")).sources == SourceSettings()


@pytest.mark.parametrize(
    ("name", "value", "words"),
    [
        ("CHIPCOST_AWS_REGIONS", "us-east-1 us-west-2", "'us-east-1 us-west-2' is not a region"),
        ("CHIPCOST_AWS_REGIONS", "us-east-1;eu-west-1", "separated by commas"),
        ("CHIPCOST_AWS_PRICE_LIST_URL", "pricing.example.test", "http:// or https://"),
        ("CHIPCOST_AWS_SPOT_FEED_URL", "ftp://example.test/spot.js", "http:// or https://"),
    ],
)
def test_a_malformed_value_names_its_variable(name, value, words):
    with pytest.raises(ChipcostError, match=name) as caught:
        source_settings({name: value}, SOURCE_ENV)
    assert words in str(caught.value)


def test_keys_are_secrets_and_never_shown():
    settings = SourceSettings(runpod_api_key="rp-secret", lambda_api_key="lambda-secret")
    assert settings.secrets() == ("rp-secret", "lambda-secret")
    shown = repr(Settings(data_dir=Path("d"), db_path=Path("d/x"), sources=settings))
    assert "secret" not in shown


def test_load_settings_reads_the_environment(monkeypatch):
    for name in SOURCE_ENV.values():
        monkeypatch.delenv(name, raising=False)
    monkeypatch.setenv("VAST_API_KEY", "vast-from-env")
    monkeypatch.setenv("CHIPCOST_AWS_REGIONS", "eu-west-1")
    sources = load_settings(db="x.duckdb", data_dir="d").sources.read(SOURCE_ENV)
    assert sources.vast_api_key == "vast-from-env" and sources.aws_regions == ("eu-west-1",)
    assert sources.runpod_api_key == "" and sources.aws_price_list_url == ""


def test_lock_wait_and_payload_cap_come_from_the_environment(monkeypatch):
    monkeypatch.delenv("CHIPCOST_LOCK_WAIT", raising=False)
    monkeypatch.delenv("CHIPCOST_PAYLOAD_MAX_MB", raising=False)
    monkeypatch.delenv("CHIPCOST_ANSWER_MAX_MB", raising=False)
    default = load_settings(db="x.duckdb", data_dir="d")
    assert default.lock_wait == 300 and default.read_wait == 30
    assert default.payload_max_bytes == 512 << 20
    assert default.answer_max_bytes == 64 << 20
    monkeypatch.setenv("CHIPCOST_LOCK_WAIT", " 2.5 ")
    monkeypatch.setenv("CHIPCOST_PAYLOAD_MAX_MB", "64")
    monkeypatch.setenv("CHIPCOST_ANSWER_MAX_MB", "200")
    chosen = load_settings(db="x.duckdb", data_dir="d")
    assert chosen.lock_wait == 2.5 and chosen.read_wait == 2.5
    assert chosen.payload_max_bytes == 64 << 20
    assert chosen.answer_max_bytes == 200 << 20


@pytest.mark.parametrize(
    ("name", "value"),
    [
        ("CHIPCOST_LOCK_WAIT", "five minutes"),
        ("CHIPCOST_LOCK_WAIT", "-1"),
        ("CHIPCOST_LOCK_WAIT", "nan"),
        ("CHIPCOST_PAYLOAD_MAX_MB", "0"),
        ("CHIPCOST_PAYLOAD_MAX_MB", "1.5"),
        ("CHIPCOST_PAYLOAD_MAX_MB", "²"),  # a digit to str.isdigit(), not to int()
        ("CHIPCOST_ANSWER_MAX_MB", "0"),
        ("CHIPCOST_ANSWER_MAX_MB", "²"),
        ("CHIPCOST_STALE_DAYS", "²"),
    ],
)
def test_a_malformed_wait_or_cap_names_its_variable(monkeypatch, name, value):
    monkeypatch.setenv(name, value)
    with pytest.raises(ChipcostError, match=f"{name}={value!r}"):
        load_settings(db="x.duckdb", data_dir="d")


LAKE = "ducklake:postgres:dbname=cc host=db user=cc password=s3cret"


def test_the_warehouse_url_wins_over_the_db_variable(monkeypatch, tmp_path):
    monkeypatch.setenv("CHIPCOST_DB", str(tmp_path / "file.duckdb"))
    monkeypatch.setenv("CHIPCOST_WAREHOUSE", LAKE)
    monkeypatch.setenv("CHIPCOST_LAKE_DATA", "s3://bucket/lake")
    settings = load_settings(data_dir=tmp_path)
    assert settings.is_lake and settings.warehouse.url == LAKE
    assert settings.warehouse.lake_data == "s3://bucket/lake"
    assert "s3cret" not in str(settings.warehouse) and "password=***" in str(settings.warehouse)


def test_a_db_path_still_means_the_file(monkeypatch, tmp_path):
    monkeypatch.delenv("CHIPCOST_WAREHOUSE", raising=False)
    settings = load_settings(db=tmp_path / "w.duckdb")
    assert not settings.is_lake and settings.warehouse.path == tmp_path / "w.duckdb"


@pytest.mark.parametrize(
    "url", ["postgres://chipcost:s3cret@db.internal/chipcost", "s3://bucket/w.duckdb"]
)
def test_a_url_is_not_read_as_a_file_path(monkeypatch, url):
    # Read as a path it was "no warehouse at postgres:/..." (the slashes collapsed).
    monkeypatch.delenv("CHIPCOST_WAREHOUSE", raising=False)
    with pytest.raises(ChipcostError, match=r"is a URL: a warehouse is a DuckDB file's") as error:
        load_settings(db=url)
    assert "s3cret" not in str(error.value) and "ducklake:postgres:" in str(error.value)


def test_a_lake_of_another_kind_is_refused_its_data_path_is_a_writers_need(monkeypatch):
    monkeypatch.delenv("CHIPCOST_LAKE_DATA", raising=False)
    # A reader needs no data path (its catalog keeps it): the writer's connection asks for it
    # (tests/cli/test_lake_cli.py).
    assert load_settings(db=LAKE).warehouse.lake_data == ""
    monkeypatch.setenv("CHIPCOST_LAKE_DATA", "/tmp/x")
    with pytest.raises(ChipcostError, match="ducklake:postgres:"):
        load_settings(db="ducklake:sqlite:x.db")


@pytest.mark.parametrize(
    "value", ["0", "-5", "²", "1.5", "ten", "99999999999999999999", str(MAX_OBSERVATIONS_DAYS + 1)]
)
def test_observations_days_out_of_range_names_the_variable(value):
    with pytest.raises(ChipcostError, match=f"CHIPCOST_OBSERVATIONS_DAYS={value!r}: give a number"):
        observations_days(value)


@pytest.mark.parametrize(
    ("value", "days"),
    [("1", 1), (" 35 ", 35), (str(MAX_OBSERVATIONS_DAYS), 100_000), ("ALL", None)],
)
def test_observations_days_in_range(value, days):
    assert observations_days(value) == days


def test_settings_carry_every_secret_value_for_scrubbing(monkeypatch):
    monkeypatch.setenv("RUNPOD_API_KEY", "runpod-key-value")
    monkeypatch.setenv("CHIPCOST_SMTP_PASSWORD", "smtp-password-value")
    settings = load_settings()
    assert {"runpod-key-value", "smtp-password-value"} <= set(settings.secrets)
    assert "runpod-key-value" not in repr(settings) and "smtp-password" not in repr(settings)


def test_a_blank_variable_means_its_default_and_names_are_exact(monkeypatch):
    from chipcost.core.settings import Environment

    variables = list(Environment.names())
    for name in variables:
        monkeypatch.setenv(name, "  ")
    blank = load_settings(db="x.duckdb", data_dir="d")
    for name in variables:
        monkeypatch.delenv(name)
    monkeypatch.setenv("chipcost_stale_days", "7")  # not CHIPCOST_STALE_DAYS
    unset = load_settings(db="x.duckdb", data_dir="d")
    assert blank == unset and unset.stale_days == 2 and unset.observations_days == 35


def test_a_size_limit_variable_says_what_it_limits():
    """On 2487f4c: "give a replay reads of one source's payloads of a run together"."""
    with pytest.MonkeyPatch.context() as patch:
        patch.setenv("CHIPCOST_SOURCE_PAYLOADS_MAX_MB", "abc")
        with pytest.raises(ChipcostError, match="give the most a replay reads of one source's"):
            load_settings()


def test_the_variables_are_read_by_pydantic_settings(monkeypatch):
    """Environment and the SQL limits are pydantic-settings models; a list variable is read
    as its commas say (not as JSON), and a URL's token stays out of repr."""
    from pydantic_settings import BaseSettings

    from chipcost.core.settings import Environment, environment
    from chipcost.core.sql_limits import SqlVariables

    assert issubclass(Environment, BaseSettings) and issubclass(SqlVariables, BaseSettings)
    monkeypatch.setenv("CHIPCOST_NOTIFY", " json://host/hook-secret-token , form://b/y")
    env = environment()
    assert env.notify == ("json://host/hook-secret-token", "form://b/y")
    assert "hook-secret-token" not in repr(env)
    assert load_settings(db="x.duckdb").notify == env.notify


@pytest.mark.parametrize(
    ("text", "shown"), [(None, False), ("", False), ("0", False), ("1", True), ("yes", True)]
)
def test_a_traceback_is_asked_by_any_value_but_zero(monkeypatch, text, shown):
    from chipcost.core.settings import TRACEBACK_ENV, process_variable

    if text is None:
        monkeypatch.delenv(TRACEBACK_ENV, raising=False)
    else:
        monkeypatch.setenv(TRACEBACK_ENV, text)
    assert process_variable(TRACEBACK_ENV) is shown


def test_the_reads_variables_are_read_stripped_and_alone(monkeypatch):
    """CHIPCOST_CURRENCY and CHIPCOST_DISCOUNTS are read by themselves: a wrong value of
    another variable is not theirs to refuse."""
    from chipcost.core.settings import CURRENCY_ENV, DISCOUNTS_ENV, process_variable

    monkeypatch.setenv(CURRENCY_ENV, " EUR ")
    monkeypatch.setenv(DISCOUNTS_ENV, "   ")
    monkeypatch.setenv("CHIPCOST_STALE_DAYS", "soon")
    assert (process_variable(CURRENCY_ENV), process_variable(DISCOUNTS_ENV)) == ("EUR", "")
