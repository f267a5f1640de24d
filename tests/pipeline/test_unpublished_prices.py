"""A chip whose rental price no public page gives (unpublished_prices.csv): `prices` says so, with
its source and words, when no source has a current price for it."""

from __future__ import annotations

from chipcost.core.catalog import canonical_chips, unpublished_prices
from chipcost.reads.price_notes import unpublished_words


def test_trainium3_and_tpu7x_say_not_published_with_their_source():
    found = unpublished_prices()
    assert {"Trainium3", "TPU-v7"} <= set(found)
    assert set(found) <= canonical_chips()
    for row in found.values():
        assert row["status"] == "not published" and row["source"] and row["words"]
    words = unpublished_words(["TPU-v7", "H100-SXM"])
    assert words.startswith("TPU-v7: price not published (Google Cloud TPU documentation")
    assert '"To get access to TPU7x, contact your account team."' in words
    assert "H100-SXM" not in words and unpublished_words(["H100-SXM"]) == ""
