"""The raw archive: every fetched payload, gzip-compressed, with fetch time and sha256.

Layout (docs/archive.md): <root>/<run stamp>/<source>/manifest.json plus one
<NNNN>.<ext>.gz per payload. The root is a directory or an s3://bucket/prefix URL (through
fsspec: the same layout, manifests and checks; endpoint and keys from CHIPCOST_S3_*).
A run stamp is the UTC start of the collection run, e.g. 2026-11-15T060000Z, so sorting
directory names sorts runs by time.

Where it lives and its stamps are `store`, writing is `writer`, listing runs and sources
`runs`, a manifest checked `manifest`, payloads read back `reader`; the names the rest of
chipcost uses are here.
"""

from chipcost.archive.manifest import MANIFEST_MAX_BYTES, MANIFEST_MAX_DEPTH, read_manifest
from chipcost.archive.reader import ReadBudget, is_sample, read_payloads, run_budget
from chipcost.archive.runs import (
    archived_sources,
    not_runs,
    run_directories,
    sources_in,
    unfinished_sources,
)
from chipcost.archive.store import MANIFEST, location, parse_stamp, run_stamp
from chipcost.archive.writer import ArchiveWriter

__all__ = [
    "MANIFEST",
    "MANIFEST_MAX_BYTES",
    "MANIFEST_MAX_DEPTH",
    "ArchiveWriter",
    "ReadBudget",
    "archived_sources",
    "is_sample",
    "location",
    "not_runs",
    "parse_stamp",
    "read_manifest",
    "read_payloads",
    "run_budget",
    "run_directories",
    "run_stamp",
    "sources_in",
    "unfinished_sources",
]
