"""What AWS's public price files answer besides a file, through a real local HTTP server
(extract/aws/_files.py): a redirect loop, and a 403 that is or is not AWS's word for a file it
does not publish."""

from __future__ import annotations

import pytest

from chipcost.core.errors import SourceError
from chipcost.extract import _body, _http
from chipcost.extract.aws._files import NotPublished, download, get_bytes, get_json
from tests.fault_server import fault_server, longer, respond


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


S3_DENIED = (
    b'<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>AccessDenied</Code><Message>Access '
    b"Denied</Message><RequestId>0000000000000000</RequestId></Error>"
)
S3_NO_KEY = b"<Error><Code>NoSuchKey</Code><Message>The specified key does not exist.</Message>"
CHALLENGE = (
    b'<!DOCTYPE html><html lang="en-US"><head><title>Just a moment...</title></head><body>'
    b"<noscript>Enable JavaScript and cookies to continue</noscript></body></html>"
)
XML, HTML = {"Content-Type": "application/xml"}, {"Content-Type": "text/html"}


@pytest.mark.parametrize(
    ("status", "body", "kind"),
    [(403, S3_DENIED, XML), (404, S3_NO_KEY, XML), (404, b"Not Found", HTML)],
    ids=["S3 AccessDenied", "S3 NoSuchKey", "a plain 404"],
)
def test_what_aws_answers_for_a_file_it_lacks_is_not_published(status, body, kind):
    with fault_server(respond(status, body, kind)) as server:
        with pytest.raises(NotPublished, match="AWS publishes no file at"):
            get_json(_http.http_client("aws-bulk"), f"{server.url}/region_index.json", "aws-bulk")
        assert len(server.requests) == 1


@pytest.mark.parametrize(
    ("body", "kind"),
    [(CHALLENGE, HTML), (b"Forbidden", HTML), (b"", {})],
    ids=["a bot check's page", "a proxy's word", "no body"],
)
def test_any_other_403_is_a_refusal_naming_the_url_not_a_file_unpublished(tmp_path, body, kind):
    """On fc78b66b every 403 was "AWS publishes no file": the backfill skipped a version
    behind a bot check's "Just a moment..." page, telling to start --since later."""
    with fault_server(respond(403, body, kind)) as server:
        url = f"{server.url}/region_index.json"
        for read in (_get, _download):
            with pytest.raises(SourceError) as failed:
                read(url, tmp_path)
            assert not isinstance(failed.value, NotPublished)
            message = str(failed.value)
            assert message.startswith(f"aws-bulk: GET {url} answered 403 Forbidden")
            assert "not as AWS refuses a file it does not publish" in message
            assert message.endswith("run again, and check the network's proxy if it lasts")
    assert body[:20].decode() in message  # the page's first words, as a web source's 403


def test_an_index_longer_than_its_length_is_said_as_every_web_source_says_it(tmp_path):
    """On 803e984c an index or the spot feed whose body came longer than its Content-Length
    failed as 'failed after 5 attempt(s) (Longer: body longer than ...): check the network or
    proxy, then run again', advice no network mends: extract/_http.py words it as what it is."""
    index = b'{"offers": {}, "publicationDate": "2026-11-01"}' * 20
    with fault_server(longer(index, 500)) as server:
        url = f"{server.url}/region_index.json"
        with pytest.raises(SourceError) as failed:
            _get(url, tmp_path)
        assert len(server.requests) == _http.MAX_ATTEMPTS  # retried as a cut is
    assert str(failed.value) == (
        f"aws-bulk: GET {url} sent more than it said (body longer than its Content-Length: 500 "
        f"bytes said, at least {len(index):,} came); gave up after 5 attempt(s): {_body.LONGER}"
    )
