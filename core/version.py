"""The version of chipcost, recorded with every run."""

__version__ = "0.1.0"
