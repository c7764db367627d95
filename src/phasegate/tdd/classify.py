"""The failure class of a test, and whether its failure is a right-reason red.

Derived from what the run report recorded about each test (outcome, the failing phase, the
exception's type and message, the file of the raising frame), never from printed text:

============================  ===================================================================
class                          when
============================  ===================================================================
``assertion``                  ``AssertionError``, or pytest's ``Failed`` (``pytest.fail``,
                               ``pytest.raises`` that did not raise)
``not-implemented``            ``NotImplementedError``
``missing-symbol``             an exception of ``missing_symbol_errors`` raised in the test's own
                               file, naming a symbol the test uses and the source does not define
``exception``                  any other exception while the test ran
``fixture-error``              the test's setup failed (a fixture raised, or is missing)
``teardown-error``             only the teardown failed
``collection-error``           the test file could not be collected
``syntax-error``               a ``SyntaxError`` (in the test file, or raised while it ran)
``skipped``, ``xfailed``,      the test did not get to fail
``xpassed``
============================  ===================================================================

A failure is a right-reason red when its class, or its exception type exactly as recorded
(``ValueError``, ``myapp.errors.Pending``), is listed in ``right_reasons``; the classes from
``fixture-error`` down never are.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path, PurePath

from phasegate.documents import CollectionErrorDocument, TestRecordDocument
from phasegate.failures import first_line
from phasegate.model.tdd import FailureClass, LedgerCollectionError
from phasegate.tdd.config import TddConfig
from phasegate.tdd.symbols import SourceIndex, judge_missing, parse_missing, referenced_names

__all__ = ["Classification", "Classifier"]

_DETAIL_CHARS = 300
_FIXTURE_NOT_FOUND = re.compile(r"fixture '[^']+' not found")
_ASSERTION_TYPES = frozenset({"AssertionError", "Failed"})
_SYNTAX_TYPES = frozenset({"SyntaxError", "IndentationError", "TabError"})
#: Outcomes a mark decided (skip, xfail): never a right reason.
_MARKED = {
    "skipped": FailureClass.SKIPPED,
    "xfailed": FailureClass.XFAILED,
    "xpassed": FailureClass.XPASSED,
}
#: Exception types whose failure class their name alone decides.
_CLASS_OF_TYPE = {
    "XPASS(strict)": FailureClass.XPASSED,
    **dict.fromkeys(_ASSERTION_TYPES, FailureClass.ASSERTION),
    "NotImplementedError": FailureClass.NOT_IMPLEMENTED,
}
_RUNTIME_CLASSES = frozenset(
    {
        FailureClass.ASSERTION,
        FailureClass.NOT_IMPLEMENTED,
        FailureClass.MISSING_SYMBOL,
        FailureClass.EXCEPTION,
    }
)


@dataclass(frozen=True)
class Classification:
    """A test's failure class, whether it is a right reason, and a line saying why."""

    failure_class: FailureClass | None = None
    right_reason: bool | None = None
    detail: str | None = None


