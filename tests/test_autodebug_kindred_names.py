"""Bodies of a lost ``if x is None:`` guard named for the value: its kin among the parameters,
the module's constant, the default its instance keeps."""

from __future__ import annotations

import ast

from phasegate.autodebug.patterns.kindred_names import kindred_names_in

MODULE = """\
import pickle
from .settings import DEFAULT_PROTOCOL, HIGHEST_PROTOCOL

NULL_FILE = object()
PROTOCOL_NAMES = ("a", "b")


def resolve(retrieval_uri, base_uri=None, id=None, ref_id=None):
    return base_uri


def dump(obj, file=None, protocol=None):
    return obj
"""


def _bodies(name: str, subject: str) -> list[str]:
    tree = ast.parse(MODULE)
    function = next(n for n in ast.walk(tree) if isinstance(n, ast.FunctionDef) and n.name == name)
    return [body for body, _score, _why in kindred_names_in(tree, function, subject)]


def test_a_parameter_is_given_another_parameter_whose_name_ends_with_the_same_word() -> None:
    assert _bodies("resolve", "base_uri") == ["base_uri = retrieval_uri"]
    assert _bodies("resolve", "id") == []  # `id` is too short a word to say what kind


def test_a_parameter_is_given_the_module_constants_holding_its_words_the_default_first() -> None:
    assert _bodies("dump", "protocol") == [
        "protocol = DEFAULT_PROTOCOL",
        "protocol = HIGHEST_PROTOCOL",
    ]
    assert _bodies("dump", "file") == ["file = NULL_FILE"]
    assert _bodies("dump", "obj") == []
