"""The ``phasegate`` command (also ``python -m phasegate``): the engines outside pytest.

Each sub-command lives in its own module, named as the command, with a
``register(subparsers)`` function. A command line that names a sub-command imports only that
module: each imports its engine, and importing all of them would cost every command about 0.2 s
(counted with callgrind: 1.30 G instructions to import them all, against 0.69 G for what
``gate run`` needs before it starts pytest).
Help without a command, a command without its sub-command, or an unknown command builds the
whole parser, so its help lists every command. Errors phasegate raises
on purpose are printed as one clear message; usage errors exit with 4, as pytest's do.
"""

from __future__ import annotations

import argparse
import importlib
import sys
from collections.abc import Callable, Sequence
from typing import NoReturn, TypeAlias

from phasegate import __version__
from phasegate.errors import USAGE_ERROR_EXIT_CODE, PhasegateError

__all__ = ["COMMANDS", "Subcommands", "build_parser", "main"]

#: The sub-commands, in the order ``phasegate --help`` lists them; each is a module of this
#: package with the same name.
COMMANDS = (
    "demo",
    "gate",
    "baseline",
    "merge",
    "metrics",
    "phase",
    "design",
    "plan",
    "report",
    "review",
    "schema",
    "task",
    "tdd",
    "autodebug",
)

Handler = Callable[[argparse.Namespace], int]

#: What ``add_subparsers`` returns: each sub-command's ``register`` adds its parser to it.
#: argparse does not export the class by a public name.
Subcommands: TypeAlias = "argparse._SubParsersAction[argparse.ArgumentParser]"


class _Parser(argparse.ArgumentParser):
    """argparse, but a usage error exits with 4 (as pytest's do), not argparse's 2."""

    def error(self, message: str) -> NoReturn:
        self.print_usage(sys.stderr)
        self.exit(USAGE_ERROR_EXIT_CODE, f"{self.prog}: error: {message}\n")


def build_parser(only: str | None = None) -> argparse.ArgumentParser:
    """The parser of the command: every sub-command, or only ``only`` when it names one."""
    parser = _Parser(
        prog="phasegate",
        description="Quality gates for pytest projects: real checks, a binary verdict.",
    )
    parser.add_argument("--version", action="version", version=f"phasegate {__version__}")
    subparsers = parser.add_subparsers(title="commands", metavar="COMMAND")
    names = (only,) if only is not None and only in COMMANDS else COMMANDS
    for name in names:
        importlib.import_module(f"phasegate.cli.{name}").register(subparsers)
    return parser


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line; returns the exit code."""
    arguments = list(sys.argv[1:] if argv is None else argv)
    try:  # building the parser may load plugins (report formats), which may be broken
        parser = build_parser(_command_named(arguments))
        args = parser.parse_args(arguments)
        handler: Handler | None = getattr(args, "handler", None)
        if handler is None:  # no command, or a command without its sub-command
            build_parser().print_help()
            return USAGE_ERROR_EXIT_CODE
        return handler(args)
    except PhasegateError as exc:
        print(f"phasegate: error: {exc}", file=sys.stderr)
        return USAGE_ERROR_EXIT_CODE
    except KeyboardInterrupt:
        print("phasegate: interrupted", file=sys.stderr)
        return 2


def _command_named(arguments: Sequence[str]) -> str | None:
    """The sub-command the arguments name, or None.

    Only a first argument counts: an option before it (``-h``, ``--version``) belongs to the
    whole command, whose help then lists every sub-command.
    """
    if arguments and not arguments[0].startswith("-"):
        return arguments[0]
    return None
