"""The transposition-aware distance behind auto-debug's "did you mean"."""

from __future__ import annotations

from hypothesis import given
from hypothesis import strategies as st

from phasegate.autodebug.distance import closest, max_distance, osa_distance

identifiers = st.text(alphabet="abcdefghijklmnopqrstuvwxyz_", min_size=0, max_size=10)


def test_an_adjacent_swap_is_one_edit() -> None:
    assert osa_distance("lenght", "length") == 1
    assert osa_distance("tiem", "item") == 1


def test_plain_edits_cost_one_each() -> None:
    assert osa_distance("total", "totl") == 1  # deletion
    assert osa_distance("total", "totals") == 1  # insertion
    assert osa_distance("total", "tatal") == 1  # substitution
    assert osa_distance("kitten", "sitting") == 3


def test_a_change_of_case_costs_half() -> None:
    assert osa_distance("Path", "path") == 0.5


def test_optimal_string_alignment_does_not_edit_a_substring_twice() -> None:
    # Unrestricted Damerau-Levenshtein gives 2 here; OSA may not swap, then insert between.
    assert osa_distance("ca", "abc") == 3


@given(identifiers, identifiers)
def test_distance_is_symmetric_and_zero_only_for_equal_names(a: str, b: str) -> None:
    assert osa_distance(a, b) == osa_distance(b, a)
    assert (osa_distance(a, b) == 0) == (a == b)
    assert osa_distance(a, b) <= max(len(a), len(b))


def test_closest_ranks_by_distance_and_leaves_the_name_itself_out() -> None:
    names = ["length", "lengths", "lenght", "width", "strength"]
    matches = closest("lenght", names)
    assert [m.name for m in matches] == ["length", "lengths"]
    assert matches[0].distance == 1


def test_the_cut_off_grows_with_the_name() -> None:
    assert max_distance("x") == 1
    assert max_distance("item") == 1
    assert max_distance("values") == 2
    assert max_distance("configuration") == 4
    assert closest("item", ["tiem", "time"]) == closest("item", ["tiem"])
