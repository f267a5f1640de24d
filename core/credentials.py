"""The sources' credentials and endpoints, read by the names the sources declare; the object
store of s3:// paths (CHIPCOST_S3_*); and every credential value set, to scrub from messages."""

from __future__ import annotations

import os
import re
from collections.abc import Mapping
from dataclasses import dataclass, field

from chipcost.core.clean import without_credentials
from chipcost.core.errors import ChipcostError

# Object storage for s3:// paths (the archive, the lake's Parquet files): an endpoint and keys
# of its own, read by chipcost.archive and chipcost.warehouse.lake alike (docs/deploy.md,
# "Object storage"). AWS_* mean AWS itself, for the AWS sources: boto3 sends every AWS call to
# AWS_ENDPOINT_URL, and a store's keys in AWS_ACCESS_KEY_ID read as AWS credentials.
STORAGE_ENV = {
    "endpoint_url": "CHIPCOST_S3_ENDPOINT_URL",
    "key_id": "CHIPCOST_S3_ACCESS_KEY_ID",
    "secret": "CHIPCOST_S3_SECRET_ACCESS_KEY",
    "session_token": "CHIPCOST_S3_SESSION_TOKEN",
    "region": "CHIPCOST_S3_REGION",
}
# Where chipcost took the store's endpoint from before STORAGE_ENV: set without
# CHIPCOST_S3_ENDPOINT_URL while a path is on object storage, it is refused saying what to set.
AWS_ENDPOINT_ENV = ("AWS_ENDPOINT_URL_S3", "AWS_ENDPOINT_URL")
# Variables whose values are credentials, by name (the sources' keys, AWS's, the SMTP
# password, a Prefect API key): every value set is scrubbed from messages (chipcost.core.clean).
SECRET_VARIABLE = re.compile(r"(_API_KEY|_TOKEN|_PASSWORD|_SECRET|_ACCESS_KEY|_ACCESS_KEY_ID)$")
# Shorter values are not scrubbed: replacing "abc" everywhere would garble every message, and
# a credential that short protects nothing.
MIN_SECRET_LENGTH = 6
# Lower-case words joined by hyphens (us-east-1, us-gov-west-1, us-west-2-lax-1): catches a
# list written with spaces or semicolons instead of commas before any download starts.
REGION_NAME = re.compile(r"^[a-z0-9]+(-[a-z0-9]+)+$")


class SourceSettings:
    """Credentials and endpoints of the sources, by the names the sources declare
    (`Source(settings={"runpod_api_key": "RUNPOD_API_KEY"})`, chipcost.extract.source_env()):
    a name not set is "" (None for aws_regions, every region).

    load_settings leaves them unread (`from_environment`): a run that fetches reads the
    variables the registered sources declare (`read`), so no list of the sources' variables is
    kept here. Keys are kept out of repr, so that a logged or printed settings object shows no
    secret.
    """

    __slots__ = ("_unread", "_values")

    def __init__(self, **values: object) -> None:
        object.__setattr__(self, "_values", dict(values))
        object.__setattr__(self, "_unread", False)

    @classmethod
    def from_environment(cls) -> SourceSettings:
        """The process's environment, to be read by `read` when a run fetches."""
        unread = cls()
        object.__setattr__(unread, "_unread", True)
        return unread

    def read(self, declared: Mapping[str, str]) -> SourceSettings:
        """The values of the declared variables (setting name -> variable) in the environment,
        checked; settings given as values are returned as they are."""
        return source_settings(os.environ, declared) if self._unread else self

    def __getattr__(self, name: str) -> object:
        if name.startswith("_"):
            raise AttributeError(name)
        return self._values.get(name, None if name == "aws_regions" else "")

    def __setattr__(self, name: str, value: object) -> None:
        raise AttributeError("SourceSettings are read-only")

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, SourceSettings):
            return NotImplemented
        return (self._values, self._unread) == (other._values, other._unread)

    def __hash__(self) -> int:
        return hash(tuple(sorted(self._values.items())))

    def __repr__(self) -> str:
        shown = ", ".join(
            f"{name}={value!r}"
            for name, value in sorted(self._values.items())
            if not name.endswith("_api_key")
        )
        return f"SourceSettings({shown})"

    def secrets(self) -> tuple[str, ...]:
        """The credential values set: what the HTTP layer scrubs from anything it archives."""
        return tuple(
            value
            for name, value in self._values.items()
            if name.endswith("_api_key") and value and isinstance(value, str)
        )


