"""A test's child process that cannot write past a file's or directory's modes, as a user who
is not root cannot: what a read-only path does to a command, seen in a process of its own."""

from __future__ import annotations

import os

PR_CAPBSET_DROP, CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH = 24, 1, 2


def without_override() -> None:
    """Root writes anywhere: the child of a root test loses the capability to (Linux). For
    subprocess's preexec_fn: the capabilities go at the child's exec."""
    if os.geteuid() != 0:
        return
    import ctypes

    libc = ctypes.CDLL(None, use_errno=True)
    for capability in (CAP_DAC_OVERRIDE, CAP_DAC_READ_SEARCH):
        if libc.prctl(PR_CAPBSET_DROP, capability, 0, 0, 0) != 0:
            raise OSError(ctypes.get_errno(), "cannot drop the capability to override modes")
