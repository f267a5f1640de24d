"""A PUT given up on at its deadline may still land: the next PUT of the object waits for it."""

from __future__ import annotations

import threading

import pytest

from chipcost.archive import writer
from chipcost.core.errors import ArchiveError


class SlowObject:
    """An S3 object whose first write hangs until released, as behind a stalled endpoint."""

    def __init__(self, landed: list[bytes], release: threading.Event) -> None:
        self.landed, self.release, self.calls = landed, release, 0

    def write_bytes(self, data: bytes) -> None:
        self.calls += 1
        if self.calls == 1:
            self.release.wait(10)
        self.landed.append(data)

    def __str__(self) -> str:
        return "s3://bucket/archive/run/source/manifest.json"


def test_an_abandoned_put_lands_before_the_next_put_of_the_same_object(monkeypatch):
    monkeypatch.setattr(writer, "PUT_SECONDS", 0.5)
    landed: list[bytes] = []
    release = threading.Event()
    target = SlowObject(landed, release)
    with pytest.raises(ArchiveError, match="no answer"):
        writer._put(target, b"older manifest")
    # The endpoint answers the abandoned request a moment after the next write starts.
    threading.Timer(0.2, release.set).start()
    writer._put(target, b"newer manifest")
    assert landed == [b"older manifest", b"newer manifest"]
