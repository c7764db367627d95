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
from dataclasses import dataclass
from operator import attrgetter

from phasegate.gates.parsed import ending_name
from phasegate.gates.protocol import CheckError
from phasegate.integrity import DEFAULT_REASON_PATTERN
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.trick import Trick, beyond

__all__ = ["DEFAULT_REASON_PATTERN", "Suppression", "SuppressionPolicy", "suppression_tricks"]

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
        # coverage.py's own default: ``#\s*(pragma|PRAGMA)[:\s]?\s*(no|NO)\s*(cover|COVER)``,
        # so ``# pragma no cover`` (no colon) hides the lines too.
        "pragma: no cover",
        re.compile(r"^pragma\s*[:\s]?\s*no\s*(?:cover|branch)", re.I),
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
        for suppression in _added_suppressions(sources, path):
            missing = _missing(suppression, policy, reason)
            if missing:
                tricks.append(_unexplained(path, suppression, missing))
    return tricks


def _added_suppressions(sources: ChangedSources, path: str) -> list[Suppression]:
    """The suppressions of a file beyond those its base had (the same kind and codes)."""
    now = sources.head_text(path)
    if now is None:
        return []
    was = sources.base_text(path)
    before = find_suppressions(was, path) if was is not None else []
    return beyond(before, find_suppressions(now, path), key=attrgetter("key"))


def _unexplained(path: str, suppression: Suppression, missing: str) -> Trick:
    rule = suppression.kind.replace(": ", "-").replace(" ", "-").replace("_", "-")
    return Trick(
        "suppressions",
        f"{rule}-without-reason",
        path,
        suppression.line,
        f"{_shown(suppression)} added without {missing}: it "
        f"{suppression.effect}, and the problem is still there",
    )


def find_suppressions(text: str, path: str) -> list[Suppression]:
    """The suppressions of one file, in line order."""
    comments, own_lines = _comments(text, path)
    found: list[Suppression] = []
    for line, comment in sorted(comments.items()):
        above = comments.get(line - 1, "") if line - 1 in own_lines else ""
        found += _line_suppressions(line, comment, above)
    found.extend(_no_type_checks(text, path, comments))
    return sorted(found, key=lambda suppression: suppression.line)


def _line_suppressions(line: int, comment: str, above: str) -> list[Suppression]:
    """The directives of one line's comment; ``above`` is the comment on its own line just
    above, which may hold the reason."""
    segments = [part.strip() for part in comment.split("#")[1:]]
    reason_above = above.lstrip("#").strip()
    if _is_directive(reason_above):
        reason_above = ""  # a directive of its own, not a reason
    found: list[Suppression] = []
    for index, segment in enumerate(segments):
        parsed = _directive(segment, line, segments[index + 1 :])
        if parsed is None:
            continue
        if not parsed.reason and reason_above:
            parsed = dataclasses.replace(parsed, reason=reason_above)
        found.append(parsed)
    return found


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


def _is_directive(text: str) -> bool:
    """Whether a comment segment is a suppression (not a reason for one)."""
    return any(pattern.match(text) for _kind, pattern, _codes, _effect in _DIRECTIVES)


def _directive(segment: str, line: int, following: list[str]) -> Suppression | None:
    for kind, pattern, takes_codes, effect in _DIRECTIVES:
        match = pattern.match(segment)
        if match is None:
            continue
        codes = (match.groupdict().get("codes") or "").strip()
        rest = segment[match.end() :].strip()
        if not rest and following and not _is_directive(following[0]):
            rest = following[0]
        return Suppression(kind, line, codes, _reason(rest), takes_codes, effect)
    return None


def _no_type_checks(text: str, path: str, comments: dict[int, str]) -> list[Suppression]:
    try:
        tree = ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        raise CheckError(f"{path} does not parse: {exc}") from exc
    return [
        _no_type_check(decorator.lineno, comments.get(decorator.lineno, ""))
        for node in ast.walk(tree)
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef))
        for decorator in node.decorator_list
        if ending_name(decorator) == _NO_TYPE_CHECK
    ]


def _no_type_check(line: int, comment: str) -> Suppression:
    """``@no_type_check``, with the reason its line's comment gives."""
    reason = _reason(comment.lstrip("#").strip())
    return Suppression(_NO_TYPE_CHECK, line, "", reason, False, _NO_TYPE_CHECK_EFFECT)


def _reason(text: str) -> str:
    """The reason a suppression's comment gives, without the dash or colon that leads it in."""
    return text.lstrip("-—:;, ").strip()


def _missing(suppression: Suppression, policy: SuppressionPolicy, reason: re.Pattern[str]) -> str:
    """What the suppression lacks, as words for the sentence; empty when nothing."""
    lacks_code = policy.needs_code and suppression.takes_codes and not suppression.codes
    lacks = ["a specific code"] if lacks_code else []
    if reason.search(suppression.reason) is None:
        lacks.append("a reason")
    return " and ".join(lacks)


def _shown(suppression: Suppression) -> str:
    if suppression.kind == _NO_TYPE_CHECK:
        return "@no_type_check"
    codes = f" {suppression.codes}" if suppression.codes else ""
    return f"# {suppression.kind}{codes}"
