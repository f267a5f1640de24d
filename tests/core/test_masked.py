"""A password is masked in every message however a URL carries it (no user name, a raw '/' in
it, a lake's conninfo, a database's error text); a user name alone is no secret
(chipcost.core.clean.masked)."""

from __future__ import annotations

import pytest

from chipcost.core.clean import masked

SECRET = "hunter2SECRET"


@pytest.mark.parametrize(
    "text",
    [
        f"http://:{SECRET}@127.0.0.1:1",  # no user name
        f"http://user:Ab/cd{SECRET}@10.0.0.5:8000",  # a raw '/' in the password
        f"ducklake:postgres:postgresql://:{SECRET}@127.0.0.1:1/db",
        f"postgresql://u:pa/ss{SECRET}@h/db: connection refused",
    ],
)
def test_a_password_is_masked_however_the_url_carries_it(text):
    # on a81b4ee each was printed whole
    assert SECRET not in masked(text)


def test_a_user_name_alone_is_no_secret():
    assert masked("postgresql://chipcost@localhost/db") == "postgresql://chipcost@localhost/db"
