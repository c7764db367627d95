"""A lost None guard put back where the ranking points, when the None flows on."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.diagnosis import Diagnosis
from phasegate.autodebug.patterns.guard_names import cannot_go_at
from phasegate.autodebug.patterns.lost_guards import expected_exception, lost_guard_candidates
from phasegate.autodebug.project import Project, TestFiles
from phasegate.model.autodebug import SuspiciousFunction
from tests.autodebug_support import classify_in

REGISTRY = '''REGISTRY = {}


def register(name, handler=None):
    """Register ``handler`` under ``name``."""
    if handler is None:
        raise TypeError(f"no handler for {name}")
    REGISTRY[name] = handler
    return name


def label(name, prefix=None):
    if prefix is None:
        prefix = "item"
    return f"{prefix}-{name}"


def tag(name, prefix="item"):
    return prefix + name
'''


def _project(tmp_path: Path, text: str) -> Project:
    (tmp_path / "reg.py").write_text(text)
    (tmp_path / "tests").mkdir()
    return Project(tmp_path, TestFiles(["tests/*"]))


def _deleted(text: str, guard: str) -> str:
    start = text.index(guard)
    end = text.index("\n", text.index("\n", start) + 1) + 1
    return text[:start] + text[end:]


def _suspect(text: str, name: str, score: float = 0.9) -> SuspiciousFunction:
    tree = ast.parse(text)
    line = next(n.lineno for n in ast.walk(tree) if getattr(n, "name", None) == name)
    return SuspiciousFunction(
        path="reg.py", function=name, line=line, score=score, failed_covering=1, passed_covering=0
    )


def _same(candidate_text: str, original: str) -> bool:
    return ast.dump(ast.parse(candidate_text)) == ast.dump(ast.parse(original))


def test_a_guard_that_raised_what_the_test_waits_for_comes_back_as_the_project_raises_it(
    tmp_path: Path,
) -> None:
    faulty = _deleted(REGISTRY, "    if handler is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis(
        "assertion", "other", "Failed", "Failed", "DID NOT RAISE <class 'TypeError'>"
    )
    assert expected_exception(diagnosis) == "TypeError"
    candidates = lost_guard_candidates(
        diagnosis, project, [_suspect(faulty, "register"), _suspect(faulty, "label", 0.5)]
    )
    # The function's own message is gone with the guard: the bare exception comes first.
    assert candidates[0].edits[0].text == faulty.replace(
        '    """Register ``handler`` under ``name``."""\n',
        '    """Register ``handler`` under ``name``."""\n    if handler is None:\n'
        "        raise TypeError\n",
    )
    assert "the test waits for TypeError" in candidates[0].description


def test_a_guard_that_set_a_default_comes_back_with_the_default_the_project_gives(
    tmp_path: Path,
) -> None:
    faulty = _deleted(REGISTRY, "    if prefix is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("assertion", "assertion", "assertion", "AssertionError", "assert ...")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "label")])
    assert any(_same(c.edits[0].text, REGISTRY) for c in candidates[:4])
    # What the function still tests against None is never guarded again.
    assert all("if handler is None" not in c.description for c in candidates)


def test_nothing_is_proposed_outside_editable_files_or_for_values_still_tested(
    tmp_path: Path,
) -> None:
    project = _project(tmp_path, REGISTRY)
    diagnosis = Diagnosis("assertion", "assertion", "assertion", "AssertionError", "assert ...")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(REGISTRY, "label")])
    assert candidates  # `name` may be None, too
    assert all("if prefix is None" not in c.description for c in candidates)
    elsewhere = SuspiciousFunction(
        path="tests/test_reg.py", function="t", line=1, score=1.0, failed_covering=1,
        passed_covering=0,
    )  # fmt: skip
    assert lost_guard_candidates(diagnosis, project, [elsewhere]) == []


def test_a_descriptor_read_on_its_class_returns_itself(tmp_path: Path) -> None:
    original = (
        "class cached:\n    def __init__(self, func):\n        self.func = func\n\n"
        "    def __get__(self, instance, owner=None):\n"
        "        if instance is None:\n            return self\n"
        "        return self.func(instance)\n"
    )
    faulty = _deleted(original, "        if instance is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("other", "other", "TypeError", "TypeError", "missing argument")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "__get__")])
    assert any(_same(c.edits[0].text, original) for c in candidates[:4])


def test_a_parameter_seen_none_in_the_failing_frames_is_guarded_first(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    # The guard's None reaches a dict lookup: a KeyError, no None in sight. The parameter
    # was None in the live frame, so it is guarded first, though the ranking missed it.
    original = (
        "UNITS = {'m': 1, 'km': 1000}\n\n\ndef meters(value, unit=None):\n"
        "    if unit is None:\n        return value\n    return value * UNITS[unit]\n"
    )
    faulty = _deleted(original, "    if unit is None:")
    diagnosis = classify_in(
        tmp_path, {"units.py": faulty}, "import units; units.meters(3)", monkeypatch
    )
    assert (diagnosis.error_class, diagnosis.kind) == ("other", "KeyError")
    assert diagnosis.facts["none_parameters"] == [{"path": "units.py", "line": 5, "name": "unit"}]
    project = Project(tmp_path, TestFiles(["tests/*"]))
    candidates = lost_guard_candidates(diagnosis, project, [])
    assert _same(candidates[0].edits[0].text, original)


def test_the_exception_a_test_waited_for_is_read_from_pytest_and_unittest() -> None:
    def message(text: str) -> Diagnosis:
        return Diagnosis("other", "other", "Failed", "Failed", text)

    assert expected_exception(message("DID NOT RAISE <class 'ValueError'>")) == "ValueError"
    assert expected_exception(message("DID NOT RAISE <class 'pkg.errors.Bad'>")) == "Bad"
    assert expected_exception(message("TypeError not raised")) == "TypeError"
    assert expected_exception(message("assert 1 == 2")) is None


ZONES = '''def exists(dt, tz=None):
    if tz is None:
        if dt.tzinfo is None:
            raise ValueError("naive and no zone")
        tz = dt.tzinfo
    return tz


def ambiguous(dt, tz=None):
    """Whether the wall time is ambiguous."""
    if tz is None:
        if dt.tzinfo is None:
            raise ValueError("naive and no zone")
        tz = dt.tzinfo
    return tz is not None
'''


def test_an_attribute_the_file_guards_elsewhere_is_guarded_where_it_is_first_read(
    tmp_path: Path,
) -> None:
    # `dt.tzinfo` is tested against None in `exists`; in `ambiguous` the test is gone. The
    # guard goes back right before the first read, inside `if tz is None:`, not at the top.
    lost = '        if dt.tzinfo is None:\n            raise ValueError("naive and no zone")\n'
    faulty = ZONES[: ZONES.rindex(lost)] + ZONES[ZONES.rindex(lost) + len(lost) :]
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis(
        "assertion", "other", "Failed", "Failed", "DID NOT RAISE <class 'ValueError'>"
    )
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "ambiguous")])
    assert _same(candidates[0].edits[0].text, ZONES)
    assert "before its first use" in candidates[0].description


def test_the_function_the_failure_was_raised_in_is_looked_into_when_the_ranking_missed_it(
    tmp_path: Path,
) -> None:
    faulty = _deleted(REGISTRY, "    if prefix is None:")
    project = _project(tmp_path, faulty)
    raised_at = faulty.index('    return f"{prefix}-{name}"')
    line = faulty[:raised_at].count("\n") + 1
    diagnosis = Diagnosis(
        "other", "other", "ValueError", "ValueError", "bad label", path="reg.py", line=line
    )
    # The ranking named only another function; the one the failure was raised in comes too.
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "tag", 0.9)])
    assert any(_same(c.edits[0].text, REGISTRY) for c in candidates)
    unplaced = Diagnosis("other", "other", "ValueError", "ValueError", "bad label")
    missed = lost_guard_candidates(unplaced, project, [_suspect(faulty, "tag", 0.9)])
    assert not any(_same(c.edits[0].text, REGISTRY) for c in missed)


FIRST_INDEX = """def first_index(element, items):
    pairs = enumerate(element)
    k, y = next(pairs, (None, None))
    if k is None:
        return 0
    return items.index(y) - k
