"""benchmarks/import_placement.py: the order a project keeps among its imports, and a lost
import put back by it."""

from __future__ import annotations

import ast
from types import ModuleType
from typing import Any

import pytest

from phasegate.autodebug.source import insert_import, leading_imports
from tests.conftest import load_benchmark


@pytest.fixture(scope="module")
def placement() -> ModuleType:
    return load_benchmark("import_placement")


@pytest.fixture
def learnt(placement: ModuleType) -> Any:
    def learn(*headers: str) -> Any:
        precedence = placement.ImportPrecedence()
        for header in headers:
            precedence.learn(leading_imports(ast.parse(header))[0])
        return precedence

    return learn


# `import os` sorts before `import sys`: the file's own rule puts it first.
UNSORTED = "import sys\nimport re\nfrom . import a\n\n\nx = 1\n"


def test_a_lost_import_goes_where_the_projects_other_modules_put_it(
    learnt: Any, placement: ModuleType
) -> None:
    precedence = learnt("import sys\nimport os\nimport re\n", "import sys\nimport os\n")
    assert insert_import(UNSORTED, "import os") == "import os\n" + UNSORTED
    assert placement.insert_in_project_order(UNSORTED, "import os", precedence) == (
        "import sys\nimport os\nimport re\nfrom . import a\n\n\nx = 1\n"
    )


def test_the_files_own_rule_stands_when_the_project_never_orders_the_import(
    learnt: Any, placement: ModuleType
) -> None:
    precedence = learnt("import sys\nimport json\n", "import re\nfrom . import b\n")
    assert placement.insert_in_project_order(UNSORTED, "import os", precedence) == insert_import(
        UNSORTED, "import os"
    )


def test_the_files_own_rule_stands_when_it_agrees_as_well_as_any_place(
    learnt: Any, placement: ModuleType
) -> None:
    # One file puts `os` after `sys`, another before it: no place agrees better than the rule.
    precedence = learnt("import sys\nimport os\n", "import os\nimport sys\n")
    assert (
        placement.insert_in_project_order(UNSORTED, "import os", precedence)
        == "import os\n" + UNSORTED
    )


def test_the_majority_of_the_projects_modules_decides(learnt: Any, placement: ModuleType) -> None:
    precedence = learnt(
        "import re\nimport os\n", "import re\nimport os\n", "import os\nimport re\n"
    )
    assert precedence.lean("import re", "import os") == 1
    assert placement.insert_in_project_order(UNSORTED, "import os", precedence) == (
        "import sys\nimport re\nimport os\nfrom . import a\n\n\nx = 1\n"
    )


def test_a_file_counted_with_a_negative_weight_is_taken_back(learnt: Any) -> None:
    precedence = learnt("import sys\nimport os\n")
    precedence.learn(leading_imports(ast.parse("import sys\nimport os\n"))[0], weight=-1)
    assert precedence.lean("import sys", "import os") == 0


def test_imports_in_isorts_order_stay_in_it_whatever_the_project_does(
    learnt: Any, placement: ModuleType
) -> None:
    precedence = learnt("import sys\nimport os\n")
    text = "import re\nimport sys\n\nx = 1\n"
    assert (
        placement.insert_in_project_order(text, "import os", precedence)
        == "import os\nimport re\nimport sys\n\nx = 1\n"
    )


def test_a_from_import_is_known_by_its_module_not_by_its_names(placement: ModuleType) -> None:
    first = ast.parse("from warnings import warn").body[0]
    second = ast.parse("from warnings import catch_warnings, warn").body[0]
    assert isinstance(first, ast.ImportFrom)
    assert isinstance(second, ast.ImportFrom)
    assert placement.import_identity(first) == placement.import_identity(second) == "from warnings"


def test_a_restored_import_can_end_a_block_before_a_blank_line(
    learnt: Any, placement: ModuleType
) -> None:
    precedence = learnt("import sys\nimport os\nimport re\n", "import json\nimport os\n")
    text = "import sys\nimport json\n\nimport re\n\nx = 1\n"
    assert placement.insert_in_project_order(text, "import os", precedence) == (
        "import sys\nimport json\nimport os\n\nimport re\n\nx = 1\n"
    )


def test_the_file_s_own_order_alone_ignores_the_place_a_block_of_one_left(
    placement: ModuleType,
) -> None:
    without = "import sys\nimport os\n\n\nimport numpy\n\n\nx = 1\n"
    assert placement.insert_by_own_order_alone(without, "import pytest") == (
        "import sys\nimport os\n\n\nimport numpy\nimport pytest\n\n\nx = 1\n"
    )
    assert insert_import(without, "import pytest") == (
        "import sys\nimport os\n\nimport pytest\n\nimport numpy\n\n\nx = 1\n"
    )


def test_a_from_import_of_a_module_imported_from_again_is_counted_apart(
    placement: ModuleType,
) -> None:
    text = "from ._funcs import asdict as _asdict\nfrom ._funcs import astuple as _astuple\n"
    header = leading_imports(ast.parse(text))[0]
    lines = text.splitlines(keepends=True)
    assert placement.rejoinable(header, header[1], lines)
    assert not placement.restorable(header, header[1], lines)
    without = "from ._funcs import asdict as _asdict\n"
    statement = "from ._funcs import astuple as _astuple"
    assert placement.insert_joined_as_before(without, statement) == (
        "from ._funcs import asdict as _asdict, astuple as _astuple\n"
    )
    assert insert_import(without, statement) == text
    tally = placement.Tally()
    placement.measure_joins([(text, ast.parse(text))], tally)
    assert (tally.join_cases, tally.joined_as_before, tally.join_own_rule) == (2, 0, 2)
