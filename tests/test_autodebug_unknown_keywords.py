"""A keyword its function does not take, passed in a suspect's file where its error is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.autodebug.patterns.unknown_keywords import unknown_keyword_candidates
from tests.autodebug_support import suspects_in as _suspects

ZONE = """\
def shifted(value, offset=0, *, scale=1):
    return value * scale + offset


class Zone:
    def _find(self, dt, fold=None, timestamp=None):
        return (dt, fold, timestamp)

    def ambiguous(self, dt):
        try:
            first = self._find(dt, fold=0, timestamp=1)
            return first != self._find(dt, fold=1, timestamp=1)
        except TypeError:
            return False

    def moved(self, dt):
        try:
            return shifted(dt, offset=1, scale=2)
        except TypeError:
            return dt
"""


@pytest.mark.parametrize(
    ("typo", "right", "caller"),
    [
        ("fold=1, timestamp=1)\n", "fodl=1, timestamp=1)\n", "ambiguous"),  # a method on self
        ("scale=2)", "sclae=2)", "moved"),  # a top-level function, a keyword-only parameter
    ],
)
def test_a_misspelt_keyword_whose_error_is_caught_is_respelt(
    tmp_path: Path, typo: str, right: str, caller: str
) -> None:
    project, suspects = _suspects(tmp_path, ZONE.replace(typo, right), caller)
    (candidate,) = unknown_keyword_candidates(project, suspects)
    assert candidate.kind == "keyword-typo"
    assert "(its function takes no such parameter)" in candidate.description
    assert candidate.edits[0].text == ZONE


@pytest.mark.parametrize(
    ("why", "text"),
    [
        ("the function takes **kwargs", "def _find(self, dt, fold=None, timestamp=None, **kw):"),
        (
            "a decorator may change it",
            "@cached\n    def _find(self, dt, fold=None, timestamp=None):",
        ),
    ],
)
def test_a_keyword_is_left_alone_where_the_function_may_take_it(
    tmp_path: Path, why: str, text: str
) -> None:
    source = ZONE.replace("def _find(self, dt, fold=None, timestamp=None):", text)
    faulty = source.replace("fold=1, timestamp=1)", "fodl=1, timestamp=1)")
    project, suspects = _suspects(tmp_path, faulty, "ambiguous")
    assert unknown_keyword_candidates(project, suspects) == [], why


def test_a_method_of_another_object_is_not_judged(tmp_path: Path) -> None:
    faulty = ZONE.replace("self._find(dt, fold=1", "other._find(dt, fodl=1").replace(
        "def ambiguous(self, dt):", "def ambiguous(self, dt, other=None):"
    )
    project, suspects = _suspects(tmp_path, faulty, "ambiguous")
    assert unknown_keyword_candidates(project, suspects) == []


def test_a_parameter_the_call_passes_already_is_not_offered(tmp_path: Path) -> None:
    faulty = ZONE.replace("fold=1, timestamp=1)", "fold=1, fodl=1, timestamp=1)")
    project, suspects = _suspects(tmp_path, faulty, "ambiguous")
    assert unknown_keyword_candidates(project, suspects) == []


def test_the_whole_file_of_a_suspect_is_read(tmp_path: Path) -> None:
    # The caller ranks low when the passing tests run it too; its callee's file is suspected.
    faulty = ZONE.replace("fold=1, timestamp=1)\n", "fodl=1, timestamp=1)\n")
    project, suspects = _suspects(tmp_path, faulty, "_find")
    (candidate,) = unknown_keyword_candidates(project, suspects)
    assert candidate.edits[0].text == ZONE
