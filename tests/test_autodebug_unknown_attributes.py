"""An attribute of ``self`` nothing in its class defines, read where its error is caught."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.autodebug.patterns.unknown_attributes import unknown_attribute_candidates
from tests.autodebug_support import suspects_in as _suspects

COMPOSE = """\
class Base:
    def __init__(self, first):
        self.first = first


class Compose(Base):
    __slots__ = ("extra",)

    def __init__(self, first, *funcs):
        super().__init__(first)
        self.funcs = funcs

    @property
    def __name__(self):
        try:
            return "_of_".join(f.__name__ for f in (self.first, *self.funcs))
        except AttributeError:
            return type(self).__name__
"""


def test_a_misspelt_attribute_whose_error_is_caught_is_respelt(tmp_path: Path) -> None:
    faulty = COMPOSE.replace("*self.funcs)", "*self.fucns)")
    project, suspects = _suspects(tmp_path, faulty, "__name__")
    (candidate,) = unknown_attribute_candidates(project, suspects)
    assert candidate.kind == "typo"
    assert "replace `self.fucns` (nothing in its class defines it)" in candidate.description
    assert candidate.edits[0].text == COMPOSE


FAULTY = COMPOSE.replace("*self.funcs)", "*self.fucns)")


@pytest.mark.parametrize(
    ("why", "text"),
    [
        (
            "a base's, a slot, a method's",
            COMPOSE.replace("*self.funcs)", "*self.funcs, self.extra)"),
        ),
        (
            "a base from elsewhere may define it",
            FAULTY.replace("class Base:", "class Base(Other):"),
        ),
        (
            "a __getattr__ may give it",
            FAULTY.replace("    __slots__", "    __getattr__ = getattr\n    __slots__"),
        ),
    ],
)
def test_an_attribute_that_may_be_defined_is_left_alone(
    tmp_path: Path, why: str, text: str
) -> None:
    project, suspects = _suspects(tmp_path, text, "__name__")
    assert unknown_attribute_candidates(project, suspects) == [], why


def test_a_static_methods_first_parameter_is_no_self(tmp_path: Path) -> None:
    # `item.fucns` reads the argument's attribute: the class's own names say nothing of it
    text = COMPOSE + "\n    @staticmethod\n    def names_of(item):\n        return item.fucns\n"
    project, suspects = _suspects(tmp_path, text, "names_of")
    assert unknown_attribute_candidates(project, suspects) == []
