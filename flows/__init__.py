"""Prefect flows: thin schedules over chipcost's steps."""
