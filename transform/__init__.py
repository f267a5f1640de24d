"""Validation and pure transformations of price records."""
