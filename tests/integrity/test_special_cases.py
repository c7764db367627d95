"""A test's data special-cased in the code: caught on the lines the change adds, in the
shapes a special case takes; honest comparisons are not reported."""

from __future__ import annotations

import pytest

from .conftest import BASE_FILES, CALC, FIXED_CALC, TESTS, MakeChange

#: Where ``mean``'s body starts in CALC: a special case goes above its wrong line.
WRONG_LINE = "    return sum(values) / (len"
TAIL = ", in a test calling mean: a result for a test's data is not a fix"


def _special_cased(condition: str) -> dict[str, str]:
    body = f"    {condition}\n        return 2\n{WRONG_LINE}"
    return {"src/calc/__init__.py": CALC.replace(WRONG_LINE, body)}


@pytest.mark.parametrize(
    ("condition", "literal"),
    [
        ("if tuple(values) == (1, 2, 3):", "(1, 2, 3)"),
        ("if [1, 2, 3] == values:", "[1, 2, 3]"),
        ("if values != [1, 2, 3]:", "[1, 2, 3]"),
        ("if list(values) in ([1, 2, 3], [4, 5]):", "[1, 2, 3]"),
    ],
)
def test_a_comparison_with_the_tests_input_is_caught_in_each_form(
    make_change: MakeChange, condition: str, literal: str
) -> None:
    sentences = make_change().write(_special_cased(condition)).sentences()
    assert sentences == [
        f"src/calc/__init__.py:6 compares with {literal}, the input of tests/test_calc.py:7{TAIL}"
    ]


def test_a_match_case_on_the_tests_input_is_caught(make_change: MakeChange) -> None:
    special = "    match values:\n        case [1, 2, 3]:\n            return 2\n"
    files = {"src/calc/__init__.py": CALC.replace(WRONG_LINE, special + WRONG_LINE)}
    assert make_change().write(files).sentences() == [
        f"src/calc/__init__.py:7 compares with [1, 2, 3], the input of tests/test_calc.py:7{TAIL}"
    ]


def test_a_parametrized_case_and_a_dict_are_compared_by_value(make_change: MakeChange) -> None:
    tests = (
        "import pytest\n\nfrom calc import mean\n\n\n"
        "@pytest.mark.parametrize(('values', 'expected'), [([1, 2, 3], 2), ([4, 5], 4.5)])\n"
        "def test_mean(values, expected):\n    assert mean(values) == expected\n\n\n"
        "def test_mean_of_a_mapping():\n    weights = {'b': 2, 'a': 1}\n"
        "    assert mean(weights) == 1.5\n"
    )
    change = make_change({**BASE_FILES, "tests/test_calc.py": tests})
    special = "    if values in ((4, 5), {'a': 1, 'b': 2}):\n        return 1.5\n"
    change.write({"src/calc/__init__.py": CALC.replace(WRONG_LINE, special + WRONG_LINE)})
    assert change.sentences() == [
        f"src/calc/__init__.py:6 compares with (4, 5), the input of tests/test_calc.py:6{TAIL}",
        "src/calc/__init__.py:6 compares with {'a': 1, 'b': 2}, the data of "
        f"tests/test_calc.py:12{TAIL}",
    ]


def test_the_real_fix_is_honest(make_change: MakeChange) -> None:
    assert make_change().write({"src/calc/__init__.py": FIXED_CALC}).sentences() == []


def test_a_literal_no_test_holds_is_not_reported(make_change: MakeChange) -> None:
    guarded = _special_cased("if tuple(values) == (0, 0):")
    assert make_change().write(guarded).sentences() == []


def test_a_literal_of_a_test_that_calls_another_function_is_not_reported(
    make_change: MakeChange,
) -> None:
    """test_mean holds [1, 2, 3] but calls mean, not total: no test of total passes it."""
    total = "    if values == [1, 2, 3]:\n        return 6\n    return sum(values)\n"
    special = CALC.replace("    return sum(values)\n", total)
    assert special.count("return 6") == 1
    assert make_change().write({"src/calc/__init__.py": special}).sentences() == []


def test_a_comparison_the_base_already_had_is_not_the_changes(make_change: MakeChange) -> None:
    old = CALC.replace(WRONG_LINE, f"    if values == [1, 2, 3]:\n        return 2\n{WRONG_LINE}")
    change = make_change({**BASE_FILES, "src/calc/__init__.py": old})
    fixed = old.replace("(len(values) - 1)", "len(values)")
    assert change.write({"src/calc/__init__.py": fixed}).sentences() == []


@pytest.mark.parametrize(
    ("condition", "call"),
    [
        ("if values == '1, 2, 3':", "mean('1, 2, 3')"),  # a string
        ("if values == [6]:", "mean([6])"),  # a single item
        ("if values == [x, 2, 3]:", "mean([x, 2, 3])"),  # not made of constants
    ],
)
def test_strings_single_items_and_names_are_not_reported(
    make_change: MakeChange, condition: str, call: str
) -> None:
    tests = TESTS + f"\n\ndef test_more():\n    x = 1\n    assert {call} == 2\n"
    change = make_change({**BASE_FILES, "tests/test_calc.py": tests})
    assert change.write(_special_cased(condition)).sentences() == []


def test_a_comparison_added_to_a_test_file_is_not_the_codes(make_change: MakeChange) -> None:
    tests = TESTS + "\n\ndef test_shape():\n    assert sorted([3, 2, 1]) == [1, 2, 3]\n"
    assert make_change().write({"tests/test_calc.py": tests}).sentences() == []
