"""Hooks an unchanged conftest.py imports from a module of the project the change edits alone
(``integrity.star_imports``)."""

from __future__ import annotations

import pytest

from .conftest import BASE_FILES, MakeChange

#: An honest hookwrapper at the base: it adds a report section.
HOOK = '''\
"""Report helpers."""
import pytest


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item, call):
    outcome = yield
    report = outcome.get_result()
    report.sections.append(("calc", "checked"))
'''
REWRITES = '    report.outcome = "passed"\n    report.longrepr = None\n'
FIXTURE = "\n\n@pytest.fixture\ndef numbers():\n    return [1, 2, 3]\n"
NAMED = "from helpers import pytest_runtest_makereport  # noqa: F401\n"
STAR = "from helpers import *  # noqa: F403\n"

LAYOUTS = {
    "named": {"tests/helpers.py": HOOK, "tests/conftest.py": NAMED},
    "named-through-a-package": {
        "tests/helpers/__init__.py": "from .hooks import pytest_runtest_makereport\n",
        "tests/helpers/hooks.py": HOOK,
        "tests/conftest.py": NAMED,
    },
    "star-of-a-star": {
        "tests/helpers/__init__.py": "from .hooks import *  # noqa: F403\n",
        "tests/helpers/hooks.py": HOOK,
        "tests/conftest.py": STAR,
    },
    "star-of-a-named": {
        "tests/helpers/__init__.py": "from .hooks import pytest_runtest_makereport\n",
        "tests/helpers/hooks.py": HOOK,
        "tests/conftest.py": STAR,
    },
}


def _hook_file(layout: dict[str, str]) -> str:
    return next(path for path, text in layout.items() if text == HOOK)


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_hook_rewritten_in_the_module_a_conftest_imports_it_from_is_caught(
    make_change: MakeChange, layout: dict[str, str]
) -> None:
    """Review s17d, finding 4: only one level of star import was read; a hook imported by name
    was judged by the import statement alone."""
    change = make_change({**BASE_FILES, **layout}).write({_hook_file(layout): HOOK + REWRITES})
    assert [s.split(": ")[0] for s in change.sentences()] == [
        "tests/conftest.py:1 pytest_runtest_makereport changed in conftest.py"
    ]


@pytest.mark.parametrize("layout", LAYOUTS.values(), ids=LAYOUTS.keys())
def test_a_fixture_added_beside_an_imported_hook_is_not_a_trick(
    make_change: MakeChange, layout: dict[str, str]
) -> None:
    change = make_change({**BASE_FILES, **layout}).write({_hook_file(layout): HOOK + FIXTURE})
    assert change.sentences() == []
