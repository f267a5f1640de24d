"""The `chipcost` command line: options, console rendering, and one module per command."""
