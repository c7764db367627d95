"""What the rules read in source and test files: assertions, stubs, complexity, test files."""

from __future__ import annotations

import subprocess
from pathlib import Path

import pytest

from phasegate.tdd.assertions import count_assertions, function_path
from phasegate.tdd.complexity import ComplexityMeter
from phasegate.tdd.config import DEFAULT_TEST_GLOBS
from phasegate.tdd.interfaces import interface_problems
from phasegate.tdd.tree import TreeLayout, changes, content_hash, hash_bytes, hash_tree, nodeid_path

TESTS = b"""
import pytest

class TestStack:
    def test_pop(self, stack):
        assert stack.pop() == 1
        with pytest.raises(IndexError):
            stack.pop()

    @pytest.mark.parametrize("n", [1, 2])
    def test_many(self, n):
        self.assertEqual(n, n)
        mock.assert_called_once_with(n)

def test_plain():
    def helper():
        assert True
    helper()
"""


def test_function_path_strips_parameters() -> None:
    assert function_path("t.py::TestStack::test_many[1-2]") == ["TestStack", "test_many"]


@pytest.mark.parametrize(
    ("nodeid", "count"),
    [
        ("t.py::TestStack::test_pop", 2),
        ("t.py::TestStack::test_many[1]", 2),
        ("t.py::test_plain", 1),
        ("t.py::test_missing", None),
        ("t.py::TestStack::test_plain", None),
    ],
)
def test_assertions_are_counted_per_test(nodeid: str, count: int | None) -> None:
    calls = ["raises", "warns", "deprecated_call", "assert*"]
    assert count_assertions(TESTS, nodeid, calls) == count


def test_assertion_calls_are_configurable() -> None:
    assert count_assertions(TESTS, "t.py::TestStack::test_pop", []) == 1


BEFORE = b"""
class Stack:
    def push(self, item):
        self.items.append(item)
"""


def test_stubs_are_interfaces() -> None:
    after = (
        BEFORE
        + b'''
    def pop(self):
        """Take the top item."""
        raise NotImplementedError("pop")

    def peek(self) -> int: ...

LIMIT = 3

class EmptyError(Exception):
    pass
'''
    )
    assert interface_problems(BEFORE, after) == []


def test_behaviour_is_not_an_interface() -> None:
    after = (
        BEFORE.replace(b"append(item)", b"insert(0, item)")
        + b"""
    def pop(self):
        return self.items.pop()

print("loaded")
"""
    )
    problems = [str(problem) for problem in interface_problems(BEFORE, after)]
    assert problems == [
        "line 3: Stack.push is not a stub (changes the body of a function with behaviour)",
        "line 6: Stack.pop is not a stub (adds a function with behaviour)",
        "line 9: module runs code (a new expr statement)",
    ]


def test_removing_a_function_is_not_an_interface() -> None:
    problems = interface_problems(BEFORE, b"class Stack:\n    pass\n")
    assert [str(problem) for problem in problems] == ["line 3: Stack.push was removed"]


def test_a_new_file_of_stubs_is_an_interface() -> None:
    assert interface_problems(None, b"def area(shape):\n    ...\n") == []
    (problem,) = interface_problems(None, b"def area(shape:\n")
    assert "does not parse" in str(problem)


def test_complexity_figures_and_the_worst_block() -> None:
    files = {
        "a.py": b"def f(x):\n    if x:\n        return 1\n    return 2\n",
        "b.py": b"class C:\n    def g(self):\n        return 0\n",
    }
    meter = ComplexityMeter()
    hashes = {path: hash_bytes(data) for path, data in files.items()}
    figures = meter.measure(hashes, lambda path, _sha: files[path])
    assert (figures.max, figures.total, figures.blocks, figures.mean) == (2, 3, 2, 1.5)
    assert figures.worst == "a.py:f"


def test_unparseable_source_is_noted_not_fatal() -> None:
    meter = ComplexityMeter()
    figures = meter.measure({"bad.py": hash_bytes(b"def (")}, lambda _p, _s: b"def (")
    assert figures.blocks == 0
    assert meter.unreadable == ["bad.py"]


@pytest.fixture
def project(tmp_path: Path) -> Path:
    for relpath in (
        "src/pkg/__init__.py",
        "src/pkg/core.py",
        "src/pkg/tests/test_inner.py",
        "tests/test_core.py",
        "tests/conftest.py",
        "scripts/tool.py",
        "test_top.py",
        ".venv/lib/site.py",
    ):
        path = tmp_path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text(f"# {relpath}\n")
    return tmp_path


def test_files_divide_into_tests_and_source(project: Path) -> None:
    layout = TreeLayout(project, DEFAULT_TEST_GLOBS)
    assert layout.files() == {
        "src/pkg/__init__.py": "source",
        "src/pkg/core.py": "source",
        "src/pkg/tests/test_inner.py": "test",
        "tests/test_core.py": "test",
        "tests/conftest.py": "test",
        "test_top.py": "test",
    }


def test_source_globs_name_the_source(project: Path) -> None:
    layout = TreeLayout(project, ["tests/*"], source_globs=["scripts/*"])
    assert layout.files() == {
        "scripts/tool.py": "source",
        "tests/test_core.py": "test",
        "tests/conftest.py": "test",
    }


def test_git_decides_which_files_exist(project: Path) -> None:
    (project / ".gitignore").write_text("src/pkg/core.py\n")
    subprocess.run(["git", "init", "-q"], cwd=project, check=True)
    files = TreeLayout(project, DEFAULT_TEST_GLOBS).files()
    assert "src/pkg/core.py" not in files
    assert "src/pkg/__init__.py" in files


def test_hashes_and_changes(project: Path) -> None:
    (project / "src/pkg/old.py").write_text("old\n")
    layout = TreeLayout(project, DEFAULT_TEST_GLOBS)
    before = hash_tree(layout)
    assert before.source["src/pkg/core.py"] == hash_bytes(b"# src/pkg/core.py\n")
    (project / "src/pkg/core.py").write_text("changed\n")
    (project / "src/pkg/new.py").write_text("new\n")
    (project / "src/pkg/old.py").unlink()
    after = hash_tree(layout)
    assert [str(change) for change in changes(before.source, after.source)] == [
        "src/pkg/core.py (changed)",
        "src/pkg/new.py (added)",
        "src/pkg/old.py (removed)",
    ]
    assert content_hash(before) != content_hash(after)
    assert content_hash(after) == content_hash(hash_tree(layout))


def test_node_ids_map_to_files_of_the_project() -> None:
    assert nodeid_path("tests/test_a.py::test_x[1]") == "tests/test_a.py"
    assert nodeid_path("test_a.py::T::test_x", "sub") == "sub/test_a.py"


def test_in_a_flat_project_every_other_file_is_source(tmp_path: Path) -> None:
    for relpath in ("calc.py", "helpers.py", "test_calc.py", "tests/test_more.py"):
        path = tmp_path / relpath
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_text("x = 1\n")
    assert TreeLayout(tmp_path, DEFAULT_TEST_GLOBS).files() == {
        "calc.py": "source",
        "helpers.py": "source",
        "test_calc.py": "test",
        "tests/test_more.py": "test",
    }
