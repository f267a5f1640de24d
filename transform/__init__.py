"""Validation and pure transformations: price records, and cost per token's evidence model."""
