"""The live exception of a failure, taken apart where the test ran.

Everything here reads objects (the exception, its traceback, each frame's names and the
module's symbols), never printed text. The one exception is :func:`cpython_suggestion`, which
records what CPython's own "did you mean" says, as the baseline auto-debug is measured against.

Expressions are resolved without running code: names are looked up in the frame's locals,
globals and builtins, and attributes with :func:`inspect.getattr_static`, so a property or a
``__getattr__`` is never called on the user's objects.
"""

from __future__ import annotations

import ast
import contextlib
import inspect
import io
import itertools
import linecache
import os
import re
import sys
from dataclasses import dataclass, field
from pathlib import Path
from types import FrameType, GetSetDescriptorType, MethodType, TracebackType

from phasegate.autodebug.source import node_span

__all__ = [
    "EXCLUDED_PARTS",
    "LiveFailure",
    "LiveFrame",
    "cpython_suggestion",
    "holds_none",
    "instance_dict",
    "none_read",
    "project_path",
    "resolve_expr",
]

#: Folders whose files are never part of the project, even inside its root.
EXCLUDED_PARTS = frozenset(
    {
        "site-packages",
        "dist-packages",
        ".venv",
        "venv",
        ".tox",
        ".nox",
        ".git",
        "node_modules",
        "__pycache__",
        ".phasegate",
    }
)

_SUGGESTION = re.compile(r"Did you mean: '([^']+)'\?|Did you forget to import '([^']+)'\?")
_MISSING = object()


def _environment_roots() -> tuple[Path, ...]:
    prefixes = {sys.prefix, sys.base_prefix, sys.exec_prefix, sys.base_exec_prefix}
    return tuple(Path(os.path.abspath(prefix)) for prefix in prefixes)


_ENVIRONMENT_ROOTS = _environment_roots()


def project_path(filename: str | os.PathLike[str], root: Path) -> str | None:
    """``filename`` relative to ``root`` (``/`` separators) if it is a project file, else None.

    Files of the Python installation or a virtual environment inside the root are not.
    """
    text = os.fspath(filename)
    if not text or text.startswith("<"):
        return None
    absolute = Path(os.path.abspath(text))
    try:
        relative = absolute.relative_to(root)
    except ValueError:
        return None
    if EXCLUDED_PARTS.intersection(relative.parts) or _in_installation(absolute, root):
        return None
    return relative.as_posix()


def _in_installation(absolute: Path, root: Path) -> bool:
    """Whether ``absolute`` lies in the Python installation or the running environment
    (unless that is the project root itself)."""
    return any(
        prefix != root and (prefix == absolute or prefix in absolute.parents)
        for prefix in _ENVIRONMENT_ROOTS
    )


def _char_col(text: str, byte_col: int | None) -> int | None:
    """AST and code positions count UTF-8 bytes; editors and this package count characters."""
    if byte_col is None:
        return None
    return len(text.encode("utf-8")[:byte_col].decode("utf-8", errors="replace"))


@dataclass
class LiveFrame:
    """One frame of the traceback, with the exact span of the failing expression if known.

    ``col`` and ``end_col`` are 0-based character columns (Python 3.11 and later).
    """

    frame: FrameType
    filename: str
    path: str | None
    line: int
    function: str
    col: int | None = None
    end_line: int | None = None
    end_col: int | None = None


