"""The text a failed assertion expected where the value it got shows a None.

A None that flows into a text the code builds shows there as ``None``: a test expecting
``Could not open file 'x': unknown error`` got ``Could not open file 'x': None``. What the
expected text holds in that place (``unknown error``) is what the None stood for: the value a
lost ``if hint is None: hint = ...`` guard gave. It becomes a guard body (``hint =
_("unknown error")``), written as the module writes the literals it assigns (wrapped in the
module's ``_()`` where it wraps them).

Kept honest, so that the body is code the project would write and not the test's answer
pasted in: the text is only the hole the None left in a text the code made (the expected
value before and after it is what the code already produced; an expected value that is the
literal alone is never taken); it is one line of at most 80 characters; it is prose: it holds
a letter and no digit (a figure in the expected text, a count or a size, is what the code
should compute, and pasting the test's figure would fit that test's input alone); it is not
written anywhere else in the failing test's file, nor is any of its words a text literal of
that file on its own (an input a test passes in and reads back, ``"apple"`` of ``"apple, pear"``,
is no default); and, as every candidate, it is kept only when the failing tests pass and no test
of the whole run that passed before fails.
"""

from __future__ import annotations

import ast
import re
from collections import Counter
from typing import TYPE_CHECKING

from phasegate.autodebug.live import resolve_expr
from phasegate.autodebug.patterns.expressions import called_name

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.project import Project

__all__ = ["expected_text_bodies", "holes_filled", "none_stood_for"]

#: How a None shows in a text (``str(None)``, ``f"{None}"``, ``"%s" % None``).
_SHOWN = "None"
#: A text taken: one line of at most 80 characters (a phrase, not a paragraph of the test's).
_PHRASE = re.compile(r"[^\n]{1,80}")
#: A letter (a word character that is neither a digit nor ``_``), and a digit.
_LETTER = re.compile(r"[^\W\d_]")
_DIGIT = re.compile(r"\d")
#: A word of a phrase.
_WORD = re.compile(r"[^\W\d_]+")
#: A text literal wrapped in a function of one name, as ``_('unknown error')`` unparses.
_WRAPPED = re.compile(r"""(\w+)\((?:'[^'\\]*'|"[^"\\]*")\)""")
#: The prefix of the locals pytest's assertion rewriting keeps a failed assertion's parts in.
_REWRITTEN = "@py_assert"
#: The unittest assertions that compare two values for equality.
_EQUALITY_CALLS = frozenset({"assertEqual", "assertEquals", "assertMultiLineEqual"})
#: A body from the expected text, below the project's own guards and documented defaults and
#: above the early returns: the text was seen missing, but only one failing test shows it.
_SCORE = 0.82


def none_stood_for(failure: LiveFailure) -> list[str]:
    """The texts the failed comparison expected where the value it got shows ``None``."""
    frame = failure.project_frame
    return _stood_for_in(failure, frame) if frame is not None else []


def _stood_for_in(failure: LiveFailure, frame: LiveFrame) -> list[str]:
    compared = _compared(failure, frame)
    if compared is None:
        return []
    expected, got = compared
    given = _other_texts(failure, frame, expected)
    return [hole for hole in _holes(got, expected) if _taken(hole, given)]


def _holes(texts: list[str], expected: str) -> list[str]:
    return list(dict.fromkeys(hole for text in texts for hole in holes_filled(text, expected)))


def _taken(hole: str, given: set[str]) -> bool:
    """A phrase the test does not give anywhere else (an input read back is no default)."""
    return _plain(hole) and _prose(hole) and not _given(hole, given)


def _plain(text: str) -> bool:
    return bool(_PHRASE.fullmatch(text)) and text.strip() not in ("", _SHOWN)


def _prose(text: str) -> bool:
    """Words and no figure: a figure is computed, never a default."""
    return _LETTER.search(text) is not None and _DIGIT.search(text) is None


def _given(hole: str, given: set[str]) -> bool:
    """The hole, or one of its words alone, is a text the test writes elsewhere."""
    words = {text.strip().casefold() for text in given}
    return any(hole in text for text in given) or any(
        word.casefold() in words for word in _WORD.findall(hole)
    )


def holes_filled(got: str, expected: str) -> list[str]:
    """For each ``None`` in ``got``, what ``expected`` holds in its place, where the rest of
    both is the same; nothing when ``got`` is ``None`` alone: an expected value that is
    nothing but the literal would be the test's answer pasted in."""
    found = re.finditer(_SHOWN, got) if got != _SHOWN else iter(())
    shown = [(got[: m.start()], got[m.end() :]) for m in found]
    holes = [_hole(before, after, expected) for before, after in shown]
    return list(dict.fromkeys(hole for hole in holes if hole))


