"""Suppressions added by the change: comments and decorators that silence a tool.

``# noqa`` (and file-wide ``# ruff: noqa``, ``# flake8: noqa``), ``# type: ignore``,
``# pyright: ignore``, ``# mypy: ignore-errors``, ``# nosec``, ``# pragma: no cover`` (and
``no branch``), ``# pylint: disable`` and the ``typing.no_type_check`` decorator. Comments are
read with :mod:`tokenize`, so a directive inside a string is not one; a comment may hold several
(``# type: ignore[attr-defined]  # noqa: E501``). Only suppressions the change adds count: per
file, those beyond the base's count of the same directive.

An added suppression is a trick unless it carries what the project's policy asks: by default a
specific code (``noqa: S602``, ``type: ignore[arg-type]``, ``nosec B602``,
``pylint: disable=...``; directives that take none are exempt) and a written reason of at least
two words after it (``# noqa: S602 -- input is a constant``), after ``--``, ``—`` or a further
``#``, or on the comment line just above the suppressed line. The directive grammar is
hand-written here: no library parses the suppression comments of all these tools at once.
"""

from __future__ import annotations

import ast
import dataclasses
import io
import re
import tokenize
from collections import Counter
from dataclasses import dataclass

from phasegate.gates.protocol import CheckError
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick

__all__ = ["DEFAULT_REASON_PATTERN", "Suppression", "SuppressionPolicy", "suppression_tricks"]

#: A reason is at least two words.
DEFAULT_REASON_PATTERN = r"\w+\W+\w+"

_CODES = r"(?P<codes>[A-Za-z]+[0-9]+(?:\s*,\s*[A-Za-z]+[0-9]+)*)"
#: (kind, pattern on one comment segment, whether the directive takes codes, what it silences)
_DIRECTIVES: list[tuple[str, re.Pattern[str], bool, str]] = [
    (
        "ruff: noqa",
        re.compile(rf"^(?:ruff|flake8)\s*:\s*noqa\b(?:\s*:\s*{_CODES})?", re.I),
        True,
        "silences the linter for the whole file",
    ),
    ("noqa", re.compile(rf"^noqa\b(?:\s*:\s*{_CODES})?", re.I), True, "silences the linter"),
    (
        "type: ignore",
        re.compile(r"^type\s*:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?", re.I),
        True,
        "silences the type checker",
    ),
    (
        "pyright: ignore",
        re.compile(r"^pyright\s*:\s*ignore\b(?:\[(?P<codes>[^\]]*)\])?", re.I),
        True,
        "silences the type checker",
    ),
    (
        "mypy: ignore-errors",
        re.compile(r"^mypy\s*:\s*ignore-errors\b", re.I),
        False,
        "silences the type checker for the whole file",
    ),
    (
        "nosec",
        re.compile(r"^nosec\b(?:\s*:?\s*(?P<codes>B\d+(?:\s*,\s*B\d+)*))?", re.I),
        True,
        "silences the security check",
    ),
    (
        "pragma: no cover",
        re.compile(r"^pragma\s*:\s*no\s*(?:cover|branch)\b", re.I),
        False,
        "hides the lines from coverage",
    ),
    (
        "pylint: disable",
        re.compile(
            r"^pylint\s*:\s*disable(?:-next)?\s*=\s*(?P<codes>[\w-]+(?:\s*,\s*[\w-]+)*)", re.I
        ),
        True,
        "silences pylint",
    ),
]
_NO_TYPE_CHECK = "no_type_check"
_NO_TYPE_CHECK_EFFECT = "turns type checking of the function off"


@dataclass(frozen=True)
class SuppressionPolicy:
    """What an added suppression must carry to be accepted."""

    needs_code: bool = True
    reason_pattern: str = DEFAULT_REASON_PATTERN


@dataclass(frozen=True)
class Suppression:
    """One suppression directive in a file."""

    kind: str
    line: int
    codes: str
    reason: str
    takes_codes: bool
    effect: str

    @property
    def key(self) -> tuple[str, str]:
        """What makes two suppressions the same, wherever they are."""
        return self.kind, self.codes


