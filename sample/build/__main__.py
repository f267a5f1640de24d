"""Rebuilds the sample archive: python -m chipcost.sample.build [--out DIR]."""

from __future__ import annotations

import argparse
from pathlib import Path

from chipcost.sample import ARCHIVE
from chipcost.sample.build import MissingBuilder, build
from chipcost.sample.build._scramble import MissingFixture


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(
        prog="python -m chipcost.sample.build",
        description="Write every source's sample runs (deterministic: the same bytes each time).",
    )
    parser.add_argument(
        "--out",
        type=Path,
        default=ARCHIVE,
        help="archive root (default: the bundled sample archive)",
    )
    args = parser.parse_args(argv)
    try:
        written = build(args.out)
    except (MissingBuilder, MissingFixture) as exc:
        raise SystemExit(f"error: {exc}") from exc
    for directory in written:
        print(directory)


if __name__ == "__main__":
    main()
