"""The syntax and lint checks on small projects that pass and that fail them."""

from __future__ import annotations

import dataclasses
import json
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path

import pytest

from phasegate.gates.checks.lint import LintCheck
from phasegate.gates.checks.syntax import SyntaxCheck
from phasegate.gates.newcode import NewCode
from phasegate.gates.protocol import CheckContext, NoOptions
from phasegate.model.gate import BaseInfo

from .samples import forge_kept

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
    forge_kept(tmp_path / ".phasegate", "cache/syntax.files.json", json.dumps(data))
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


def test_lint_reads_the_stubs_and_pyproject_toml_as_ruff_check_dot_does(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {
            "pyproject.toml": (
                '[project]\nname = 1\n\n[tool.ruff.lint]\nselect = ["E", "F", "RUF200"]\n'
            ),
            "pkg/__init__.py": '"""A package."""\n',
            "pkg/__init__.pyi": "def value() -> Missing: ...\n",
        }
    )
    found = LintCheck().measure(make_context(), NoOptions()).findings
    assert sorted((finding.path, finding.rule, finding.line) for finding in found) == [
        ("pkg/__init__.pyi", "F821", 1),
        ("pyproject.toml", "RUF200", 2),
    ]


def _notebook(*cells: str) -> str:
    """A Jupyter notebook (nbformat 4) with a markdown cell, then a code cell per text."""
    code = [
        {"cell_type": "code", "execution_count": None, "metadata": {}, "outputs": [],
         "source": text.splitlines(keepends=True)}
        for text in cells
    ]  # fmt: skip
    markdown = {"cell_type": "markdown", "metadata": {}, "source": ["# Notes\n"]}
    metadata = {"language_info": {"name": "python"}}
    return json.dumps({"cells": [markdown, *code], "metadata": metadata, "nbformat": 4,
                       "nbformat_minor": 5}, indent=1)  # fmt: skip


