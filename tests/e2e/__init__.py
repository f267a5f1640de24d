"""chipcost as processes of their own, where the process is the subject: killed mid-load
(SIGKILL, Ctrl-C, SIGTERM), two collectors at once, a warehouse another process holds, a Prefect
server gone mid-run, nothing left running after `--prefect`. Every other test runs the command
in its own process (tests/cli_runner.py)."""
