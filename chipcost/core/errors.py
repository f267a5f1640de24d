"""Errors chipcost raises on purpose: each carries a message a user can act on."""


class ChipcostError(Exception):
    """An expected failure: the CLI prints its message, never a traceback."""


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


class WarehouseError(ChipcostError):
    """The warehouse file cannot be opened or is not a chipcost warehouse."""
