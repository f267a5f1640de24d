"""What AWS's public price files answer besides a file, through a real local HTTP server
(extract/aws/_files.py): a redirect loop, and a 403 that is or is not AWS's word for a file it
does not publish."""

from __future__ import annotations

import pytest

from chipcost.core.errors import SourceError
from chipcost.extract import _http
from chipcost.extract.aws._files import download, get_bytes
from tests.fault_server import fault_server, respond


@pytest.fixture(autouse=True)
def quick(monkeypatch):
    monkeypatch.setattr(_http, "BACKOFF_BASE", 0.01)


LOOP = respond(302, b"", {"Location": "/index.json"})  # redirects to itself


def _get(url: str, tmp_path) -> object:
    return get_bytes(_http.http_client("aws-bulk"), url, "aws-bulk")


def _download(url: str, tmp_path) -> object:
    return download(_http.http_client("aws-bulk"), url, tmp_path / "f.csv", source="aws-bulk")


@pytest.mark.parametrize("read", [_get, _download], ids=["index", "price file"])
def test_a_redirect_loop_is_said_as_a_web_source_says_it(tmp_path, read):
    """On fc78b66b an index or the spot feed at a URL redirecting to itself failed as
    "unexpected TooManyRedirects in aws-bulk: ... a bug in chipcost" (httpx's
    TooManyRedirects is no TransportError), and a price file's download the same."""
    with fault_server(LOOP) as server:
        url = f"{server.url}/index.json"
        with pytest.raises(SourceError) as failed:
            read(url, tmp_path)
        assert len(server.requests) == 1 + _http.MAX_REDIRECTS  # not retried
    assert str(failed.value) == f"aws-bulk: GET {url} redirected more than 5 times: report it"
