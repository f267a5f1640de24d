"""What every command shares: the common options, made from the fields the read commands
declare (chipcost.core.questions), and the consoles."""

from __future__ import annotations

from chipcost.cli.consoles import DEFAULT_TABLE_ROWS, MAX_LIMIT, err, out
from chipcost.cli.declared import option_type
from chipcost.core import questions

__all__ = [
    "DEFAULT_TABLE_ROWS",
    "MAX_LIMIT",
    "DbOption",
    "FormatOption",
    "PriceFormatOption",
    "LimitOption",
    "OldModelOption",
    "PricingModelOption",
    "CurrencyOption",
    "ListPricesOption",
    "SpeedOption",
    "WideOption",
    "err",
    "out",
]

DbOption = option_type(questions.DB)
PricingModelOption = option_type(questions.PRICES.field("pricing_model"))
# The old name of --pricing-model, still taken.
OldModelOption = option_type(questions.PRICES.field("model"))
LimitOption = option_type(questions.LIMIT)
CurrencyOption = option_type(questions.CURRENCY)
ListPricesOption = option_type(questions.LIST_PRICES)
SpeedOption = option_type(questions.SPEED)
WideOption = option_type(questions.WIDE)
FormatOption = option_type(questions.FORMAT)
PriceFormatOption = option_type(questions.PRICES.field("format"))