@dataclass
class LiveFailure:
    """A failure's exception and its frames (outermost first), for patterns to read."""

    exc: BaseException
    root: Path
    frames: list[LiveFrame]
    _trees: dict[str, ast.Module | None] = field(default_factory=dict, repr=False)

    @classmethod
    def capture(cls, exc: BaseException, root: Path) -> LiveFailure:
        """Take the frames of ``exc``'s traceback."""
        return cls(exc, root, [_live_frame(tb, root) for tb in _walk(exc.__traceback__)])

    @property
    def innermost(self) -> LiveFrame | None:
        """The frame that raised."""
        return self.frames[-1] if self.frames else None

    @property
    def project_frame(self) -> LiveFrame | None:
        """The innermost frame in a project file: where the fault most likely is."""
        for frame in reversed(self.frames):
            if frame.path is not None:
                return frame
        return None

    def tree(self, filename: str) -> ast.Module | None:
        """The parsed source of ``filename`` (cached), or None if it cannot be read or parsed."""
        if filename not in self._trees:
            lines = linecache.getlines(filename)
            try:
                self._trees[filename] = ast.parse("".join(lines)) if lines else None
            except (SyntaxError, ValueError):
                self._trees[filename] = None
        return self._trees[filename]

    def node_at(self, frame: LiveFrame, kinds: tuple[type[ast.AST], ...]) -> ast.AST | None:
        """The innermost node of one of ``kinds`` that covers the frame's failing span.

        Without a span (Python 3.10), the innermost such node on the frame's line.
        """
        tree = self.tree(frame.filename)
        if tree is None:
            return None
        source_lines = linecache.getlines(frame.filename)
        spans = [
            (node_span(node, source_lines), node)
            for node in ast.walk(tree)
            if isinstance(node, kinds)
        ]
        covering = [(span, node) for span, node in spans if span and _covers_failure(span, frame)]
        if not covering:
            return None
        # Nested spans: the innermost starts last and ends first.
        return min(covering, key=lambda item: (-item[0][0], -item[0][1], item[0][2], item[0][3]))[1]

    def lookup(self, frame: LiveFrame, name: str) -> tuple[str, object] | None:
        """``(scope, value)`` of ``name`` as the frame sees it, or None if it is unbound."""
        for scope, namespace in (
            ("local", frame.frame.f_locals),
            ("global", frame.frame.f_globals),
            ("builtin", frame.frame.f_builtins),
        ):
            if name in namespace:
                return scope, namespace[name]
        return None


def resolve_expr(failure: LiveFailure, frame: LiveFrame, node: ast.AST) -> tuple[bool, object]:
    """The value of a name, attribute chain or constant, found without running any code."""
    if isinstance(node, ast.Constant):
        return True, node.value
    if isinstance(node, ast.Name):
        found = failure.lookup(frame, node.id)
        return (False, None) if found is None else (True, found[1])
    if isinstance(node, ast.Attribute):
        return _resolve_attribute(failure, frame, node)
    return False, None


def holds_none(failure: LiveFailure, frame: LiveFrame, node: ast.AST) -> bool | None:
    """Whether the frame holds ``node``'s value None; None when that cannot be found without
    running code (:func:`resolve_expr`)."""
    ok, value = resolve_expr(failure, frame, node)
    return (value is None) if ok else None


def none_read(failure: LiveFailure, frame: LiveFrame, expr: ast.expr) -> ast.expr | None:
    """The first name or attribute chain ``expr`` reads that the frame holds None."""
    read = (n for n in ast.walk(expr) if isinstance(n, (ast.Name, ast.Attribute)))
    return next((node for node in read if holds_none(failure, frame, node)), None)


def _resolve_attribute(
    failure: LiveFailure, frame: LiveFrame, node: ast.Attribute
) -> tuple[bool, object]:
    """The value of ``base.attr``, looked up statically on the resolved base."""
    ok, base = resolve_expr(failure, frame, node.value)
    if not ok:
        return False, None
    try:
        value = _as_accessed(base, _getattr_static(base, node.attr))
    except AttributeError:  # no such attribute, or a slot never set
        return False, None
    if isinstance(value, property):
        return False, None  # reading it would run the user's code
    return True, value


def _as_accessed(base: object, value: object) -> object:
    """What ``base.attr`` gives for the ``value`` found statically: methods bound as
    attribute access would bind them."""
    if isinstance(value, staticmethod):
        return value.__func__
    if isinstance(value, classmethod):
        return MethodType(value.__func__, base)
    if isinstance(base, type) or inspect.ismodule(base):
        return value
    if inspect.isfunction(value):
        return MethodType(value, base)
    if inspect.ismemberdescriptor(value):
        return value.__get__(base, type(base))  # a slot of ``__slots__``: no user code runs
    if inspect.ismethoddescriptor(value) and hasattr(value, "__get__"):
        # A builtin method (list.append): bind it, as attribute access would.
        return value.__get__(base, type(base))
    return value


