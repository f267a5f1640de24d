"""Moved to extract/_kit.py; kept until every source imports the kit (issue: declared once)."""

from chipcost.extract._kit import (  # noqa: F401
    NOT_A_PRICE,
    PriceError,
    parse_count,
    parse_price,
    require_columns,
    require_offers,
)
