"""A copy of the project's package where the tests import it first (``integrity.shadows``)."""

from __future__ import annotations

import pytest

from .conftest import BASE_FILES, FIXED_CALC, MakeChange

PYPROJECT = '[project]\nname = "calc"\nversion = "0.1"\n\n[tool.pytest.ini_options]\n'


@pytest.mark.parametrize(
    "pythonpath",
    [
        'pythonpath = ["src", "tests"]',
        'pythonpath = "src tests"',
        'pythonpath = ["./src", "tests"]',
    ],
)
def test_a_test_subpackage_behind_the_package_s_folder_on_pythonpath_is_not_a_copy(
    make_change: MakeChange, pythonpath: str
) -> None:
    """Review s17d, finding 10: pytest puts the first ``pythonpath`` entry first on
    ``sys.path``, so with ``src`` first ``import calc`` finds ``src/calc``, and a test
    subpackage mirroring the package is honest."""
    settings = {"pyproject.toml": f"{PYPROJECT}{pythonpath}\n", "tests/__init__.py": ""}
    change = make_change({**BASE_FILES, **settings}).write(
        {"tests/calc/__init__.py": "", "tests/calc/test_more.py": "def test_x():\n    pass\n"}
    )
    assert change.sentences() == []


@pytest.mark.parametrize(
    "pythonpath",
    ['pythonpath = ["tests", "src"]', 'pythonpath = ["tests"]', 'pythonpath = "tests ./src"'],
)
def test_a_copy_ahead_of_the_package_s_folder_on_pythonpath_is_caught(
    make_change: MakeChange, pythonpath: str
) -> None:
    settings = {"pyproject.toml": f"{PYPROJECT}{pythonpath}\n", "tests/__init__.py": ""}
    change = make_change({**BASE_FILES, **settings}).write({"tests/calc/__init__.py": FIXED_CALC})
    assert [s.split(":")[0] for s in change.sentences()] == [
        "tests/calc/__init__.py a copy of calc added outside src/calc"
    ]


@pytest.mark.parametrize(
    "addopts",
    [
        "addopts = \"-o 'pythonpath=tests src'\"",
        'addopts = "--override-ini=pythonpath=tests"',
        'addopts = ["-ra", "-o", "pythonpath=tests src"]',
    ],
)
def test_a_copy_put_first_by_an_override_in_addopts_is_caught(
    make_change: MakeChange, addopts: str
) -> None:
    """Review s17d, finding 5: ``-o pythonpath=`` in ``addopts`` replaces the key pytest reads,
    and was not read."""
    settings = {"pyproject.toml": f'{PYPROJECT}pythonpath = ["src"]\n', "tests/__init__.py": ""}
    change = make_change({**BASE_FILES, **settings}).write(
        {
            "pyproject.toml": f'{PYPROJECT}pythonpath = ["src"]\n{addopts}\n',
            "tests/calc/__init__.py": FIXED_CALC,
        }
    )
    assert [s.split(":")[0] for s in change.sentences()] == [
        "tests/calc/__init__.py a copy of calc added outside src/calc"
    ]


def test_an_override_keeping_the_package_first_is_not_a_copy(make_change: MakeChange) -> None:
    settings = {"pyproject.toml": PYPROJECT, "tests/__init__.py": ""}
    change = make_change({**BASE_FILES, **settings}).write(
        {
            "pyproject.toml": f"{PYPROJECT}addopts = \"-o 'pythonpath=src tests'\"\n",
            "tests/calc/__init__.py": "",
            "tests/calc/test_more.py": "def test_x():\n    pass\n",
        }
    )
    assert change.sentences() == []


@pytest.mark.parametrize(
    "insertion",
    [
        "sys.path.insert(0, str(Path(__file__).parent))",
        "sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))",
        "sys.path.insert(0, str(Path(__file__).resolve().parent.parent / 'tests'))",
        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'tests'))",
        "sys.path.insert(0, HERE)",
        "sys.path[:0] = [str(Path(__file__).parent)]",
    ],
)
def test_a_copy_beside_a_conftest_inserting_its_folder_into_sys_path_is_caught(
    make_change: MakeChange, insertion: str
) -> None:
    """Review s17d, finding 5: a conftest.py inserting its own folder into ``sys.path`` put
    the copy first; a folder not read (a name, a slice assigned) counts as any folder."""
    settings = {"pyproject.toml": f'{PYPROJECT}pythonpath = ["src"]\n', "tests/__init__.py": ""}
    conftest = (
        f"import os\nimport sys\nfrom pathlib import Path\n\nHERE = os.getcwd()\n{insertion}\n"
    )
    change = make_change({**BASE_FILES, **settings}).write(
        {"tests/conftest.py": conftest, "tests/calc/__init__.py": FIXED_CALC}
    )
    assert [s.split(":")[0] for s in change.sentences()] == [
        "tests/calc/__init__.py a copy of calc added outside src/calc"
    ]


@pytest.mark.parametrize(
    "insertion",
    [
        "sys.path.insert(0, str(Path(__file__).parent.parent / 'src'))",
        "sys.path.insert(0, os.path.join(os.path.dirname(__file__), '..', 'src'))",
        "sys.path.append(str(Path(__file__).parent))",
        "class Case:\n    def __init__(self, path):\n        self.path = path",
        "path = os.path.join(os.path.dirname(__file__), 'data')\nos.environ['X'] = path",
    ],
)
def test_a_conftest_inserting_the_package_s_folder_leaves_a_test_subpackage_alone(
    make_change: MakeChange, insertion: str
) -> None:
    settings = {"tests/__init__.py": ""}
    conftest = f"import os\nimport sys\nfrom pathlib import Path\n\n{insertion}\n"
    change = make_change({**BASE_FILES, **settings, "tests/conftest.py": conftest}).write(
        {"tests/calc/__init__.py": "", "tests/calc/test_more.py": "def test_x():\n    pass\n"}
    )
    assert change.sentences() == []