def instance_dict(value: object) -> dict[str, object]:
    """A copy of ``value``'s own ``__dict__``, read through the slot its class has for it (never
    a ``__dict__`` a class defines as a property); empty for an object without one.

    The slot is looked up on the classes of ``type(value)`` alone: for a class (a test's
    ``kind = ValueError``), ``inspect.getattr_static`` would find the slot its instances use,
    which cannot read the class itself."""
    slot = next((vars(k)["__dict__"] for k in type(value).__mro__ if "__dict__" in vars(k)), None)
    if not isinstance(slot, GetSetDescriptorType):
        return {}
    data = slot.__get__(value)
    return dict(data) if isinstance(data, dict) else {}


def _getattr_static(base: object, name: str) -> object:
    """``inspect.getattr_static``, with a private ``__name`` looked up as Python mangles it
    (``_Cache__name``) in each class of the object's MRO."""
    try:
        return inspect.getattr_static(base, name)
    except AttributeError:
        if not name.startswith("__") or name.endswith("__"):
            raise
    return _getattr_mangled(base, name)


def _getattr_mangled(base: object, name: str) -> object:
    """The private ``__name`` of ``base`` under the name of each class of its MRO in turn."""
    classes = base.__mro__ if isinstance(base, type) else type(base).__mro__
    for cls in classes:
        with contextlib.suppress(AttributeError):
            return inspect.getattr_static(base, f"_{cls.__name__.lstrip('_')}{name}")
    raise AttributeError(name)


def cpython_suggestion(exc: BaseException) -> str | None:
    """What CPython's own error display suggests for ``exc`` ("did you mean"), if anything.

    Python 3.10 and 3.11 compute the suggestion only in the interpreter's default display, so
    it is asked to print into a buffer. ``import x`` is returned for "did you forget to import".
    """
    if not isinstance(exc, (NameError, AttributeError, ImportError)):
        return None
    lines = _default_display(exc).rstrip().splitlines()
    found = _SUGGESTION.search(lines[-1]) if lines else None
    if found is None:
        return None
    return found.group(1) if found.group(1) else f"import {found.group(2)}"


def _default_display(exc: BaseException) -> str:
    """What the interpreter's default display prints for ``exc`` ("" if printing fails)."""
    buffer = io.StringIO()
    saved = sys.stderr
    sys.stderr = buffer
    try:
        sys.__excepthook__(type(exc), exc, exc.__traceback__)
    except Exception:  # noqa: BLE001 - a display that fails only means there is no suggestion
        return ""
    finally:
        sys.stderr = saved
    return buffer.getvalue()


def _covers_failure(span: tuple[int, int, int, int], frame: LiveFrame) -> bool:
    """Whether ``span`` covers the frame's failing span, or without one (Python 3.10) its
    line."""
    if frame.col is None or frame.end_line is None or frame.end_col is None:
        return span[0] <= frame.line <= span[2]
    return _covers(span, (frame.line, frame.col, frame.end_line, frame.end_col))


def _covers(outer: tuple[int, int, int, int], inner: tuple[int, int, int, int]) -> bool:
    return (outer[0], outer[1]) <= (inner[0], inner[1]) and (outer[2], outer[3]) >= (
        inner[2],
        inner[3],
    )


def _walk(tb: TracebackType | None) -> list[TracebackType]:
    entries = []
    while tb is not None:
        entries.append(tb)
        tb = tb.tb_next
    return entries


def _live_frame(tb: TracebackType, root: Path) -> LiveFrame:
    frame = tb.tb_frame
    code = frame.f_code
    filename = code.co_filename
    live = LiveFrame(frame, filename, project_path(filename, root), tb.tb_lineno, code.co_name)
    positions = getattr(code, "co_positions", None)
    if positions is None or tb.tb_lasti < 0:
        return live  # Python 3.10: the line is all there is
    with contextlib.suppress(StopIteration):
        line, end_line, col, end_col = next(itertools.islice(positions(), tb.tb_lasti // 2, None))
        if line == tb.tb_lineno and end_line is not None:
            text = linecache.getline(filename, line)
            end_text = linecache.getline(filename, end_line)
            live.col = _char_col(text, col)
            live.end_line = end_line
            live.end_col = _char_col(end_text, end_col)
    return live
