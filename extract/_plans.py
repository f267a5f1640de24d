"""Moved to extract/_kit.py; kept until every source imports the kit (issue: declared once)."""

from chipcost.extract._kit import missing_key  # noqa: F401
