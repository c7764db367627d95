"""The context index over a project's definitions: TF-IDF, and the keyword fallback."""

from __future__ import annotations

import sys

import pytest

from phasegate.autodebug.context_index import (
    KeywordIndex,
    TfidfIndex,
    build_index,
    extract_definitions,
    split_identifier,
)
from phasegate.errors import MissingDependencyError

SOURCE = '''
"""Helpers."""
import os

MAX_ITEMS = 3


def parse_config(path, strict=False):
    """Read the configuration file."""


def load_items(connection):
    """Fetch every item from the store."""


class ItemStore:
    """Keeps items in memory."""


def slugify(title):
    """Turn a title into a URL slug."""
'''


def definitions():  # type: ignore[no-untyped-def]
    return extract_definitions(SOURCE, module="app.util", path="app/util.py")


def test_definitions_are_the_top_level_names_imports_excluded() -> None:
    found = {(d.name, d.kind, d.line) for d in definitions()}
    assert found == {
        ("MAX_ITEMS", "variable", 5),
        ("parse_config", "function", 8),
        ("load_items", "function", 12),
        ("ItemStore", "class", 16),
        ("slugify", "function", 20),
    }
    config = next(d for d in definitions() if d.name == "parse_config")
    assert config.params == ("path", "strict")
    assert config.doc == "Read the configuration file."
    assert config.qualified == "app.util.parse_config"


def test_identifiers_split_into_words() -> None:
    assert split_identifier("parse_HTTPHeader2") == ["parse", "http", "header", "2"]
    assert split_identifier("ItemStore") == ["item", "store"]


@pytest.mark.parametrize("index_type", [TfidfIndex, KeywordIndex])
def test_both_indexes_find_exact_names_and_words(index_type: type) -> None:
    index = index_type(definitions())
    assert [d.qualified for d in index.exact("slugify")] == ["app.util.slugify"]
    assert index.exact("nothing") == []
    (best, _score), *_ = index.query("parse_confg")
    assert best.name == "parse_config"
    (best, _score), *_ = index.query("item_store")
    assert best.name == "ItemStore"


def test_only_tfidf_finds_a_name_misspelt_inside_a_word() -> None:
    assert TfidfIndex(definitions()).query("slugfy")[0][0].name == "slugify"
    assert KeywordIndex(definitions()).query("slugfy") == []


def test_context_words_rank_definitions_of_the_same_name() -> None:
    source = "def load(path):\n    'Read a file from disk.'\n"
    other = "def load(connection):\n    'Fetch rows from the database.'\n"
    found = extract_definitions(source, module="app.files", path="app/files.py")
    found += extract_definitions(other, module="app.db", path="app/db.py")
    for index in (TfidfIndex(found), KeywordIndex(found)):
        (best, _), *_ = index.query("load", context="rows = load(connection); database")
        assert best.module == "app.db", index.backend


def test_auto_falls_back_to_keywords_without_scikit_learn(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setitem(sys.modules, "sklearn", None)  # import sklearn now raises ImportError
    assert build_index(definitions(), backend="auto").backend == "keyword"
    with pytest.raises(MissingDependencyError) as caught:
        build_index(definitions(), backend="tfidf")
    assert "pip install 'pytest-phasegate[autodebug]'" in str(caught.value)
    assert "scikit-learn" in str(caught.value)


def test_an_empty_project_answers_nothing() -> None:
    assert TfidfIndex([]).query("x") == []
    assert KeywordIndex([]).query("x") == []