def _hole(before: str, after: str, expected: str) -> str | None:
    found = re.fullmatch(f"{re.escape(before)}(.+){re.escape(after)}", expected, re.DOTALL)
    return found.group(1) if found is not None else None


def _compared(failure: LiveFailure, frame: LiveFrame) -> tuple[str, list[str]] | None:
    """``(expected, the texts got)`` of ``assert a == "..."`` or ``assertEqual``, read
    without running any code."""
    pair = _expected_and_other(_sides(failure.node_at(frame, (ast.Assert, ast.Call))))
    return _with_got(failure, frame, pair) if pair is not None else None


def _with_got(
    failure: LiveFailure, frame: LiveFrame, pair: tuple[str, ast.expr]
) -> tuple[str, list[str]]:
    """The expected text and the texts got: the other side's value where it is a name or an
    attribute chain, else the texts pytest's assertion rewriting kept of the assertion's
    parts (``@py_assert1 = f(x)``, in the test's frame until the assertion passes)."""
    resolved, got = resolve_expr(failure, frame, pair[1])
    return pair[0], ([got] if resolved and isinstance(got, str) else _rewritten_texts(frame))


def _rewritten_texts(frame: LiveFrame) -> list[str]:
    values = frame.frame.f_locals.items()
    return [v for k, v in values if k.startswith(_REWRITTEN) and isinstance(v, str)]


def _sides(node: ast.AST | None) -> list[ast.expr]:
    if isinstance(node, ast.Assert):
        return _equality_sides(node.test)
    return _equality_args(node) if isinstance(node, ast.Call) else []


def _equality_args(call: ast.Call) -> list[ast.expr]:
    return call.args[:2] if called_name(call) in _EQUALITY_CALLS else []


def _equality_sides(test: ast.expr) -> list[ast.expr]:
    """The two sides of ``a == b``; none for any other test."""
    if not isinstance(test, ast.Compare):
        return []
    return [test.left, *test.comparators] if [type(op) for op in test.ops] == [ast.Eq] else []


def _expected_and_other(sides: list[ast.expr]) -> tuple[str, ast.expr] | None:
    """The one side of two that is a text literal, and the other side."""
    literal_first = sorted(sides, key=lambda side: _text(side) is None)
    texts = [_text(side) for side in literal_first]
    if len(texts) != 2 or texts[0] is None or texts[1] is not None:
        return None
    return texts[0], literal_first[1]


def _text(node: ast.AST) -> str | None:
    return node.value if isinstance(node, ast.Constant) and isinstance(node.value, str) else None


def _other_texts(failure: LiveFailure, frame: LiveFrame, expected: str) -> set[str]:
    """The text literals of the test's file other than the expected one."""
    tree = failure.tree(frame.filename)
    texts = {_text(node) or "" for node in ast.walk(tree)} if tree is not None else set()
    return texts - {expected, ""}


def expected_text_bodies(
    project: Project, path: str, subject: str, texts: list[str]
) -> list[tuple[str, float, str]]:
    """``<subject> = <text>``, written as the module at ``path`` writes the literals it
    assigns (the likelier way first)."""
    ways = _ways_of_writing(project, path) if texts else []
    why = "the text the failing test expected where the None showed"
    return [
        (f"{subject} = {_written(text, way)}", _SCORE - 0.01 * rank, why)
        for text in texts
        for rank, way in enumerate(ways)
    ]


def _ways_of_writing(project: Project, path: str) -> list[str]:
    """The two commonest ways the module assigns a text literal (``""`` bare, ``"_"`` for
    ``_("...")``); bare if it assigns none."""
    source = project.editable_source(path)
    styles = _literal_styles(source.tree) if source is not None else Counter()
    return [style for style, _ in styles.most_common(2)] or [""]


def _written(text: str, way: str) -> str:
    return f"{way}({text!r})" if way else repr(text)


def _literal_styles(tree: ast.Module) -> Counter[str]:
    """How the module's assignments write a text literal, each way counted."""
    values = [node.value for node in ast.walk(tree) if isinstance(node, ast.Assign)]
    return Counter(style for style in map(_style, values) if style is not None)


def _style(value: ast.expr) -> str | None:
    """``""`` for a bare text literal, the function's name for one wrapped (``_("...")``)."""
    if _text(value) is not None:
        return ""
    wrapped = _WRAPPED.fullmatch(ast.unparse(value))
    return wrapped.group(1) if wrapped is not None else None
