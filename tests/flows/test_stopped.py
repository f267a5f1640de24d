"""A failed flow's exception survives pickling with what it did (a result store pickles it)."""

from __future__ import annotations

import pickle

import pytest

from chipcost.core.errors import ChipcostError, Stopped
from chipcost.flows.backfill import BackfillStopped
from chipcost.pipeline.collection import CollectFailed


@pytest.mark.parametrize("kind", [Stopped, CollectFailed, BackfillStopped])
def test_a_stopped_flow_pickles_with_its_outcomes(kind):
    stopped = pickle.loads(pickle.dumps(kind("every source failed", ["outcome"])))
    assert type(stopped) is kind
    assert str(stopped) == "every source failed" and stopped.outcomes == ["outcome"]


def test_an_error_with_details_pickles_with_them():
    error = ChipcostError("bad rows", details=["line 2: x", "line 3: y"])
    again = pickle.loads(pickle.dumps(error))
    assert str(again) == "bad rows: line 2: x; line 3: y"
    assert again.headline == "bad rows" and again.details == ("line 2: x", "line 3: y")
