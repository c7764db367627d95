"""Ochiai over per-test coverage: which functions the failing tests run and passing ones do not."""

from __future__ import annotations

import ast
import math

import pytest

from phasegate.autodebug.localize import Spectrum, function_spans, ochiai, rank_functions


def test_ochiai() -> None:
    assert ochiai(ef=1, ep=0, nf=0) == 1.0
    assert ochiai(ef=0, ep=3, nf=1) == 0.0
    assert ochiai(ef=1, ep=1, nf=0) == pytest.approx(1 / math.sqrt(2))
    assert ochiai(ef=2, ep=2, nf=1) == pytest.approx(2 / math.sqrt(3 * 4))


def test_functions_are_named_as_python_qualifies_them() -> None:
    tree = ast.parse(
        "def top():\n    def inner():\n        pass\n\nclass Box:\n    def put(self):\n"
        "        pass\n"
    )
    assert function_spans(tree) == [("top", 1, 3), ("top.<locals>.inner", 2, 3), ("Box.put", 6, 7)]


def test_the_function_only_failing_tests_run_ranks_first() -> None:
    spectrum = Spectrum(
        covered={
            ("app/calc.py", "add", 1): {"t::a", "t::b", "t::c"},
            ("app/calc.py", "divide", 5): {"t::fail"},
            ("app/calc.py", "helper", 9): {"t::fail", "t::a"},
            ("app/other.py", "unrelated", 1): {"t::b"},
        },
        outcomes={"t::a": "passed", "t::b": "passed", "t::c": "passed", "t::fail": "failed"},
    )
    ranked = rank_functions(spectrum, ["t::fail"], top=5)
    assert [(s.function, s.score) for s in ranked] == [
        ("divide", 1.0),
        ("helper", pytest.approx(0.7071, abs=1e-4)),
    ]
    assert (ranked[1].failed_covering, ranked[1].passed_covering) == (1, 1)
    assert rank_functions(spectrum, ["t::fail"], top=1)[0].function == "divide"
