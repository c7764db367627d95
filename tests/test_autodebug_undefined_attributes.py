"""An attribute name defined nowhere, read in a suspect function."""

from __future__ import annotations

from pathlib import Path

import pytest

from phasegate.autodebug.patterns.undefined_attributes import undefined_attribute_candidates
from phasegate.autodebug.stdlib import attribute_names
from tests.autodebug_support import suspects_in as _suspects

SIGNATURE = """\
import inspect


def positional(func):
    kinds = []
    for param in inspect.signature(func).parameters.values():
        if param.kind == param.VAR_POSITIONAL:
            break
        kinds.append(param.kind)
    return kinds


class Excepts:
    def __init__(self, func):
        self.func = func
        self.funcs = [func]

    @property
    def __name__(self):
        try:
            return f"{self.func.__name__}_excepting"
        except AttributeError:
            return "excepting"
"""


def test_a_standard_library_attribute_misspelt_is_respelt(tmp_path: Path) -> None:
    # `param` is an inspect.Parameter: nothing in the source says so, but no place of the
    # project spells `VAR_OSITIONAL`, and inspect (which the file imports) has VAR_POSITIONAL
    faulty = SIGNATURE.replace("param.VAR_POSITIONAL", "param.VAR_OSITIONAL")
    project, suspects = _suspects(tmp_path, faulty, "positional")
    (candidate,) = undefined_attribute_candidates(project, suspects)
    assert candidate.kind == "typo"
    assert "`.VAR_OSITIONAL` (nothing defines it) with `.VAR_POSITIONAL`" in candidate.description
    assert candidate.edits[0].text == SIGNATURE


def test_a_name_only_the_standard_library_has_is_the_respelling(tmp_path: Path) -> None:
    # the project never spells KEYWORD_ONLY: the imported module's attributes offer it
    faulty = SIGNATURE.replace("param.VAR_POSITIONAL", "param.KEYWORD_ONL")
    project, suspects = _suspects(tmp_path, faulty, "positional")
    (candidate,) = undefined_attribute_candidates(project, suspects)
    assert candidate.edits[0].text == SIGNATURE.replace("VAR_POSITIONAL", "KEYWORD_ONLY")


def test_an_attribute_of_self_is_respelt_as_a_name_of_its_class(tmp_path: Path) -> None:
    # the project spells both `func` and `funcs`; the class defines both, and `func` is nearer
    faulty = SIGNATURE.replace("{self.func.__name__}", "{self.funcc.__name__}")
    project, suspects = _suspects(tmp_path, faulty, "__name__")
    (candidate,) = undefined_attribute_candidates(project, suspects)
    assert candidate.edits[0].text == SIGNATURE


def test_a_closer_respelling_ranks_first_whatever_the_suspects_order(tmp_path: Path) -> None:
    faulty = SIGNATURE.replace("param.VAR_POSITIONAL", "param.VAR_OSITIONAL").replace(
        "{self.func.__name__}", "{self.fnc.__name__}"
    )
    project, (name,) = _suspects(tmp_path, faulty, "__name__")
    positional = name.model_copy(update={"function": "positional", "line": 4})
    first, second = undefined_attribute_candidates(project, [name, positional])
    assert "`.VAR_POSITIONAL`" in first.description
    assert "`.func`" in second.description
    assert first.score > second.score


def test_a_respelling_in_a_weak_suspect_scores_below_a_guard_in_the_top_one(tmp_path: Path) -> None:
    # closeness and suspicion both count (their geometric mean): the name defined nowhere in a
    # function the failing tests hardly single out does not take a strong suspect's slots
    faulty = SIGNATURE.replace("param.VAR_POSITIONAL", "param.VAR_OSITIONAL")
    project, (suspect,) = _suspects(tmp_path, faulty, "positional")
    weak = suspect.model_copy(update={"score": 0.1})
    strong = suspect.model_copy(update={"score": 1.0})
    (in_weak,) = undefined_attribute_candidates(project, [weak])
    (in_strong,) = undefined_attribute_candidates(project, [strong])
    assert in_weak.score < 0.33 < 0.9 < in_strong.score


@pytest.mark.parametrize(
    ("why", "old", "new"),
    [
        ("the name is spelt elsewhere", "kinds = []", "kinds = [inspect.VAR_OSITIONAL]"),
        ("a built-in type has it", "param.VAR_POSITIONAL", "param.startswith"),
        ("every named tuple has it", "param.VAR_POSITIONAL", "param._replace"),
        ("the imported module has it", "param.VAR_POSITIONAL", "param.POSITIONAL_ONLY"),
        ("nothing defined is close", "param.VAR_POSITIONAL", "param.frobnicate"),
        (
            "an annotation is not run",
            "def positional(func):",
            "def positional(func: inspect.Sgnature):",
        ),
    ],
)
def test_a_name_that_may_be_defined_or_has_no_close_respelling_is_left_alone(
    tmp_path: Path, why: str, old: str, new: str
) -> None:
    text = SIGNATURE.replace(old, new)
    if "VAR_OSITIONAL" in new:  # and the suspect reads it too
        text = text.replace("param.VAR_POSITIONAL", "param.VAR_OSITIONAL")
    project, suspects = _suspects(tmp_path, text, "positional")
    assert undefined_attribute_candidates(project, suspects) == [], why


def test_the_projects_tests_count_as_places_that_spell_a_name(tmp_path: Path) -> None:
    faulty = SIGNATURE.replace("param.VAR_POSITIONAL", "param.VAR_OSITIONAL")
    project, suspects = _suspects(tmp_path, faulty, "positional")
    (tmp_path / "tests" / "test_mod.py").write_text("def test_it(p):\n    p.VAR_OSITIONAL\n")
    assert undefined_attribute_candidates(project, suspects) == []


def test_a_suspect_in_a_test_file_or_that_is_no_function_is_not_read(tmp_path: Path) -> None:
    # the one place that spells VAR_OSITIONAL is a test file, which is never edited
    project, (suspect,) = _suspects(tmp_path, SIGNATURE, "positional")
    faulty = SIGNATURE.replace("param.VAR_POSITIONAL", "param.VAR_OSITIONAL")
    (tmp_path / "tests" / "test_mod.py").write_text(faulty)
    in_tests = suspect.model_copy(update={"path": "tests/test_mod.py"})
    nowhere = suspect.model_copy(update={"line": 2})
    assert undefined_attribute_candidates(project, [in_tests, nowhere]) == []


def test_a_standard_library_modules_attributes_take_in_its_classes_and_submodules() -> None:
    assert {"VAR_POSITIONAL", "signature"} <= attribute_names("inspect")
    assert "isfile" in attribute_names("os")  # of os.path
    assert attribute_names("phasegate") == frozenset()  # not the standard library's
