"""The ``phasegate`` command (also ``python -m phasegate``): the engines outside pytest.

Each sub-command lives in its own module with a ``register(subparsers)`` function. Errors
phasegate raises on purpose are printed as one clear message; usage errors exit with 4, as
pytest's do.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn

from phasegate import __version__
from phasegate.cli import (
    autodebug,
    demo,
    gate,
    merge,
    metrics,
    phase,
    report,
    review,
    schema,
    task,
    tdd,
)
from phasegate.errors import USAGE_ERROR_EXIT_CODE, PhasegateError

__all__ = ["build_parser", "main"]

_COMMANDS = (demo, gate, merge, metrics, phase, report, review, schema, task, tdd, autodebug)

Handler = Callable[[argparse.Namespace], int]


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits with 4 (as pytest's do), not argparse's 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR_EXIT_CODE, f"{self.prog}: error: {message}\n")


def build_parser() -> argparse.ArgumentParser:
    """The parser of the whole command, with every sub-command registered."""
    parser = _Parser(
        prog="phasegate",
        description="Quality gates for pytest projects: real checks, a binary verdict.",
    )
    parser.add_argument("--version", action="version", version=f"phasegate {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    for command in _COMMANDS:
        command.register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    parser = build_parser()
    args = parser.parse_args(argv)
    handler: Handler | None = getattr(args, "handler", None)
    if handler is None:
        parser.print_help()
        return USAGE_ERROR_EXIT_CODE
    try:
        return handler(args)
    except PhasegateError as exc:
        print(f"phasegate: error: {exc}", file=sys.stderr)
        return USAGE_ERROR_EXIT_CODE
    except KeyboardInterrupt:
        print("phasegate: interrupted", file=sys.stderr)
        return 2
