"""The syntax and lint checks on small projects that pass and that fail them."""

from __future__ import annotations

import dataclasses
import json
from collections.abc import Callable
from pathlib import Path

import pytest

from phasegate.gates.checks.lint import LintCheck
from phasegate.gates.checks.syntax import SyntaxCheck
from phasegate.gates.protocol import CheckContext, NoOptions

CLEAN = {
    "pyproject.toml": '[tool.ruff.lint]\nselect = ["E", "F"]\n',
    "pkg/__init__.py": '"""A package."""\n\nVALUE = 1\n',
}
MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]


def test_syntax_passes_on_a_clean_project(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(CLEAN)
    measurement = SyntaxCheck().measure(make_context(), NoOptions())
    assert measurement.metrics == {"errors": 0, "files": 1}
    assert measurement.findings == []


def test_syntax_points_at_the_file_and_line(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({**CLEAN, "pkg/broken.py": "def f():\n    return (1,\n\nx = 2\n"})
    measurement = SyntaxCheck().measure(make_context(), NoOptions())
    (finding,) = measurement.findings
    assert (finding.path, finding.line) == ("pkg/broken.py", 2)
    assert "was never closed" in finding.message
    assert measurement.metrics["errors"] == 1


def test_syntax_catches_errors_only_the_compiler_sees(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"top.py": "x = 1\nreturn x\n"})
    (finding,) = SyntaxCheck().measure(make_context(), NoOptions()).findings
    assert (finding.path, finding.line) == ("top.py", 2)
    assert "'return' outside function" in finding.message


def test_syntax_reports_a_file_with_a_null_byte_and_goes_on(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = write_files({**CLEAN, "pkg/ok.py": "VALUE = 2\n"})
    (root / "pkg" / "zero.py").write_bytes(b"VALUE = 1\x00\n")
    measurement = SyntaxCheck().measure(make_context(), NoOptions())
    (finding,) = measurement.findings
    assert finding.path == "pkg/zero.py"
    assert "null bytes" in finding.message
    assert measurement.metrics == {"errors": 1, "files": 3}


def test_syntax_compiles_again_only_the_files_a_change_touched(
    tmp_path: Path,
    write_files: WriteFiles,
    make_context: MakeContext,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from phasegate.gates.checks import syntax

    write_files({**CLEAN, "pkg/bad.py": "def f(:\n", "pkg/good.py": "X = 1\n"})
    compiled: list[str] = []
    real = syntax._compile_problem

    def spy(path: Path) -> object:
        compiled.append(path.name)
        return real(path)

    monkeypatch.setattr(syntax, "_compile_problem", spy)
    reusing = dataclasses.replace(make_context(), reuse_file_results=True)
    first = SyntaxCheck().measure(reusing, NoOptions())
    assert sorted(compiled) == ["__init__.py", "bad.py", "good.py"]
    (tmp_path / "pkg/good.py").write_text("X = 2\n")
    compiled.clear()
    again = SyntaxCheck().measure(reusing, NoOptions())
    assert compiled == ["good.py"]  # the kept answers: one that compiles, one that does not
    assert again == first
    # A kept answer of another shape is not believed: that file is compiled again.
    kept = tmp_path / ".phasegate" / "cache" / "syntax.files.json"
    data = json.loads(kept.read_text())
    data["files"]["pkg/bad.py"]["data"] = ["SyntaxError: made up", "one", None]
    kept.write_text(json.dumps(data))
    compiled.clear()
    assert SyntaxCheck().measure(reusing, NoOptions()) == first
    assert compiled == ["bad.py"]
    # Without the settings' cache, everything is compiled and nothing kept.
    kept.unlink()
    compiled.clear()
    assert SyntaxCheck().measure(make_context(), NoOptions()) == first
    assert len(compiled) == 3
    assert not kept.exists()


def test_lint_passes_on_a_clean_project(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files(CLEAN)
    measurement = LintCheck().measure(make_context(), NoOptions())
    assert measurement.metrics["violations"] == 0
    assert measurement.new_code_metrics["violations"] == 0


def test_lint_reports_ruff_findings_with_location(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({**CLEAN, "pkg/mod.py": '"""M."""\n\nimport os\n\n\nprint(undefined)\n'})
    measurement = LintCheck().measure(make_context(), NoOptions())
    by_rule = {finding.rule: finding for finding in measurement.findings}
    assert (by_rule["F401"].path, by_rule["F401"].line) == ("pkg/mod.py", 3)
    assert (by_rule["F821"].path, by_rule["F821"].line) == ("pkg/mod.py", 6)
    assert by_rule["F821"].severity.value == "high"
    assert measurement.metrics["violations"] == 2
    assert measurement.metrics["fixable"] == 1


def test_lint_respects_the_projects_ruff_config(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {
            "pyproject.toml": '[tool.ruff]\nextend-exclude = ["legacy"]\n',
            "pkg/__init__.py": "",
            "legacy/old.py": "import os\n",
        }
    )
    assert LintCheck().measure(make_context(), NoOptions()).metrics["violations"] == 0


def test_lint_without_ruff_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import importlib.util

    from phasegate.gates.protocol import CheckError

    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "ruff" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        LintCheck().tool_info()
    assert "ruff is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install 'pytest-phasegate[gate]'" in caught.value.fix