"""


def test_a_pair_unpacked_from_next_with_nones_is_guarded_with_the_empty_of_what_it_returns(
    tmp_path: Path,
) -> None:
    faulty = _deleted(FIRST_INDEX, "    if k is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("other", "other", "ValueError", "ValueError", "None is not in list")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "first_index")])
    restored = [c for c in candidates[:5] if _same(c.edits[0].text, FIRST_INDEX)]
    assert restored
    assert "the empty value of what it returns" in restored[0].description


def test_a_function_the_test_called_where_it_waited_for_the_exception_is_looked_into(
    tmp_path: Path,
) -> None:
    faulty = _deleted(REGISTRY, "    if handler is None:")
    project = _project(tmp_path, faulty)
    test = (
        "import unittest\n\nimport reg\n\n\nclass TestRegister(unittest.TestCase):\n"
        "    def test_needs_a_handler(self):\n"
        "        with self.assertRaises(TypeError):\n"
        "            reg.register('x')\n"
    )
    (tmp_path / "tests" / "test_reg.py").write_text(test)
    # unittest raised "TypeError not raised" in its own code; the test was at its `with`.
    frame = {"path": "tests/test_reg.py", "line": 8}
    diagnosis = Diagnosis(
        "assertion", "assertion", "assertion", "AssertionError", "TypeError not raised",
        facts={"project_frame": frame},
    )  # fmt: skip
    guarded = faulty.replace(
        '    """Register ``handler`` under ``name``."""\n',
        '    """Register ``handler`` under ``name``."""\n    if handler is None:\n'
        "        raise TypeError\n",
    )
    # The ranking named only `label`; `register`, called under assertRaises, comes too.
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "label")])
    assert any(c.edits[0].text == guarded for c in candidates[:5])
    diagnosis.facts = {}
    missed = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "label")])
    assert not any(c.edits[0].text == guarded for c in missed)


def test_an_assertion_raised_by_unittest_keeps_where_the_test_was(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    test = (
        "import unittest\n\n\nclass TestWait(unittest.TestCase):\n"
        "    def runTest(self):\n"
        "        with self.assertRaises(TypeError):\n"
        "            len([])\n"
    )
    diagnosis = classify_in(
        tmp_path,
        {"waits.py": test},
        "import waits; waits.TestWait().runTest()",
        monkeypatch,
    )
    assert diagnosis.pattern == "assertion"
    assert expected_exception(diagnosis) == "TypeError"
    assert diagnosis.facts["project_frame"] == {"path": "waits.py", "line": 6}


SHOWN = """class Box:
    def __init__(self, label=None):
        self.label = label

    def __repr__(self, prefix=None):
        return f"Box({prefix}{self.label!r})"


