"""One parse of each file, shared by the checks that read syntax trees."""

from __future__ import annotations

import ast
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

from phasegate.gates.checks.deps import DepsCheck
from phasegate.gates.checks.docs import DocsCheck
from phasegate.gates.checks.syntax import SyntaxCheck
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

PROJECT = {
    "pyproject.toml": '[project]\nname = "shared"\nversion = "1"\ndependencies = []\n',
    "src/shared/__init__.py": (
        '"""Shared."""\n\n\ndef one() -> int:\n    """One."""\n    return 1\n'
    ),
    "src/shared/more.py": '"""More."""\nimport os\n',
    "tests/test_shared.py": "def test_one() -> None:\n    assert True\n",
}


def test_deps_and_docs_parse_each_package_file_once(
    write_files: WriteFiles, make_context: MakeContext, monkeypatch: pytest.MonkeyPatch
) -> None:
    root = write_files(PROJECT)
    parses: list[Path] = []
    real = ast.parse

    def counting(source: Any, filename: str = "<unknown>", *args: Any, **kwargs: Any) -> Any:
        if filename != "<unknown>":
            parses.append(Path(filename))
        return real(source, filename, *args, **kwargs)

    monkeypatch.setattr(ast, "parse", counting)
    context = make_context(root)
    assert SyntaxCheck().measure(context, NoOptions()).metrics["errors"] == 0
    assert DepsCheck().measure(context, NoOptions()).metrics["undeclared"] == 0
    assert DocsCheck().measure(context, NoOptions()).metrics["missing"] == 0
    # The package's two files parsed once, though two checks read them; the syntax check
    # compiles every file (the test too) from its source and builds no tree.
    assert sorted(path.relative_to(root).as_posix() for path in parses) == [
        "src/shared/__init__.py",
        "src/shared/more.py",
    ]


def test_a_file_that_does_not_parse_gives_every_check_the_same_reason(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    root = write_files({**PROJECT, "src/shared/more.py": "def broken(:\n"})
    context = make_context(root)
    (finding,) = SyntaxCheck().measure(context, NoOptions()).findings
    assert (finding.path, finding.line) == ("src/shared/more.py", 1)
    for check in (DepsCheck(), DocsCheck()):
        with pytest.raises(CheckError, match=r"more\.py cannot be read or parsed") as caught:
            check.measure(context, NoOptions())
        assert finding.message in caught.value.reason
