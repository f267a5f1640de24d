"""One module per command (or group); chipcost.cli.main registers each by name.

A module here must not import Prefect (or anything heavy) at import time: `chipcost prices`
and `chipcost sql` load every command module and must stay quick and Prefect-free.
"""