def shown(box, width=None):
    if width is None:
        width = 8
    return str(box.label).ljust(width)
"""


def test_a_repr_pytest_ran_to_show_a_failed_assertion_is_not_guarded(tmp_path: Path) -> None:
    """pytest runs ``__repr__`` to show the values of a failed assertion, so only in failing
    tests: the ranking puts it first, but a lost guard is looked for in the next suspect."""
    faulty = _deleted(SHOWN, "    if width is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("assertion", "assertion", "assertion", "AssertionError", "assert 1 == 2")
    tree = ast.parse(faulty)
    line = next(n.lineno for n in ast.walk(tree) if getattr(n, "name", None) == "__repr__")
    shown_repr = SuspiciousFunction(
        path="reg.py",
        function="Box.__repr__",
        line=line,
        score=1.0,
        failed_covering=1,
        passed_covering=0,
    )
    candidates = lost_guard_candidates(
        diagnosis, project, [shown_repr, _suspect(faulty, "shown", 0.3)]
    )
    assert candidates
    assert not any("`__repr__`" in c.description for c in candidates)
    assert "`if width is None:" in candidates[0].description
    assert "in `shown`" in candidates[0].description


def test_a_guard_body_that_leaves_a_loop_goes_only_inside_one() -> None:
    # `if cmd is None: continue`, the project's guard in a loop elsewhere, put where there is
    # no loop does not even compile: it is not tried there.
    code = "def f(items, item):\n    for x in items:\n        print(x)\n    return item.name\n"
    function = ast.parse(code).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert cannot_go_at("continue", function, 4)
    assert not cannot_go_at("continue", function, 3)
    assert not cannot_go_at("return None", function, 4)


def test_a_loop_s_else_is_no_place_for_a_body_that_leaves_the_loop() -> None:
    code = (
        "def f(items, cmd):\n    for x in items:\n        pass\n"
        "    else:\n        y = cmd.run()\n    return y\n"
    )
    function = ast.parse(code).body[0]
    assert isinstance(function, ast.FunctionDef)
    assert cannot_go_at("continue", function, 5)
    assert not cannot_go_at("continue", function, 3)


CONTEXTS = """class Context:
    def __init__(self, parent=None, obj=None, zone=None):
        self.parent = parent
        self.obj = obj
        self.zone = zone

    def find_object(self, kind):
        node = self
        while node is not None:
            if isinstance(node.obj, kind):
                return node.obj
            node = node.parent
        return None

    def ensure_object(self, kind):
        rv = self.find_object(kind)
        if rv is None:
            self.obj = rv = kind()
        return rv

    def localized(self, moment):
        if self.zone is None:
            raise ValueError("no zone")
        return moment.replace(tzinfo=self.zone)

    def forward(self, args):
        return self.invoke(args)

    def invoke(self, args):
        return [*args]
