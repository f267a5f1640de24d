"""Errors chipcost raises on purpose: each carries a message a user can act on."""

from chipcost.core.clean import masked


class ChipcostError(Exception):
    """An expected failure: the CLI prints its message, never a traceback.

    `details` (one problem each, e.g. every bad row of a file) are printed one per line
    under the message; str() holds them too, after the message, for logs and the API.
    """

    def __init__(self, message: str = "", *, details: tuple[str, ...] | list[str] = ()) -> None:
        # No message carries a password, whatever error text it quotes (a lake's conninfo).
        message = masked(message)
        self.headline = message
        self.details = tuple(masked(d) for d in details)
        super().__init__(f"{message}: {'; '.join(self.details)}" if self.details else message)


class MissingRateWarning(UserWarning):
    """A read of the Python API left prices out for want of an exchange rate: the warning
    names them, each in its own currency with its days, and the command that fetches the
    rates (the command line says the same under its rows)."""


class NoMatch(ChipcostError):
    """A read matched nothing: the message says which part of the question has no answer.
    The CLI exits 1 in every format; csv and json first write an empty result."""


class UsageError(ChipcostError):
    """A value chipcost does not take for an option or keyword: the message names the option,
    the value given and the accepted values (or the closest of a long list). The command line
    exits 2 on it, as on any other usage error; the API raises it as a ChipcostError."""


class SourceSkipped(ChipcostError):
    """A source cannot run here (no credentials, no network); not a failure of the data."""


class SourceError(ChipcostError):
    """A source ran but its payload could not be fetched or parsed at all."""


class ParseError(SourceError):
    """A raw payload is not in the shape its parser expects."""


class ArchiveError(ChipcostError):
    """An archived payload is missing, corrupt or does not match its checksum."""


class WarehouseBusy(ChipcostError):
    """Another process holds the DuckDB file."""


class WarehouseLost(WarehouseBusy):
    """The warehouse stopped answering in the middle of a write (a lake's PostgreSQL stopped,
    restarted or cut off): nothing of the write was committed; running it again is the cure."""


class WarehouseError(ChipcostError):
    """The warehouse file cannot be opened or is not a chipcost warehouse."""


class Stopped(ChipcostError):
    """A collection or backfill failed; `outcomes` holds what it did before it stopped."""

    def __init__(self, message: str, outcomes: list) -> None:
        super().__init__(message)
        self.outcomes = outcomes

    def __reduce__(self) -> tuple:
        # Pickled with its outcomes (a result store pickles a failed run's exception): the
        # default would call __init__ with the message alone.
        return type(self), (str(self), self.outcomes)
