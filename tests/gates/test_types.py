"""The types check: mypy on small projects that pass and that fail it."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from phasegate.gates.checks.types import TypesCheck
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions

from .samples import git

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

TYPED = '"""Typed."""\n\n\ndef double(x: int) -> int:\n    return x * 2\n'
WRONG = '"""Wrong."""\n\n\ndef name(x: int) -> str:\n    return x\n'


def test_typed_project_passes(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({"src/sample/__init__.py": TYPED})
    context = make_context()
    measurement = TypesCheck().measure(context, NoOptions())
    assert measurement.metrics == {"errors": 0, "notes": 0}
    assert measurement.new_code_metrics == {"errors": 0, "notes": 0}
    # mypy's cache lives in the artifacts folder, not in the project.
    assert (context.store.root / "cache" / "mypy").is_dir()
    assert not (context.project.root / ".mypy_cache").exists()


def test_a_note_about_the_configuration_is_not_a_failure_to_check(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    # mypy prints this note as text (not JSON) and counts it in its JUnit report, exit 0.
    write_files(
        {
            "src/sample/__init__.py": TYPED,
            "setup.cfg": "[mypy]\nwarn_unused_configs = True\n[mypy-nothing.*]\nstrict = True\n",
        }
    )
    measurement = TypesCheck().measure(make_context(), NoOptions())
    assert measurement.metrics == {"errors": 0, "notes": 0}
    assert measurement.summary == "mypy found no error in 1 package(s)"


def test_type_error_points_at_file_line_and_column(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/__init__.py": TYPED, "src/sample/wrong.py": WRONG})
    measurement = TypesCheck().measure(make_context(), NoOptions())
    (finding,) = measurement.findings
    assert (finding.path, finding.line, finding.column) == ("src/sample/wrong.py", 5, 12)
    assert finding.rule == "return-value"
    assert finding.severity.value == "medium"
    assert 'got "int", expected "str"' in finding.message
    assert measurement.metrics["errors"] == 1
    assert "src/sample/wrong.py:5 [return-value]" in measurement.summary


def test_projects_mypy_config_decides_strictness(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    untyped = '"""Untyped."""\n\n\ndef half(x):\n    return x / 2\n'
    write_files({"src/sample/__init__.py": untyped})
    assert TypesCheck().measure(make_context(), NoOptions()).metrics["errors"] == 0
    write_files({"pyproject.toml": "[tool.mypy]\ndisallow_untyped_defs = true\n"})
    measurement = TypesCheck().measure(make_context(), NoOptions())
    assert [finding.rule for finding in measurement.findings] == ["no-untyped-def"]


def test_projects_mypy_exclude_applies(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files(
        {
            "pyproject.toml": '[tool.mypy]\nexclude = ["legacy"]\n',
            "src/sample/__init__.py": TYPED,
            "src/sample/legacy/__init__.py": WRONG,
        }
    )
    assert TypesCheck().measure(make_context(), NoOptions()).metrics["errors"] == 0


def test_syntax_error_is_a_high_finding_not_a_crash(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/__init__.py": TYPED, "src/sample/bad.py": "def f(:\n"})
    measurement = TypesCheck().measure(make_context(), NoOptions())
    first = measurement.findings[0]
    assert (first.path, first.line, first.rule) == ("src/sample/bad.py", 1, "syntax")
    assert first.severity.value == "high"
    assert measurement.metrics["errors"] >= 1


def test_error_on_an_unchanged_line_is_not_new(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/__init__.py": TYPED, "src/sample/wrong.py": WRONG})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    (tmp_path / "src/sample/__init__.py").write_text(TYPED + '\n\nLIMIT: int = "ten"\n')
    measurement = TypesCheck().measure(make_context(base="main"), NoOptions())
    assert measurement.metrics["errors"] == 2
    assert measurement.new_code_metrics["errors"] == 1
    (new,) = [finding for finding in measurement.findings if finding.new]
    assert (new.path, new.line, new.rule) == ("src/sample/__init__.py", 8, "assignment")


def test_mypy_that_cannot_run_is_an_error(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/__init__.py": TYPED, "mypy.ini": "[mypy]\npython_version = 2.7\n"})
    with pytest.raises(CheckError, match="exit status 2") as caught:
        TypesCheck().measure(make_context(), NoOptions())
    assert "no longer supports checking Python 2" in caught.value.reason


def test_takes_no_options() -> None:
    with pytest.raises(ValidationError, match="extra"):
        TypesCheck.options_model.model_validate({"strict": True})


def test_without_mypy_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "mypy" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        TypesCheck().tool_info()
    assert "mypy is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install 'pytest-phasegate[gate]'" in caught.value.fix
