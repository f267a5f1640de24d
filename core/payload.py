"""A raw payload exactly as the provider sent it, and its checksum."""

from __future__ import annotations

from dataclasses import dataclass, field
from datetime import datetime, timedelta
from typing import Any

from chipcost.core.errors import ParseError

# A run or payload dated ahead of this machine's clock by more than this was not fetched yet:
# loaded, its prices would stand until that moment and hide every real run's change.
AHEAD_OF_NOW = timedelta(minutes=10)


@dataclass(frozen=True)
class Payload:
    """One raw payload exactly as the provider returned it."""

    data: bytes
    url: str
    fetched_at: datetime
    name: str = ""
    ref: str = ""
    request: dict[str, Any] = field(default_factory=dict)
    # The charset the answer's Content-Type declared ("" when it named none): a web page's
    # bytes are read by it before any <meta> (extract/_html_encoding.py).
    charset: str = ""

    def text(self) -> str:
        """The payload as UTF-8 text; a payload that is not is a ParseError naming it."""
        try:
            return self.data.decode("utf-8")
        except UnicodeDecodeError as exc:
            raise ParseError(
                f"payload {self.ref or self.name or '?'} ({self.url}) is not UTF-8 text "
                f"({exc.reason} at byte {exc.start}): re-fetch, or report a format change"
            ) from exc


def sha256(data: bytes) -> str:
    import hashlib  # writers only: a read imports this module for AHEAD_OF_NOW, not OpenSSL

    return hashlib.sha256(data).hexdigest()
