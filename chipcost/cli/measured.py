"""What a throughput typed in by hand (`chipcost throughput add`) must be: a day that exists,
a rate a chip can reach, an instance that can exist. Each refused in one line naming the
option."""

from __future__ import annotations

from datetime import date

from chipcost.core.errors import UsageError

# Below a hundredth of a token a second no workload is served or trained: a unit slip.
MIN_TOKENS_PER_SECOND = 0.01
# The largest set of chips rented as one: a TPU v5p pod, "8,960 chips" (Google Cloud, TPU v5p
# documentation, cloud.google.com/tpu/docs/v5p); twice that leaves room, a billion does not.
MAX_CHIPS = 16_384


def check_measured_on(text: str | None) -> None:
    """YYYY, YYYY-MM or YYYY-MM-DD naming a month or day that exists (not 2026-02-30, 2026-00)."""
    if not text:
        return
    parts = text.strip().split("-")
    try:
        if len(parts) == 3:
            date.fromisoformat(text.strip())
        elif len(parts) == 2 and not 1 <= int(parts[1]) <= 12:
            raise ValueError(parts[1])
    except ValueError:
        raise UsageError(
            f"--measured-on {text!r} is not a day that exists: write YYYY-MM-DD, e.g. 2026-11-20"
        ) from None


def check_figure(tokens_per_second_per_chip: float, chips: float | None) -> None:
    """A measured rate and instance size within what any chip and instance reach."""
    if chips is not None and not 1 <= chips <= MAX_CHIPS:
        raise UsageError(f"--chip-count {chips:g}: give 1 to {MAX_CHIPS:,} chips per instance")
    if not tokens_per_second_per_chip >= MIN_TOKENS_PER_SECOND:
        raise UsageError(
            f"--tokens-per-second: {tokens_per_second_per_chip:g} tokens/s per chip is below "
            f"{MIN_TOKENS_PER_SECOND:g}: no workload runs that slowly (a unit slip?)"
        )
