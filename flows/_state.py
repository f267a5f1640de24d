"""What a flow run ended with, for the commands that run a flow in-process."""

from __future__ import annotations

from typing import Any

from prefect.client.schemas.objects import State

from chipcost.core.errors import Stopped


def returned(state: State, stopped: type[Stopped], flow: str) -> Any:
    """The run's return value; a failed run raises the flow's own `stopped` (made as
    `stopped(message, outcomes)`), or one made from the state's message."""
    if state.is_failed():
        data = state.result(raise_on_failure=False)
        if isinstance(data, stopped):
            raise data
        raise stopped(state.message or f"the {flow} flow failed", [])
    return state.result()
