"""Whether a live run has a network at all, judged from what its own requests met.

Every source retries a connection that fails, which is right when one provider is down and
wrong when the machine is offline: each source would wait out its retries (about 17 s) for
nothing. One Network per live run: any host that answered proves the network is there; when
UNREACHABLE_HOSTS hosts or more failed to resolve or connect and none answered, the network
is down, and every source's next retry fails at once with that said.
"""

from __future__ import annotations

import re
import threading

from chipcost.core.budget import ByteBudget
from chipcost.core.errors import SourceError
from chipcost.core.settings import DEFAULT_RUN_PAYLOADS_MAX_MB, RUN_PAYLOADS_MAX_ENV

# Distinct hosts that must fail before the network is judged down: one or two hosts failing
# is a provider's outage (or its DNS), to be retried as usual.
UNREACHABLE_HOSTS = 3


class Network:
    """What the requests of one run met: the hosts that failed to connect, any answer, and
    the bytes the answers kept came to, decoded, every source's together (`bytes`)."""

    def __init__(
        self, threshold: int = UNREACHABLE_HOSTS, run_bytes: int = DEFAULT_RUN_PAYLOADS_MAX_MB << 20
    ) -> None:
        self.bytes = ByteBudget(
            run_bytes,
            RUN_PAYLOADS_MAX_ENV,
            "the run's answers, every source's together,",
            "per run",
        )
        self._lock = threading.Lock()
        self._failed: dict[str, str] = {}  # host -> the reason it could not be reached
        self._answered = False
        self.threshold = threshold

    def answered(self) -> None:
        """A host answered (any status): the network is there."""
        with self._lock:
            self._answered = True

    def unreachable(self, host: str, reason: str) -> None:
        """`host` could not be resolved or connected to: `reason` is the error's text, said
        without its number ('[Errno -3] Temporary failure in name resolution')."""
        lines = reason.strip().splitlines()
        reason = re.sub(r"^\[Errno -?\d+\] ", "", lines[0] if lines else "")[:120]
        with self._lock:
            self._failed.setdefault(host, reason)

    def down(self) -> bool:
        with self._lock:
            return not self._answered and len(self._failed) >= self.threshold

    def check(self, where: str) -> None:
        """SourceError once the network is down: no retry can succeed, so it is said at once."""
        if self.down():
            raise SourceError(
                f"{where}: not tried again, the network is unreachable ({self.said()})"
            )

    def said(self) -> str:
        """The evidence, for the message: how many hosts failed, none answered, and why."""
        with self._lock:
            count = len(self._failed)
            reason = next(iter(self._failed.values()), "")
        return f"{count} hosts failed to resolve or connect, none answered: {reason}"