def source_settings(environ: Mapping[str, str], declared: Mapping[str, str]) -> SourceSettings:
    """SourceSettings from the declared variables (setting name -> variable) set in `environ`;
    a malformed value is a ChipcostError naming its variable."""
    values: dict[str, object] = {}
    for name, variable in declared.items():
        text = environ.get(variable, "").strip()
        if not text:
            continue
        if name == "aws_regions":
            values[name] = _regions(variable, text)
        elif name.endswith("_url"):
            values[name] = _url(variable, text)
        else:
            values[name] = text
    return SourceSettings(**values)


def _url(variable: str, text: str) -> str:
    if not text.startswith(("http://", "https://")):
        raise ChipcostError(f"{variable}={text!r}: give an http:// or https:// URL, or unset it")
    return text


def _regions(variable: str, text: str) -> tuple[str, ...] | None:
    regions = tuple(dict.fromkeys(r.strip() for r in text.split(",") if r.strip()))
    wrong = [r for r in regions if not REGION_NAME.match(r)]
    if wrong:
        raise ChipcostError(
            f"{variable}={text!r}: {', '.join(map(repr, wrong))} is not a region code; give "
            "codes separated by commas, e.g. us-east-1,us-west-2"
        )
    return regions or None


@dataclass(frozen=True)
class ObjectStore:
    """Where s3:// paths live. No endpoint: AWS S3; no keys: boto3's usual chain (AWS's own
    credentials, right for AWS S3 and AWS endpoints; any other store needs its keys here)."""

    endpoint_url: str = ""
    key_id: str = field(default="", repr=False)
    secret: str = field(default="", repr=False)
    session_token: str = field(default="", repr=False)
    region: str = ""


def object_store(environ: Mapping[str, str], where: str) -> ObjectStore:
    """The store of `where` (e.g. "the archive s3://b/x") from STORAGE_ENV; a ChipcostError
    for half a key pair, an endpoint that is no URL, or one left in AWS_ENDPOINT_URL."""
    values = {name: environ.get(var, "").strip() for name, var in STORAGE_ENV.items()}
    store = ObjectStore(**values)
    env = STORAGE_ENV
    if store.endpoint_url:
        _url(env["endpoint_url"], store.endpoint_url)
    elif legacy := next((v for v in AWS_ENDPOINT_ENV if environ.get(v, "").strip()), ""):
        endpoint, where = without_credentials(environ[legacy].strip()), without_credentials(where)
        raise ChipcostError(
            f"{legacy}={endpoint!r} is set and {where} is on object storage: chipcost "
            f"takes the store's endpoint and keys from {env['endpoint_url']}, "
            f"{env['key_id']} and {env['secret']}, never from AWS_*, which mean AWS itself "
            f"(boto3 would send the AWS pricing calls to {legacy}): set "
            f"{env['endpoint_url']}={endpoint!r} and the store's keys there, then unset "
            f"{legacy} (and the AWS_ keys too if they are the store's); docs/deploy.md"
        )
    if bool(store.key_id) != bool(store.secret):
        given, missing = (
            (env["key_id"], env["secret"]) if store.key_id else (env["secret"], env["key_id"])
        )
        raise ChipcostError(
            f"{given} is set without {missing}: set both to the keys of the store of "
            f"{without_credentials(where)}, or neither to use AWS's usual credentials"
        )
    return store


def secret_values(environ: Mapping[str, str]) -> tuple[str, ...]:
    """The values of every credential variable set (SECRET_VARIABLE), longest first."""
    values = {
        value.strip()
        for name, value in environ.items()
        if SECRET_VARIABLE.search(name.upper()) and len(value.strip()) >= MIN_SECRET_LENGTH
    }
    return tuple(sorted(values, key=len, reverse=True))
