"""Put untrusted text (test names, exception messages, findings) safely into Markdown.

Everything shown in a pull request comes from the code under test, which in a pull request
from a fork is anyone's. So text is never trusted to be Markdown: punctuation that Markdown or
HTML would act on is escaped, ``@`` cannot mention anyone, code spans and fences are made
longer than any run of backticks inside them, and table cells cannot break their row.
Hand-written because it is a dozen lines and the rules are GitHub's own.
"""

from __future__ import annotations

import html
import re

__all__ = ["cell", "code", "fence", "text", "truncate"]

_SPECIAL = re.compile(r"([\\`*_\[\]|~>])")
_BACKTICKS = re.compile(r"`+")
_WORD_JOINER = "\u2060"


def truncate(value: str, limit: int) -> str:
    """At most ``limit`` characters, ending in an ellipsis when cut."""
    return value if len(value) <= limit else value[: max(0, limit - 1)] + "\u2026"


def text(value: str, limit: int = 500) -> str:
    """Plain text on one line: no Markdown, no HTML, no mentions."""
    flat = " ".join(truncate(value, limit).split())
    escaped = _SPECIAL.sub(r"\\\1", html.escape(flat, quote=False))
    return escaped.replace("@", "@" + _WORD_JOINER)


def code(value: str, limit: int = 300) -> str:
    """An inline code span holding ``value`` on one line."""
    flat = " ".join(truncate(value, limit).split())
    longest = max((len(run) for run in _BACKTICKS.findall(flat)), default=0)
    ticks = "`" * (longest + 1)
    pad = " " if flat.startswith("`") or flat.endswith("`") or not flat else ""
    return f"{ticks}{pad}{flat}{pad}{ticks}"


def cell(markdown: str) -> str:
    """Make inline Markdown safe inside a table cell (a ``|`` would end the cell)."""
    return markdown.replace("\\|", "|").replace("|", "\\|")


def fence(body: str, info: str = "") -> str:
    """A fenced code block that no line of ``body`` can close early."""
    longest = max((len(run) for run in _BACKTICKS.findall(body)), default=0)
    ticks = "`" * max(3, longest + 1)
    return f"{ticks}{info}\n{body.rstrip()}\n{ticks}"
