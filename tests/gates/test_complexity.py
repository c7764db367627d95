"""The complexity check: radon on small projects that pass and that fail it."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from phasegate.gates.checks.complexity import ComplexityCheck, ComplexityOptions
from phasegate.gates.protocol import CheckContext, CheckError

from .samples import git

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

SIMPLE = '"""Simple."""\n\n\ndef add(a: int, b: int) -> int:\n    return a + b\n'


def branchy(name: str, branches: int) -> str:
    """A function of cyclomatic complexity ``branches + 1``."""
    body = "".join(f"    if x == {i}:\n        return {i}\n" for i in range(branches))
    return f"def {name}(x: int) -> int:\n{body}    return -1\n"


def test_simple_project_passes(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({"src/sample/__init__.py": SIMPLE})
    measurement = ComplexityCheck().measure(make_context(), ComplexityOptions())
    assert measurement.metrics["complex_functions"] == 0
    assert measurement.metrics["max_complexity"] == 1
    min_mi = measurement.metrics["min_maintainability"]
    assert isinstance(min_mi, float)
    assert min_mi > 50
    assert measurement.findings == []


def test_complex_function_is_found_at_its_line(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    source = SIMPLE + "\n\n" + branchy("tangled", 12)
    write_files({"src/sample/__init__.py": '"""Pkg."""\n', "src/sample/logic.py": source})
    measurement = ComplexityCheck().measure(make_context(), ComplexityOptions())
    (finding,) = measurement.findings
    assert (finding.path, finding.line) == ("src/sample/logic.py", 8)
    assert finding.rule == "complexity-C"
    assert "tangled has cyclomatic complexity 13 (rank C)" in finding.message
    assert measurement.metrics["complex_functions"] == 1
    assert measurement.metrics["max_complexity"] == 13
    assert "src/sample/logic.py:8 tangled (13)" in measurement.summary


def test_methods_and_nested_functions_count_on_their_own(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    nested = branchy("inner", 4).replace("\n", "\n    ")
    source = "class Box:\n    " + branchy("pick", 4).replace("\n", "\n    ").replace(
        "(x", "(self, x"
    )
    source += "\n\ndef outer(y: int) -> int:\n    " + nested + "\n    return inner(y)\n"
    write_files({"src/sample/__init__.py": source})
    measurement = ComplexityCheck().measure(make_context(), ComplexityOptions(max_complexity=3))
    messages = sorted(finding.message.split(" has")[0] for finding in measurement.findings)
    assert messages == ["Box.pick", "outer.inner"]


def test_limit_is_an_option(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({"src/sample/__init__.py": branchy("f", 5)})
    check = ComplexityCheck()
    assert check.measure(make_context(), ComplexityOptions()).metrics["complex_functions"] == 0
    strict = check.measure(make_context(), ComplexityOptions(max_complexity=5))
    assert strict.metrics["complex_functions"] == 1


def test_only_functions_with_changed_lines_are_new(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/__init__.py": branchy("old", 12) + "\n\n" + branchy("later", 2)})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    path = tmp_path / "src/sample/__init__.py"
    # A new branch in the middle of `later` makes it complex and touches it, not `old`.
    path.write_text(branchy("old", 12) + "\n\n" + branchy("later", 11))
    measurement = ComplexityCheck().measure(make_context(base="main"), ComplexityOptions())
    assert measurement.metrics["complex_functions"] == 2
    assert measurement.new_code_metrics["complex_functions"] == 1
    assert measurement.new_code_metrics["max_complexity"] == 12
    (new,) = [finding for finding in measurement.findings if finding.new]
    assert new.message.startswith("later has")
    assert new.line == 29


def test_unparseable_file_is_an_error(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({"src/sample/__init__.py": SIMPLE, "src/sample/bad.py": "def f(:\n"})
    with pytest.raises(CheckError, match=r"radon could not measure src/sample/bad\.py"):
        ComplexityCheck().measure(make_context(), ComplexityOptions())


def test_options_are_validated() -> None:
    with pytest.raises(ValidationError, match="max_complexity"):
        ComplexityOptions.model_validate({"max_complexity": 0})
    with pytest.raises(ValidationError, match="extra"):
        ComplexityOptions.model_validate({"min_rank": "B"})


def test_without_radon_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "radon" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        ComplexityCheck().tool_info()
    assert "radon is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install radon" in caught.value.fix


def test_files_radon_is_configured_to_leave_out_are_not_an_error(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    write_files(
        {
            "pyproject.toml": '[tool.radon]\nexclude = "*/generated.py"\n',
            "src/sample/__init__.py": SIMPLE,
            "src/sample/generated.py": branchy("made", 20),
        }
    )
    monkeypatch.chdir(make_context().project.root)  # radon reads its configuration from here
    measurement = ComplexityCheck().measure(make_context(), ComplexityOptions())
    assert measurement.metrics["complex_functions"] == 0
    assert "generated" not in measurement.summary
