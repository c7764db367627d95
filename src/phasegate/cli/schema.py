"""``phasegate schema``: export the JSON Schemas of phasegate's artifacts."""

from __future__ import annotations

import argparse
from pathlib import Path

from phasegate.cli import Subcommands
from phasegate.schema import export_schemas

__all__ = ["register"]


def register(subparsers: Subcommands) -> None:
    """Add the ``schema`` sub-command."""
    parser: argparse.ArgumentParser = subparsers.add_parser(
        "schema",
        help="export the JSON Schemas of the artifacts",
        description="Write one JSON Schema file per artifact into DIR.",
    )
    parser.add_argument("--out", required=True, type=Path, metavar="DIR", help="output folder")
    parser.set_defaults(handler=_run)


def _run(args: argparse.Namespace) -> int:
    for path in export_schemas(args.out):
        print(path)
    return 0