def suppression_tricks(sources: ChangedSources, policy: SuppressionPolicy) -> list[Trick]:
    """Each suppression the change adds without what the policy asks."""
    try:
        reason = re.compile(policy.reason_pattern)
    except re.error as exc:  # the options model compiles it first; this guards direct use
        raise CheckError(
            f"suppression_reason {policy.reason_pattern!r} is no regex: {exc}"
        ) from exc
    tricks: list[Trick] = []
    for path in sources.python_paths():
        now = sources.head_text(path)
        if now is None:
            continue
        was = sources.base_text(path)
        before = (
            Counter(s.key for s in find_suppressions(was, path)) if was is not None else Counter()
        )
        for suppression in find_suppressions(now, path):
            if before[suppression.key] > 0:
                before[suppression.key] -= 1
                continue
            missing = _missing(suppression, policy, reason)
            if missing:
                tricks.append(
                    Trick(
                        "suppressions",
                        suppression.kind.replace(": ", "-").replace(" ", "-").replace("_", "-")
                        + "-without-reason",
                        path,
                        suppression.line,
                        f"{_shown(suppression)} added without {missing}: it "
                        f"{suppression.effect}, and the problem is still there",
                    )
                )
    return tricks


def find_suppressions(text: str, path: str) -> list[Suppression]:
    """The suppressions of one file, in line order."""
    comments, own_lines = _comments(text, path)
    found: list[Suppression] = []
    for line, comment in sorted(comments.items()):
        segments = [part.strip() for part in comment.split("#")[1:]]
        for index, segment in enumerate(segments):
            parsed = _directive(segment, line, segments[index + 1 :])
            if parsed is None:
                continue
            above = comments.get(line - 1, "") if line - 1 in own_lines else ""
            if not parsed.reason and above and _directive(above.lstrip("#").strip(), 0, []) is None:
                # The reason may be the comment line just above the suppressed one.
                parsed = dataclasses.replace(parsed, reason=above.lstrip("#").strip())
            found.append(parsed)
    found.extend(_no_type_checks(text, path, comments))
    return sorted(found, key=lambda suppression: suppression.line)


def _comments(text: str, path: str) -> tuple[dict[int, str], set[int]]:
    """Each line's comment, and the lines that hold nothing but a comment."""
    comments: dict[int, str] = {}
    own_lines: set[int] = set()
    try:
        for token in tokenize.generate_tokens(io.StringIO(text).readline):
            if token.type == tokenize.COMMENT:
                comments[token.start[0]] = token.string
                if token.line.lstrip().startswith("#"):
                    own_lines.add(token.start[0])
    except (tokenize.TokenError, SyntaxError) as exc:
        raise CheckError(f"{path} cannot be read into tokens: {exc}") from exc
    return comments, own_lines


def _directive(segment: str, line: int, following: list[str]) -> Suppression | None:
    for kind, pattern, takes_codes, effect in _DIRECTIVES:
        match = pattern.match(segment)
        if match is None:
            continue
        codes = (match.groupdict().get("codes") or "").strip()
        rest = segment[match.end() :].strip()
        if (
            not rest
            and following
            and not any(p.match(following[0]) for _k, p, _t, _e in _DIRECTIVES)
        ):
            rest = following[0]
        return Suppression(kind, line, codes, rest.lstrip("-—:;, ").strip(), takes_codes, effect)
    return None


def _no_type_checks(text: str, path: str, comments: dict[int, str]) -> list[Suppression]:
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        raise CheckError(f"{path} does not parse: {exc}") from exc
    found: list[Suppression] = []
    for node in ast.walk(tree):
        if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            continue
        for decorator in node.decorator_list:
            name = decorator.attr if isinstance(decorator, ast.Attribute) else None
            name = decorator.id if isinstance(decorator, ast.Name) else name
            if name == _NO_TYPE_CHECK:
                comment = comments.get(decorator.lineno, "")
                reason = comment.lstrip("#").strip().lstrip("-—:;, ").strip()
                found.append(
                    Suppression(
                        _NO_TYPE_CHECK, decorator.lineno, "", reason, False, _NO_TYPE_CHECK_EFFECT
                    )
                )
    return found


def _missing(suppression: Suppression, policy: SuppressionPolicy, reason: re.Pattern[str]) -> str:
    """What the suppression lacks, as words for the sentence; empty when nothing."""
    lacks_code = policy.needs_code and suppression.takes_codes and not suppression.codes
    lacks_reason = reason.search(suppression.reason) is None
    if lacks_code and lacks_reason:
        return "a specific code and a reason"
    if lacks_code:
        return "a specific code"
    if lacks_reason:
        return "a reason"
    return ""


def _shown(suppression: Suppression) -> str:
    if suppression.kind == _NO_TYPE_CHECK:
        return "@no_type_check"
    codes = f" {suppression.codes}" if suppression.codes else ""
    return f"# {suppression.kind}{codes}"
