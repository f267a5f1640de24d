"""The ground layer: the vocabulary every other layer speaks; it imports nothing of chipcost."""