class Classifier:
    """Classifies the failures of one run; the source index is built only if a name is missing."""

    def __init__(
        self,
        root: Path,
        config: TddConfig,
        source_paths: Callable[[], list[str]],
        nodeid_path: Callable[[str], str],
    ) -> None:
        self._root = root
        self._right = frozenset(config.right_reasons)
        self._missing_types = frozenset(config.missing_symbol_errors)
        self._source_paths = source_paths
        self._nodeid_path = nodeid_path
        self._index: SourceIndex | None = None
        self._referenced: dict[str, set[str]] = {}

    def test(self, record: TestRecordDocument) -> Classification:
        """Classify one test record of the run report (a ``TestRecord``-shaped dict)."""
        outcome = record["outcome"]
        if outcome == "passed":
            return Classification()
        if outcome in _MARKED:
            reason = record.get("reason") or ""
            return Classification(_MARKED[outcome], False, _bound(f"{outcome}: {reason}"))
        failure: Mapping[str, object] = record.get("failure") or {}
        exc_type = str(failure.get("exc_type", "unknown"))
        message = str(failure.get("message", ""))
        described = _describe(exc_type, message, failure)
        if outcome == "error":
            teardown = failure.get("phase") == "teardown"
            error_class = FailureClass.TEARDOWN_ERROR if teardown else FailureClass.FIXTURE_ERROR
            return Classification(error_class, False, described)
        failure_class, why = self._call_failure(record["nodeid"], exc_type, message, failure)
        detail = _bound(f"{described} ({why})" if why else described)
        return Classification(failure_class, self._right_reason(failure_class, exc_type), detail)

    def _right_reason(self, failure_class: FailureClass, exc_type: str) -> bool:
        """A failure in the test's call, of a class or type the configuration calls right."""
        if failure_class not in _RUNTIME_CLASSES:
            return False
        return failure_class.value in self._right or exc_type in self._right

    def collection_error(self, error: CollectionErrorDocument) -> LedgerCollectionError:
        """Classify a collection error of the run report."""
        failure: Mapping[str, object] = error.get("failure") or {}
        exc_type = str(failure.get("exc_type", "unknown"))
        base = exc_type.rsplit(".", 1)[-1]
        failure_class = (
            FailureClass.SYNTAX_ERROR if base in _SYNTAX_TYPES else FailureClass.COLLECTION_ERROR
        )
        detail = _describe(exc_type, str(failure.get("message", "")), failure)
        return LedgerCollectionError(
            nodeid=str(error.get("nodeid", ".")), failure_class=failure_class, detail=detail
        )

    def _call_failure(
        self, nodeid: str, exc_type: str, message: str, failure: Mapping[str, object]
    ) -> tuple[FailureClass, str | None]:
        base = exc_type.rsplit(".", 1)[-1]
        if base in _SYNTAX_TYPES:
            return FailureClass.SYNTAX_ERROR, None
        if exc_type in _CLASS_OF_TYPE:
            return _CLASS_OF_TYPE[exc_type], None
        if exc_type not in self._missing_types and base not in self._missing_types:
            return FailureClass.EXCEPTION, None
        return self._missing_symbol(nodeid, exc_type, message, failure)

    def _missing_symbol(
        self, nodeid: str, exc_type: str, message: str, failure: Mapping[str, object]
    ) -> tuple[FailureClass, str | None]:
        """A missing-name error is a right-reason red only when the test file raised it, for a
        project name that is not written yet and that the test uses."""
        symbol = parse_missing(exc_type, message)
        if symbol is None:
            return FailureClass.EXCEPTION, "its message names no missing symbol"
        test_path = self._nodeid_path(nodeid)
        raised_in = failure.get("path")
        if raised_in != test_path:
            where = f"{raised_in}:{failure.get('line')}" if raised_in else "outside the project"
            return FailureClass.EXCEPTION, f"raised in {where}, not in the test file {test_path}"
        why = judge_missing(symbol, self._source_index(), self._names_used(test_path))
        if why is not None:
            return FailureClass.EXCEPTION, why
        return FailureClass.MISSING_SYMBOL, f"{symbol} is not written yet"

    def _source_index(self) -> SourceIndex:
        if self._index is None:
            self._index = SourceIndex.build(self._root, self._source_paths())
        return self._index

    def _names_used(self, test_path: str) -> set[str]:
        if test_path not in self._referenced:
            try:
                text = (self._root / test_path).read_bytes()
            except OSError:
                text = b""
            self._referenced[test_path] = referenced_names(text)
        return self._referenced[test_path]


def _describe(exc_type: str, message: str, failure: Mapping[str, object]) -> str:
    first = first_line(message)
    if exc_type.endswith("FixtureLookupError"):
        # Its str() is an argument tuple; pytest's own text names the fixture.
        found = _FIXTURE_NOT_FOUND.search(str(failure.get("traceback", "")))
        first = found.group(0) if found else first
    where = _where(failure)
    return _bound(f"{exc_type}{where}: {first}" if first else f"{exc_type}{where}")


def _where(failure: Mapping[str, object]) -> str:
    """`` at path:line`` of a frame inside the project (its path is relative), else ""."""
    path = failure.get("path")
    if path and failure.get("line") and not PurePath(str(path)).is_absolute():
        return f" at {path}:{failure['line']}"
    return ""


def _bound(text: str) -> str:
    return text if len(text) <= _DETAIL_CHARS else text[: _DETAIL_CHARS - 3] + "..."
