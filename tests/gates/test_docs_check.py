"""The docs check: public docstrings, read with griffe, on small projects."""

from __future__ import annotations

import importlib.util
from collections.abc import Callable
from pathlib import Path

import pytest
from pydantic import ValidationError

from phasegate.gates.checks.docs import DocsCheck
from phasegate.gates.protocol import CheckContext, CheckError, NoOptions

from .samples import git

MakeContext = Callable[..., CheckContext]
WriteFiles = Callable[..., Path]

DOCUMENTED = '''\
"""A documented package."""

from sample._impl import Engine

__all__ = ["Engine", "start"]


def start() -> Engine:
    """Start an engine."""
    return Engine()


def _helper() -> None:
    pass
'''
IMPL = '''\
"""Private implementation."""


class Engine:
    """An engine."""

    speed = 1

    def __init__(self) -> None:
        self.on = False

    def __repr__(self) -> str:
        return "Engine()"

    def run(self) -> None:
        """Run it."""

    @property
    def running(self) -> bool:
        """Whether it runs."""
        return self.on


class _Hidden:
    def secret(self) -> None:
        pass
'''


def test_documented_api_passes(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({"src/sample/__init__.py": DOCUMENTED, "src/sample/_impl.py": IMPL})
    measurement = DocsCheck().measure(make_context(), NoOptions())
    # sample, sample.start, and Engine with run and running (re-exported from _impl);
    # not _helper, _Hidden, the special methods or the plain attribute.
    assert "5 of 5 public objects" in measurement.summary
    assert measurement.metrics == {"docstring_rate": 1.0, "missing": 0}
    assert measurement.new_code_metrics == {"docstring_rate": 1.0, "missing": 0}
    assert measurement.findings == []


def test_each_undocumented_object_is_a_finding(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files(
        {
            "src/sample/__init__.py": DOCUMENTED,
            "src/sample/_impl.py": IMPL.replace('        """Run it."""\n', "        pass\n"),
            "src/sample/tools.py": "def grind() -> int:\n    return 1\n",
        }
    )
    measurement = DocsCheck().measure(make_context(), NoOptions())
    rules = {finding.rule for finding in measurement.findings}
    assert rules == {"missing-docstring"}
    paths = sorted(f"{f.path}:{f.line} {f.message}" for f in measurement.findings)
    assert paths == [
        "src/sample/_impl.py:15 public method sample._impl.Engine.run has no docstring",
        "src/sample/tools.py:1 public function sample.tools.grind has no docstring",
        "src/sample/tools.py:1 public module sample.tools has no docstring",
    ]
    assert measurement.metrics["missing"] == 3
    assert measurement.metrics["docstring_rate"] == pytest.approx(4 / 7, abs=1e-4)


def test_all_decides_what_is_public(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files(
        {
            "src/sample/__init__.py": '"""P."""\n__all__ = ["shown"]\n\n\n'
            'def shown() -> None:\n    """Shown."""\n\n\ndef not_exported() -> None:\n    pass\n'
        }
    )
    measurement = DocsCheck().measure(make_context(), NoOptions())
    assert measurement.metrics == {"docstring_rate": 1.0, "missing": 0}


def test_only_objects_with_changed_lines_are_new(
    tmp_path: Path, write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/__init__.py": '"""P."""\n\n\ndef old() -> int:\n    return 1\n'})
    git(tmp_path, "init", "-q", "-b", "main")
    git(tmp_path, "add", ".")
    git(tmp_path, "commit", "-qm", "base")
    git(tmp_path, "checkout", "-qb", "feature")
    (tmp_path / "src/sample/__init__.py").write_text(
        '"""P."""\n\n\ndef old() -> int:\n    return 1\n\n\n'
        'def documented() -> int:\n    """Two."""\n    return 2\n\n\n'
        "def bare() -> int:\n    return 3\n"
    )
    measurement = DocsCheck().measure(make_context(base="main"), NoOptions())
    assert measurement.metrics["missing"] == 2
    assert measurement.new_code_metrics == {"docstring_rate": 0.5, "missing": 1}
    (new,) = [finding for finding in measurement.findings if finding.new]
    assert (new.path, new.line) == ("src/sample/__init__.py", 13)
    assert "sample.bare" in new.message


def test_no_public_object_gives_no_rate(write_files: WriteFiles, make_context: MakeContext) -> None:
    write_files({"src/_private_only.py": "X = 1\n"})
    measurement = DocsCheck().measure(make_context(), NoOptions())
    assert measurement.metrics == {"docstring_rate": None, "missing": 0}


def test_a_file_that_does_not_parse_is_an_error(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    write_files({"src/sample/__init__.py": DOCUMENTED, "src/sample/_impl.py": "class (:\n"})
    with pytest.raises(CheckError, match=r"_impl\.py cannot be read or parsed"):
        DocsCheck().measure(make_context(), NoOptions())


def test_takes_no_options() -> None:
    with pytest.raises(ValidationError, match="extra"):
        DocsCheck.options_model.model_validate({"min_rate": 0.9})


def test_without_griffe_is_an_error_with_the_install_command(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    real = importlib.util.find_spec
    monkeypatch.setattr(
        importlib.util, "find_spec", lambda name, *a: None if name == "griffe" else real(name, *a)
    )
    with pytest.raises(CheckError) as caught:
        DocsCheck().tool_info()
    assert "griffe is not installed" in caught.value.reason
    assert caught.value.fix is not None
    assert "pip install 'pytest-phasegate[gate]'" in caught.value.fix


def test_a_public_function_the_stubs_all_does_not_list_yet_is_counted(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    # more-itertools' layout: mod.py and its typed stub mod.pyi, each with an __all__; a new
    # function is added to the source and its __all__, and the stub has not caught up.
    root = write_files(
        {
            "src/pkg/__init__.py": '"""Pkg."""\nfrom .mod import *\n',
            "src/pkg/__init__.pyi": "from .mod import *\n",
            "src/pkg/mod.py": (
                '"""Mod."""\n__all__ = ["old", "new"]\n\n\ndef old():\n    """Old."""\n\n\n'
                "def new(x):\n    return x\n"
            ),
            "src/pkg/mod.pyi": '__all__ = ["old"]\n\ndef old() -> None: ...\n',
        }
    )
    measurement = DocsCheck().measure(make_context(root), NoOptions())
    assert [finding.message for finding in measurement.findings] == [
        "public function pkg.mod.new has no docstring"
    ]
    assert measurement.metrics["missing"] == 1


def test_a_package_that_re_exports_a_sibling_package_is_loaded_with_it(
    write_files: WriteFiles, make_context: MakeContext
) -> None:
    # attrs' layout: `attrs` re-exports `attr.field`, and its stub declares `field`'s
    # overloads; griffe resolves the name only with `attr` loaded beside it, whatever the order.
    root = write_files(
        {
            "src/core/__init__.py": '"""Core."""\n\n\ndef field():\n    """A field."""\n',
            "src/api/__init__.py": '"""Api."""\nfrom core import field\n\n__all__ = ["field"]\n',
            "src/api/__init__.pyi": (
                "from typing import overload\n\n@overload\ndef field(x: int) -> int: ...\n"
                "@overload\ndef field(x: str) -> str: ...\n\n__all__ = ['field']\n"
            ),
        }
    )
    measurement = DocsCheck().measure(make_context(root), NoOptions())
    assert measurement.metrics == {"docstring_rate": 1.0, "missing": 0}
    assert measurement.summary.startswith("3 of 3 public objects have a docstring")
