"""A derived figure's source text: how it was derived, then its chip's sources after PEAK or
CHIP, then its model's after PARAMETERS or MODEL. The derivations write it
(transform/derivation.py, transform/training.py); the outputs that say the method alone
read it back with `derived_parts`."""

from __future__ import annotations

PEAK = "; peak: "  # the derivation's (training): the dense peak's datasheet
CHIP = "; chip: "  # the roofline's (inference): the chip's peak, memory and bandwidth
PARAMETERS = "; parameters: "
MODEL = "; model: "


def derived_parts(source: str) -> tuple[str, str, str]:
    """(how it was derived, its chip's sources with their mark, its model's source): the
    model's is said once under a list of figures, the chip's only when asked for whole."""
    rest, model = source, ""
    for mark in (PARAMETERS, MODEL):
        if mark in rest:
            rest, _, model = rest.partition(mark)
            break
    for mark in (PEAK, CHIP):
        method, found, spec = rest.partition(mark)
        if found:
            return method, found + spec, model
    return rest, "", model
