"""The read layer: each question users ask of the warehouse (prices, history, index, cost,
compare, sources, export), its ask checked, read and answered once for the command line, the
Python API and the reports."""
