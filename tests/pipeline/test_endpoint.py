"""`measure --endpoint` and its API key checked before any request
(chipcost.pipeline.endpoint.endpoint_of): a password that ended the host, a key no HTTP header
can carry, port 0, a query or fragment; each a usage error that never shows the secret."""

from __future__ import annotations

import re

import pytest

from chipcost.core.errors import UsageError
from chipcost.pipeline.endpoint import endpoint_of

SECRET = "hunter2SECRET"


@pytest.mark.parametrize(
    "given",
    [f"http://user:8000/{SECRET}@10.0.0.5:8000", f"http://user:Ab/cd{SECRET}@10.0.0.5:8000"],
)
def test_an_endpoint_whose_password_ended_its_host_is_refused(given):
    # the first was accepted on a81b4ee: host 'user', the password part of its path
    with pytest.raises(UsageError) as refusal:
        endpoint_of(given)
    assert SECRET not in str(refusal.value)


@pytest.mark.parametrize("key", [f"sk-{SECRET}\nsk-{SECRET}", f"sk-{SECRET}€", f"sk {SECRET}"])
def test_an_api_key_no_header_can_carry_is_refused_without_it(key):
    # on a81b4ee the first was printed whole in httpx's error, the second a traceback
    with pytest.raises(UsageError, match="a character an HTTP header cannot carry") as refusal:
        endpoint_of("http://127.0.0.1:9", key)
    assert SECRET not in str(refusal.value)


@pytest.mark.parametrize(
    ("endpoint", "said"),
    [
        # each was taken on e2f7b55: port 0 connected to, the query dropped without a word
        ("http://127.0.0.1:0", "port 0 is no server's"),
        (f"http://h:1/?api_key={SECRET}", "with a query or fragment (?... or #..., not shown)"),
    ],
)
def test_an_endpoint_no_request_would_reach_as_given_is_refused(endpoint, said):
    with pytest.raises(UsageError, match=re.escape(said)) as refusal:
        endpoint_of(endpoint)
    assert SECRET not in str(refusal.value)