"""


def test_a_local_set_from_a_function_of_the_file_that_may_return_none_is_guarded(
    tmp_path: Path,
) -> None:
    faulty = _deleted(CONTEXTS, "        if rv is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("assertion", "assertion", "assertion", "AssertionError", "assert ...")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "ensure_object")])
    # Its body (set a new object) is not synthesized; the value and the place are found.
    assert candidates[0].description.startswith("put back `if rv is None: ")
    assert "in `ensure_object` at reg.py:17" in candidates[0].description


def test_an_attribute_set_from_a_parameter_whose_default_is_none_is_guarded(
    tmp_path: Path,
) -> None:
    faulty = _deleted(CONTEXTS, "        if self.zone is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis(
        "assertion", "other", "Failed", "Failed", "DID NOT RAISE <class 'ValueError'>"
    )
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "localized")])
    # The message went with the guard: the bare exception comes first.
    expected = CONTEXTS.replace('raise ValueError("no zone")', "raise ValueError")
    assert _same(candidates[0].edits[0].text, expected)


def test_a_suspect_with_a_value_likely_none_is_looked_into_before_likelier_plain_ones(
    tmp_path: Path,
) -> None:
    # Ochiai ranks the function that lost its guard last of six (every failing test runs the
    # others too); its value likely None, and nothing else's, brings it among those looked into.
    faulty = _deleted(CONTEXTS, "        if self.zone is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis(
        "assertion", "other", "Failed", "Failed", "DID NOT RAISE <class 'ValueError'>"
    )
    expected = CONTEXTS.replace('raise ValueError("no zone")', "raise ValueError")
    plain = ["forward", "invoke", "forward", "invoke", "forward"]
    ranked = [_suspect(faulty, name, 0.9 - 0.01 * rank) for rank, name in enumerate(plain)]
    ranked = [*ranked[:2], *[s.model_copy(update={"line": s.line + 100}) for s in ranked[2:]]]
    suspects = [*ranked, _suspect(faulty, "localized", 0.3)]
    candidates = lost_guard_candidates(diagnosis, project, suspects)
    assert _same(candidates[0].edits[0].text, expected)
    # By Ochiai alone (the first four), it would not have been looked into.
    fewer = lost_guard_candidates(diagnosis, project, suspects[:4])
    assert fewer
    assert not any(_same(c.edits[0].text, expected) for c in fewer)


FIELDS = """class Naive:
    def load(self, value, kind=None):
        if self.timezone is None:
            raise self.make_error("invalid_awareness", kind=self.KIND)
        if kind is None:
            raise self.make_error("missing", given=kind)
        return value


class Aware:
    def __init__(self, default_timezone=None):
        self.default_timezone = default_timezone

    def load(self, value):
        if self.default_timezone is None:
            raise self.make_error("invalid_awareness", kind=self.KIND)
        return value.replace(tzinfo=self.default_timezone)