def test_lint_reads_notebooks_as_ruff_check_dot_does_and_places_findings_by_cell(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = write_files(
        {**CLEAN, "notes/explore.ipynb": _notebook("import os\nVALUE = 1\n", "print(missing)\n")}
    )
    found = LintCheck().measure(make_context(), NoOptions()).findings
    by_hand = subprocess.run(
        [sys.executable, "-m", "ruff", "check", "--output-format", "json", "--no-cache", "."],
        cwd=root, capture_output=True, text=True, check=False,
    )  # fmt: skip
    ruff = [
        (Path(entry["filename"]).relative_to(root).as_posix(), entry["code"],
         f"cell {entry['cell']}, line {entry['location']['row']}: {entry['message']}")
        for entry in json.loads(by_hand.stdout)
    ]  # fmt: skip
    assert (
        sorted((f.path, f.rule, f.message) for f in found)
        == sorted(ruff)
        == [
            ("notes/explore.ipynb", "F401", "cell 2, line 1: `os` imported but unused"),
            ("notes/explore.ipynb", "F821", "cell 3, line 1: Undefined name `missing`"),
        ]
    )
    assert [(f.line, f.column, f.new) for f in found] == [(None, None, True)] * 2


def test_a_notebooks_findings_are_new_when_the_notebook_changed(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {
            **CLEAN,
            "explore.ipynb": _notebook("import os\n"),
            "other.ipynb": _notebook("import sys\n"),
        }
    )
    changed = NewCode(BaseInfo(ref="main", available=True), {"explore.ipynb": frozenset({3})})
    found = LintCheck().measure(make_context(new_code=changed), NoOptions()).findings
    assert sorted((f.path, f.new) for f in found) == [
        ("explore.ipynb", True),
        ("other.ipynb", False),
    ]


def test_a_notebook_ruff_cannot_read_is_one_finding_on_the_whole_notebook(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({**CLEAN, "torn.ipynb": _notebook("import os\n")[:40]})
    changed = NewCode(BaseInfo(ref="main", available=True), {"torn.ipynb": frozenset({3})})
    found = LintCheck().measure(make_context(new_code=changed), NoOptions()).findings
    assert [(f.path, f.rule, f.line, f.new) for f in found] == [
        ("torn.ipynb", "invalid-syntax", None, True)
    ]
    assert "Jupyter Notebook" in found[0].message


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


def test_lint_runs_the_binary_ruffs_own_module_would_exec(tmp_path: Path) -> None:
    import ruff.__main__

    from phasegate.gates.tools import module_binary

    # Looked up in the __main__ python -m ruff runs, which has it in every ruff from 0.6 on.
    assert module_binary("ruff", "find_ruff_bin", tmp_path) == [ruff.__main__.find_ruff_bin()]


@pytest.mark.parametrize("where", ["the children's PYTHONPATH", "the folder it runs in"])
def test_another_ruff_module_for_the_children_keeps_python_m_ruff(
    where: str, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates.tools import module_binary

    project, modules = tmp_path / "project", tmp_path / "modules"
    folder = project if where == "the folder it runs in" else modules
    (folder / "ruff").mkdir(parents=True)
    (folder / "ruff" / "__init__.py").write_text("")
    (folder / "ruff" / "__main__.py").write_text("print('not ruff')\n")
    monkeypatch.setenv("PYTHONPATH", str(modules))
    assert module_binary("ruff", "find_ruff_bin", project) is None


@pytest.mark.parametrize(
    ("body", "found"),
    [
        ("def find():\n    raise FileNotFoundError('no binary')\n", False),
        ("def find():\n    return '/nowhere/at/all'\n", False),
        ("def find():\n    return None\n", False),
        ("def other():\n    return __file__\n", False),
        ("def find():\n    return __file__\n", True),
    ],
)
def test_a_binary_is_used_only_when_the_modules_finder_names_a_file(
    body: str, found: bool, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    from phasegate.gates import tools
    from phasegate.gates.tools import module_binary

    name = f"finder_under_test_{tmp_path.name.replace('-', '_')}"  # one module per case
    monkeypatch.setattr(tools, "_GUARDED_MAINS", frozenset({name, "no_such_module_anywhere"}))
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")  # as in ruff 0.6: only __main__ has it
    (tmp_path / name / "__main__.py").write_text(body)
    monkeypatch.syspath_prepend(str(tmp_path))
    program = module_binary(name, "find", tmp_path / "elsewhere")
    assert program == ([str(tmp_path / name / "__main__.py")] if found else None)
    assert module_binary("no_such_module_anywhere", "find", tmp_path) is None


def test_a_module_not_known_to_guard_its_main_is_not_imported_to_find_a_binary(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    import sys

    from phasegate.gates.tools import module_binary

    # Its __main__ runs on import (as black's does): importing it here would run the tool.
    name = f"unguarded_under_test_{tmp_path.name.replace('-', '_')}"
    (tmp_path / name).mkdir()
    (tmp_path / name / "__init__.py").write_text("")
    ran = tmp_path / "ran"
    (tmp_path / name / "__main__.py").write_text(
        f"from pathlib import Path\nPath({str(ran)!r}).touch()\n\n\ndef find():\n"
        "    return __file__\n"
    )
    monkeypatch.syspath_prepend(str(tmp_path))
    assert module_binary(name, "find", tmp_path / "elsewhere") is None
    assert not ran.exists()
    assert f"{name}.__main__" not in sys.modules


@pytest.mark.parametrize(
    "script", ["import sys\nsys.exit(3)\n", "print('not json')\n", "pass\n", "print('{}')\n"]
)
def test_a_ruff_binary_that_misbehaves_is_an_error(
    script: str,
    write_files: WriteFiles,
    make_context: MakeContext,
    tmp_path: Path,
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    import sys

    from phasegate.gates.checks import lint
    from phasegate.gates.protocol import CheckError

    binary = tmp_path / "fake-ruff"
    binary.write_text(f"#!{sys.executable}\n{script}")
    binary.chmod(0o755)
    monkeypatch.setattr(lint, "module_binary", lambda *_args: [str(binary)])
    write_files(CLEAN)
    with pytest.raises(CheckError) as caught:
        LintCheck().measure(make_context(), NoOptions())
    assert "ruff" in caught.value.reason
