"""The attribute a parameter's docstring says its None stands for, as a lost guard's body."""

from __future__ import annotations

import ast

from phasegate.autodebug.patterns.documented_attributes import documented_attribute_bodies

REGISTER = '''
def add_completion_class(cls, name=None, shell=None, title=None):
    """Register ``cls``.

    :param cls: The completion class that will handle completion.
    :param name: Name to register the class under. Defaults to the
        class's ``name`` attribute.
    :param shell: The ``shell`` attribute of the class is used otherwise.
    :param title: Shown above the list; the ``title`` attribute of the class is read
        when it is shown.
    """
    return cls, name, shell, title
'''


def _bodies(subject: str) -> list[str]:
    function = ast.parse(REGISTER).body[0]
    assert isinstance(function, ast.FunctionDef)
    return [body for body, _score, _why in documented_attribute_bodies(function, subject)]


def test_the_attribute_an_entry_says_it_defaults_to_is_read_from_the_parameter_named() -> None:
    assert _bodies("name") == ["name = cls.name"]
    assert _bodies("shell") == ["shell = cls.shell"]


def test_an_attribute_named_where_no_default_is_spoken_of_gives_no_body() -> None:
    assert _bodies("title") == []
    assert _bodies("cls") == []


def test_an_owner_named_as_a_parameter_is_read_from_that_parameter() -> None:
    source = '''
def attach(handler, level=None):
    """Attach ``handler``.

    :param level: Defaults to the ``level`` attribute of handler.
    """
    return handler, level
'''
    function = ast.parse(source).body[0]
    assert isinstance(function, ast.FunctionDef)
    bodies = [body for body, _score, _why in documented_attribute_bodies(function, "level")]
    assert bodies == ["level = handler.level"]