"""


def test_a_guard_lost_where_the_test_waited_is_raised_as_its_namesakes_raise_on_a_none(
    tmp_path: Path,
) -> None:
    # The project raises through a factory that names no exception; `Naive.load`, a namesake,
    # raises it on a None. Its guard that reads its own parameter (`given=kind`) is not taken.
    faulty = _deleted(FIELDS, "        if self.default_timezone is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis(
        "assertion", "other", "Failed", "Failed", "DID NOT RAISE <class 'ValidationError'>"
    )
    line = faulty.index("class Aware")
    aware = _suspect(faulty[line:], "load").model_copy(
        update={"line": faulty[:line].count("\n") + 5}
    )
    candidates = lost_guard_candidates(diagnosis, project, [aware])
    assert _same(candidates[0].edits[0].text, FIELDS)
    assert "as the function's namesakes raise on a None" in candidates[0].description
    assert not any("given=kind" in c.description for c in candidates)


CONTEXT = """class Command:
    max_width = 80
    indent = 2


class Context:
    def __init__(self, command, indent=None, max_width=None):
        if indent is None:
            indent = command.indent
        self.indent = indent
        if max_width is None:
            max_width = command.max_width
        self.max_width = max_width

    def to_info_dict(self):
        return {"indent": self.indent, "max_width": self.max_width}
"""


def test_a_parameter_another_method_stores_whole_is_guarded_there_before_it_is_stored(
    tmp_path: Path,
) -> None:
    # An assertion on `to_info_dict()` (`'max_width': None`): the ranking points at
    # `to_info_dict`; the None came in as `__init__`'s `max_width`, stored whole, untested.
    faulty = _deleted(CONTEXT, "        if max_width is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("assertion", "other", "AssertionError", "AssertionError", "assert ...")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "to_info_dict")])
    restoring = [c for c in candidates if _same(c.edits[0].text, CONTEXT)]
    assert restoring
    assert restoring[0] is candidates[0]
    assert "`__init__`" in candidates[0].description


def test_a_stored_parameter_its_method_still_tests_is_not_guarded_again(tmp_path: Path) -> None:
    faulty = _deleted(CONTEXT, "        if max_width is None:")
    faulty = faulty.replace("        self.max_width = max_width\n", "")
    faulty = faulty.replace('"max_width": self.max_width', '"max_width": self.indent')
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("assertion", "other", "AssertionError", "AssertionError", "assert ...")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "to_info_dict")])
    # `indent` is stored and read, but `__init__` still tests it: nothing to guard there.
    assert not any("in `__init__`" in c.description for c in candidates)


def test_a_parameters_guard_goes_right_before_its_first_use_before_the_top(
    tmp_path: Path,
) -> None:
    original = REGISTRY + (
        "\n\ndef render(name, prefix=None, suffix=''):\n"
        "    name = name.strip()\n"
        "    suffix = suffix.upper()\n"
        "    if prefix is None:\n"
        '        prefix = "item"\n'
        "    return prefix + name + suffix\n"
    )
    faulty = original.replace(
        'upper()\n    if prefix is None:\n        prefix = "item"\n', "upper()\n"
    )
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("assertion", "assertion", "assertion", "AssertionError", "assert ...")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "render")])
    assert _same(candidates[0].edits[0].text, original)
    assert "before its first use" in candidates[0].description


WRAP = '''def wrap(s, sep=None):
    """Wrap ``s``.

    :param sep: What joins the lines. Defaults to ``"-"``.
    """
    import textwrap

    if sep is None:
        sep = "-"
    lines = textwrap.wrap(s, 5)
    return sep.join(lines)
'''


def test_a_parameters_lost_guard_at_the_top_goes_after_the_imports_that_do_not_read_it(
    tmp_path: Path,
) -> None:
    faulty = _deleted(WRAP, "    if sep is None:")
    project = _project(tmp_path, faulty)
    diagnosis = Diagnosis("assertion", "assertion", "assertion", "AssertionError", "assert ...")
    candidates = lost_guard_candidates(diagnosis, project, [_suspect(faulty, "wrap")])
    assert any(_same(c.edits[0].text, WRAP) for c in candidates)
    # Never before the import: the top of the body is past it.
    texts = [c.edits[0].text for c in candidates if "if sep is None" in c.edits[0].text]
    assert all(text.index("import textwrap") < text.index("if sep is None") for text in texts)
