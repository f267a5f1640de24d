"""What a flow run ended with, for the commands that run a flow in-process; and, in a
deployed run, said once, without a traceback."""

from __future__ import annotations

import logging
from typing import Any

from prefect.client.schemas.objects import State

from chipcost.core.errors import ChipcostError, Stopped

# Where Prefect's engine logs a flow run's end (prefect.flow_engine.flow_run_logger).
FLOW_RUN_LOGGER = "prefect.flow_runs"


class _SaidAlready(logging.Filter):
    """A deployed run's engine returns a Failed state's result at its end, which raises the
    state's exception, and logs it with its traceback ("Engine execution exited with
    unexpected exception"). A chipcost failure is expected: its one line is the run's Failed
    message, logged already; the record with the traceback is left out."""

    def filter(self, record: logging.LogRecord) -> bool:
        failure = record.exc_info[1] if record.exc_info else None
        return not isinstance(failure, ChipcostError)


_SAID_ALREADY = _SaidAlready()


def plain_failures() -> None:
    """Expected failures of this process's flow runs logged once, without a traceback."""
    logger = logging.getLogger(FLOW_RUN_LOGGER)
    if _SAID_ALREADY not in logger.filters:
        logger.addFilter(_SAID_ALREADY)


def returned(state: State, stopped: type[Stopped], flow: str) -> Any:
    """The run's return value; a failed run raises the flow's own `stopped` (made as
    `stopped(message, outcomes)`), or one made from the state's message."""
    if state.is_failed():
        data = state.result(raise_on_failure=False)
        if isinstance(data, stopped):
            raise data
        raise stopped(state.message or f"the {flow} flow failed", [])
    return state.result()
