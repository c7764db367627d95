"""A lost ``if x is None:`` guard's body read from what the docstring says ``x`` defaults to."""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

from phasegate.autodebug.patterns.documented_defaults import documented_defaults_in
from tests.autodebug_support import diagnose, restores

SERIALIZE = '''\
import json


def to_json(obj, dumps=None, **kwargs):
    """Serialize with :func:`json.dumps`.

    :param obj: What to serialize.
    :param dumps: The ``dumps`` function to use. Defaults to
        ``env.policies["json.dumps_function"]``, which defaults to
        :func:`json.dumps`.
    """
    if dumps is None:
        dumps = json.dumps
    return dumps(obj, **kwargs).replace("<", "\\\\u003c")
'''


@pytest.mark.needs_columns
def test_a_parameter_is_given_the_function_its_docstring_says_it_defaults_to(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    faulty = SERIALIZE.replace("    if dumps is None:\n        dumps = json.dumps\n", "")
    diagnosis, candidates, _ = diagnose(
        tmp_path,
        {"dd_serialize.py": faulty},
        "import dd_serialize; dd_serialize.to_json([1])",
        monkeypatch,
    )
    assert (diagnosis.error_class, diagnosis.facts["expr"]) == ("none", "dumps")
    assert restores(candidates[0], SERIALIZE)
    assert "what its docstring says it defaults to" in candidates[0].description


def _bodies(text: str, name: str, subject: str) -> list[str]:
    tree = ast.parse(text)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return [body for body, _score, _why in documented_defaults_in(tree, function, subject)]


WRAP = '''\
def do_wordwrap(environment: "Environment", s: str, wrapstring: str | None = None) -> str:
    """Wrap a string.

    :param s: Original text to wrap.
    :param wrapstring: String to join each wrapped line. Defaults to
        :attr:`Environment.newline_sequence`.

    .. versionadded:: 2.7
        Added the ``wrapstring`` parameter, see :attr:`Other.thing`.
    """
    return wrapstring.join(s.split())


def google(path, encoding=None):
    """Read a file.

    Args:
        path (str): The file.
        encoding (str, optional): Its encoding. Defaults to ``"utf-8"``.
            Never ``None``.
        errors: How to treat bad bytes, ``"strict"``.
    """
    return open(path, encoding=encoding).read()


def numpy_style(values, weights=None):
    """Average.

    Parameters
    ----------
    values : list
        The values.
    weights : list, optional
        Their weights, ``unknown_name`` each, or ``[1] * len(values)``.
    """
    return sum(values) / len(weights)
'''


def test_a_class_attribute_in_the_docstring_reads_the_parameter_annotated_with_the_class() -> None:
    # The entry ends where its indentation does: `Other.thing`, further down, is not read.
    assert _bodies(WRAP, "do_wordwrap", "wrapstring") == [
        "wrapstring = environment.newline_sequence"
    ]


def test_google_and_numpy_entries_are_read_and_what_is_not_bound_or_none_is_left_out() -> None:
    assert _bodies(WRAP, "google", "encoding") == ["encoding = 'utf-8'"]
    assert _bodies(WRAP, "numpy_style", "weights") == ["weights = [1] * len(values)"]
    assert _bodies(WRAP, "google", "path") == []  # an entry naming no code gives nothing
    assert _bodies(WRAP, "google", "errors") == []  # not a parameter of the function


PROSE = '''\
def pick(a, b, c, target=None):
    """Pick one.

    :param target: default ``a if b else c``, or ``[x for x in a]``, or ``a == b``.
    """
    return target
'''


def test_prose_that_parses_as_a_choice_comprehension_or_comparison_is_no_body() -> None:
    assert _bodies(PROSE, "pick", "target") == []


NAMED_CALLS = '''\
import shutil
import time


def clean(folder, then=None, stamp=None, size=None):
    """Clean a folder.

    :param then: what to do after, e.g. ``shutil.rmtree(folder)`` or ``print(folder)``.
    :param stamp: the time; defaults to ``time.time()``.
    :param size: how many, ``len(folder)`` when not given.
    """
    return then, stamp, size
'''


def test_a_call_the_entry_only_names_is_no_body_unless_a_builtin_that_builds_a_value() -> None:
    # validation would run it: ``shutil.rmtree(folder)`` in the prose is no default
    assert _bodies(NAMED_CALLS, "clean", "then") == []
    # what the entry says the default is may call anything
    assert _bodies(NAMED_CALLS, "clean", "stamp") == ["stamp = time.time()"]
    assert _bodies(NAMED_CALLS, "clean", "size") == ["size = len(folder)"]
