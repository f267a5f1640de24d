"""The AWS sources (Price List API and files, savings plans, spot, Capacity Blocks) and the
helpers only they share."""
