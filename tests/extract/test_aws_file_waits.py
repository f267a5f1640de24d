"""AWS's price files: a Retry-After longer than the retry budget fails the source at once,
for the small files and the streamed downloads alike.

On main at 368c4bd the downloads slept for any Retry-After (999999 s, or an HTTP date in
2100): a collect hung until it was killed.
"""

from __future__ import annotations

import time

import httpx
import pytest

from chipcost.core.errors import SourceError
from chipcost.extract import _http
from chipcost.extract.aws._files import download, get_bytes

URL = "https://pricing.us-east-1.amazonaws.com/offers/v1.0/aws/index.json"


def client_answering(*responses: httpx.Response) -> tuple[_http.HttpClient, list[float]]:
    waits: list[float] = []
    queue = list(responses)

    def answer(request: httpx.Request) -> httpx.Response:
        return queue.pop(0) if len(queue) > 1 else queue[0]

    client = _http.http_client("aws", transport=httpx.MockTransport(answer), sleep=waits.append)
    return client, waits


@pytest.mark.parametrize(
    "after", ["999999", "Fri, 01 Jan 2100 00:00:00 GMT"], ids=["seconds", "http-date"]
)
def test_a_retry_after_past_the_budget_fails_at_once(after):
    client, waits = client_answering(httpx.Response(503, headers={"Retry-After": after}))
    started = time.monotonic()
    with pytest.raises(SourceError, match="asked to wait .* past the 120 s"):
        get_bytes(client, URL, "aws-bulk")
    assert waits == [] and time.monotonic() - started < 5


def test_a_download_asked_to_wait_too_long_fails_at_once(tmp_path):
    client, waits = client_answering(httpx.Response(503, headers={"Retry-After": "999999"}))
    with pytest.raises(SourceError, match="asked to wait 999,999 s"):
        download(client, URL, tmp_path / "index.json", source="aws-bulk")
    assert waits == []


def test_a_short_retry_after_is_obeyed():
    client, waits = client_answering(
        httpx.Response(503, headers={"Retry-After": "3"}), httpx.Response(200, content=b"{}")
    )
    assert get_bytes(client, URL, "aws-bulk") == b"{}"
    assert waits == [3.0]
