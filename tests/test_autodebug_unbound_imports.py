"""A name a suspect's module reads and nothing binds: a lost import whose error is caught."""

from __future__ import annotations

import ast
from pathlib import Path

from phasegate.autodebug.patterns.unbound_imports import unbound_import_candidates
from phasegate.autodebug.project import Project
from phasegate.model.autodebug import SuspiciousFunction
from tests.autodebug_support import suspects_in

PARSER = """\
from decimal import Decimal


def to_decimal(value):
    try:
        return Decimal(value)
    except Exception as error:
        raise ValueError(f"not a number: {value}") from error


def parse(text):
    try:
        return to_decimal(text)
    except ValueError:
        return None
"""


def _suspects(tmp_path: Path, text: str, name: str) -> tuple[Project, list[SuspiciousFunction]]:
    return suspects_in(tmp_path, text, name, copies=2)


def test_a_deleted_import_whose_name_error_is_caught_comes_back(tmp_path: Path) -> None:
    faulty = PARSER.replace("from decimal import Decimal\n\n\n", "")
    project, suspects = _suspects(tmp_path, faulty, "to_decimal")
    candidates = unbound_import_candidates(project, suspects)
    assert [c.description for c in candidates] == ["add `from decimal import Decimal` to mod.py"]
    assert ast.dump(ast.parse(candidates[0].edits[0].text)) == ast.dump(ast.parse(PARSER))


def test_a_module_that_binds_every_name_it_reads_is_left_alone(tmp_path: Path) -> None:
    project, suspects = _suspects(tmp_path, PARSER, "to_decimal")
    assert unbound_import_candidates(project, suspects) == []


def test_a_module_with_a_star_import_is_not_judged(tmp_path: Path) -> None:
    faulty = PARSER.replace("from decimal import Decimal", "from decimal import *")
    project, suspects = _suspects(
        tmp_path, faulty.replace("Decimal(value)", "Decimall(value)"), "parse"
    )
    assert unbound_import_candidates(project, suspects) == []
