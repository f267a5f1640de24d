"""Moved to extract/_kit.py; kept until every source imports the kit (issue: declared once)."""

from chipcost.extract._kit import (  # noqa: F401
    ALIASES_FILE,
    PLAIN_NUMBER,
    ChipNames,
    field_names,
    json_price,
    listed_rows,
    load_json,
    price_of,
    reject,
    shape_error,
    slug,
)
