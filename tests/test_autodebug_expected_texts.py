"""A lost guard's body read from the text a failed assertion expected where a None showed."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns.expected_texts import _taken, holes_filled
from phasegate.autodebug.patterns.lost_guards import lost_guard_candidates
from phasegate.autodebug.project import Project, TestFiles
from phasegate.model.autodebug import SuspiciousFunction
from tests.autodebug_support import classify_in

ERRORS = '''\
from gettext import gettext as _


class FileError(Exception):
    """Raised if a file cannot be opened."""

    def __init__(self, filename, hint=None):
        if hint is None:
            hint = _("unknown error")
        super().__init__(hint)
        self.message = hint
        self.filename = filename

    def format_message(self):
        missing = _("Missing file")
        return _("Could not open {name!r}: {message}").format(
            name=self.filename, message=self.message
        )
'''

GUARD = '        if hint is None:\n            hint = _("unknown error")\n'

TEST = """\
import fe_errors


def test_message():
    message = fe_errors.FileError("data.txt").format_message()
    assert message == "Could not open 'data.txt': unknown error"
"""

ECHO = """\
import fe_errors


def test_echo():
    message = fe_errors.FileError("unknown error").format_message()
    assert message == "Could not open 'unknown error': unknown error"
"""


def test_the_hole_a_none_left_is_what_the_expected_text_holds_there() -> None:
    got = "Could not open 'x': None"
    assert holes_filled(got, "Could not open 'x': unknown error") == ["unknown error"]
    assert holes_filled("None, then None", "None, then 2") == ["2"]
    # A value that is the None alone, or a text that differs elsewhere too, leaves no hole.
    assert holes_filled("None", "unknown error") == []  # the test's answer, not a hole
    assert holes_filled("Could not open 'y': None", "Could not open 'x': unknown error") == []
    assert holes_filled("no none here", "no none here either") == []


def _suspect(text: str, name: str) -> SuspiciousFunction:
    line = next(n.lineno for n in ast.walk(ast.parse(text)) if getattr(n, "name", None) == name)
    return SuspiciousFunction(
        path="fe_errors.py", function=name, line=line, score=0.9, failed_covering=1,
        passed_covering=0,
    )  # fmt: skip


@pytest.mark.needs_columns
def test_a_failed_assertion_gives_the_guard_its_expected_text_as_the_module_writes_it(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = ERRORS.replace(GUARD, "")
    files = {"fe_errors.py": faulty, "test_fe.py": TEST}
    diagnosis = classify_in(tmp_path, files, "import test_fe; test_fe.test_message()", monkeypatch)
    assert diagnosis.facts["none_stood_for"] == ["unknown error"]
    project = Project(tmp_path, TestFiles(["test_*.py"]))
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "__init__")])
    first = candidates[0]
    assert ast.dump(ast.parse(first.edits[0].text)) == ast.dump(ast.parse(ERRORS))
    assert "the text the failing test expected where the None showed" in first.description


@pytest.mark.needs_columns
def test_a_text_the_test_passes_in_itself_is_not_taken(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    files = {"fe_errors.py": ERRORS.replace(GUARD, ""), "test_echo.py": ECHO}
    diagnosis = classify_in(tmp_path, files, "import test_echo; test_echo.test_echo()", monkeypatch)
    # The hole holds "unknown error", which the test passes in itself: read back, no default.
    assert diagnosis.facts["none_stood_for"] == []


BASKET = '''\
def summary(items, count=None, names=None):
    """One line about the basket: its items and how many there are."""
    if count is None:
        count = len(items)
    if names is None:
        names = ", ".join(items)
    return f"{names} ({count} items)"
'''

BASKET_TEST = """\
import basket


def test_summary():
    line = basket.summary(["apple", "pear", "fig"])
    assert line == "apple, pear, fig (3 items)"
"""


@pytest.mark.needs_columns
@pytest.mark.parametrize(
    "guard",
    [
        # The hole is "3": a figure the code computes; the test's 3 fits its own input alone.
        "    if count is None:\n        count = len(items)\n",
        # The hole is "apple, pear, fig": words the test passes in, read back.
        '    if names is None:\n        names = ", ".join(items)\n',
    ],
)
def test_a_figure_or_the_tests_own_words_are_not_taken_as_a_default(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, guard: str
) -> None:
    files = {"basket.py": BASKET.replace(guard, ""), "test_basket.py": BASKET_TEST}
    diagnosis = classify_in(
        tmp_path, files, "import test_basket; test_basket.test_summary()", monkeypatch
    )
    assert diagnosis.facts["none_stood_for"] == []


LABELS = """\
def label(name, prefix=None):
    if prefix is None:
        prefix = "item"
    return f"{prefix}-{name}"
"""

GUARD_OF_LABEL = '    if prefix is None:\n        prefix = "item"\n'

LABEL_TESTS = """\
from labels import label


def test_label():
    assert label("a") == "item-a"


def test_named():
    assert label("a", "x") == "x-a"
"""


def test_a_text_got_from_a_call_is_read_where_pytest_kept_it(pytester: pytest.Pytester) -> None:
    # `label("a")` is a call: its value is read from the local pytest's assertion rewriting
    # kept it in (no code is run again); "item" is written nowhere else in the project.
    pytester.makepyprojecttoml('[tool.pytest.ini_options]\npythonpath = ["src"]\n')
    (pytester.path / "src").mkdir()
    (pytester.path / "src/labels.py").write_text(LABELS.replace(GUARD_OF_LABEL, ""))
    (pytester.path / "tests").mkdir()
    (pytester.path / "tests/test_labels.py").write_text(LABEL_TESTS)
    result = pytester.runpytest("--autodebug=apply", "-p", "no:cacheprovider")
    result.stdout.fnmatch_lines(
        ["01-assertion repaired: *the text the failing test expected where the None showed*"]
    )
    assert ast.dump(ast.parse((pytester.path / "src/labels.py").read_text())) == ast.dump(
        ast.parse(LABELS)
    )
    pytester.runpytest("-p", "no:cacheprovider").assert_outcomes(passed=2)


def test_a_hole_is_one_line_of_at_most_eighty_characters() -> None:
    assert _taken("unknown error", set())
    assert _taken("e" * 80, set())
    # A paragraph of the test's, or more than one line of it, is no default message.
    assert not _taken("e" * 81, set())
    assert not _taken("unknown\nerror", set())
