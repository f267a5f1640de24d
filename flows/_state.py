"""What a flow run ended with, for the commands that run a flow in-process."""

from __future__ import annotations

from typing import Any

from prefect.client.schemas.objects import State

from chipcost.core.errors import ChipcostError


class FlowStopped(ChipcostError):
    """A flow run failed; `outcomes` holds what it did before it stopped."""

    def __init__(self, message: str, outcomes: list) -> None:
        super().__init__(message)
        self.outcomes = outcomes

    def __reduce__(self) -> tuple:
        # Pickled with its outcomes (a result store pickles a failed run's exception): the
        # default would call __init__ with the message alone.
        return type(self), (str(self), self.outcomes)


def returned(state: State, stopped: type[FlowStopped], flow: str) -> Any:
    """The run's return value; a failed run raises the flow's own `stopped` (with its
    outcomes), or one made from the state's message."""
    if state.is_failed():
        data = state.result(raise_on_failure=False)
        if isinstance(data, stopped):
            raise data
        raise stopped(state.message or f"the {flow} flow failed", [])
    return state.result()
