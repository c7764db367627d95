"""The mutant generator: each operator, the lines asked for, the text kept, the seeded draw."""

from __future__ import annotations

import ast

import pytest

from phasegate.gates.mutants import OPERATORS, Mutant, choose_mutants, generate_mutants

SOURCE = '''\
"""A module."""

LIMIT = 10


def clamp(value: int, low: int, high: int) -> int:
    """Keep value between low and high."""
    if value < low:  # below the range is low
        return low
    return high if value > high else value


def accept(items: list[int], seen: set[int], strict: bool) -> int:
    total = 0
    for item in items:
        total += item
        seen.add(item)
    if item in seen and strict:
        raise ValueError("dup")
    while total >= LIMIT:
        total -= LIMIT
    flag = item is not None
    return total == 0
'''


def mutants_of(line: int, operator: str) -> list[tuple[str, str]]:
    found = generate_mutants("m.py", SOURCE, [line])
    return [(m.before.strip(), m.after.strip()) for m in found if m.operator == operator]


@pytest.mark.parametrize(
    ("line", "operator", "after"),
    [
        (8, "negate-condition", "if not (value < low):  # below the range is low"),
        (10, "negate-condition", "return high if not (value > high) else value"),
        (20, "negate-condition", "while not (total >= LIMIT):"),
        (8, "flip-comparison", "if value >= low:  # below the range is low"),
        (18, "flip-comparison", "if item not in seen and strict:"),
        (22, "flip-comparison", "flag = item is None"),
        (23, "flip-comparison", "return total != 0"),
        (8, "comparison-boundary", "if value <= low:  # below the range is low"),
        (10, "comparison-boundary", "return high if value >= high else value"),
        (20, "comparison-boundary", "while total > LIMIT:"),
        (3, "constant-boundary", "LIMIT = 11"),
        (14, "constant-boundary", "total = 1"),
        (9, "replace-return", "return None"),
        (23, "replace-return", "return None"),
        (16, "remove-statement", "pass"),
        (17, "remove-statement", "pass"),
        (19, "remove-statement", "pass"),
        (18, "swap-boolean", "if item in seen or strict:"),
    ],
)
def test_each_operator_rewrites_only_its_node(line: int, operator: str, after: str) -> None:
    found = mutants_of(line, operator)
    assert after in [text for _before, text in found]


def test_every_operator_is_exercised_by_the_sample() -> None:
    operators = {m.operator for m in generate_mutants("m.py", SOURCE, None)}
    assert operators == set(OPERATORS)


def test_the_rest_of_the_file_is_kept_byte_for_byte() -> None:
    mutant = next(
        m for m in generate_mutants("m.py", SOURCE, [8]) if m.operator == "flip-comparison"
    )
    before, after = SOURCE.splitlines(), mutant.text.splitlines()
    assert [i for i, (a, b) in enumerate(zip(before, after, strict=True)) if a != b] == [7]
    assert mutant.diff == (
        "if value < low:  # below the range is low  ->  if value >= low:  # below the range is low"
    )


def test_only_the_lines_asked_for_are_mutated() -> None:
    assert {m.line for m in generate_mutants("m.py", SOURCE, [8, 23])} == {8, 23}
    assert generate_mutants("m.py", SOURCE, []) == []


def test_docstrings_and_none_returns_are_not_mutated() -> None:
    lines = {
        m.line for m in generate_mutants("m.py", SOURCE + "\ndef f():\n    return None\n", None)
    }
    assert 1 not in lines
    assert 7 not in lines
    assert 27 not in lines


def test_every_mutant_parses_and_differs_from_the_original() -> None:
    original = ast.dump(ast.parse(SOURCE))
    for mutant in generate_mutants("m.py", SOURCE, None):
        assert ast.dump(ast.parse(mutant.text)) != original, mutant


def test_an_operator_word_in_a_comment_is_never_taken_for_the_operator() -> None:
    source = "def f(a, b):\n    return (a  # or not\n            and b)\n"
    [swap] = [m for m in generate_mutants("f.py", source, None) if m.operator == "swap-boolean"]
    assert "# or not" in swap.text
    assert "or b)" in swap.text


def test_text_with_multibyte_characters_is_cut_at_the_right_place() -> None:
    source = 'def f(x):\n    return "é" if x < 1 else "ü"\n'
    flips = [m.after.strip() for m in generate_mutants("f.py", source, [2])]
    assert 'return "é" if x >= 1 else "ü"' in flips


def test_a_file_that_does_not_parse_has_no_mutants() -> None:
    assert generate_mutants("bad.py", "def f(:\n", None) == []


def mutant(line: int, operator: str = "remove-statement") -> Mutant:
    return Mutant("m.py", line, operator, "x", "pass", f"{line}{operator}")


def test_at_most_per_line_mutants_on_a_line() -> None:
    many = [mutant(1, op) for op in OPERATORS] + [mutant(2, op) for op in OPERATORS[:3]]
    chosen = choose_mutants(many, per_line=2, budget=100, seed=1)
    assert [m.line for m in chosen] == [1, 1, 2, 2]


def test_the_budget_caps_the_total() -> None:
    many = [mutant(line) for line in range(1, 41)]
    chosen = choose_mutants(many, per_line=1, budget=7, seed=3)
    assert len(chosen) == 7
    assert chosen == sorted(chosen, key=lambda m: m.line)


def test_the_same_seed_chooses_the_same_mutants_and_another_seed_others() -> None:
    many = [mutant(line, op) for line in range(1, 31) for op in OPERATORS[:3]]
    first = choose_mutants(many, per_line=2, budget=10, seed=5)
    assert choose_mutants(list(reversed(many)), per_line=2, budget=10, seed=5) == first
    assert any(
        choose_mutants(many, per_line=2, budget=10, seed=seed) != first for seed in range(6, 9)
    )
