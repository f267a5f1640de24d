"""One module per command (or group); chipcost.cli.registry names each one's module.

A module here must not import Prefect (or anything heavy) at import time: `chipcost --help`
loads every command module, and `chipcost demo` or `measure` the modules of the commands they
run, and each must stay quick and Prefect-free.
"""
