"""None where a value was needed: an attribute of None, None called, subscripted, iterated or
used as an operand.

Which expression was None is read from the syntax at the failing span and confirmed with the
frame's live values. Then its origin is traced through the code, because that is where the
repair goes:

* the result of a project function that ends without ``return`` (a decorator that forgets
  ``return wrapper`` is one): return the value it built;
* an in-place method's result (``items = items.sort()``): call it as a statement, or use
  ``sorted()``;
* a variable or attribute initialised to ``None`` and used as a list, dict, set, string or
  number: initialise it to an empty one;
* a parameter whose default is None: give it its empty value when it is None;
* ``dict.get(key)``: index the dict, or give ``get`` a default.

The origin is traced in :mod:`.none_origin`; the candidates are built in :mod:`.none_repairs`,
and guards the code lost are synthesized in :mod:`.none_guards`.
"""

from __future__ import annotations

import ast
import re
from dataclasses import dataclass
from typing import TYPE_CHECKING, TypedDict, cast

from phasegate.autodebug.diagnosis import Candidate, Diagnosis
from phasegate.autodebug.live import holds_none
from phasegate.autodebug.patterns.assertion import none_parameters
from phasegate.autodebug.patterns.base import diagnose, short
from phasegate.autodebug.patterns.functions import is_none, parents_of
from phasegate.autodebug.patterns.lost_guards import caller_guards
from phasegate.autodebug.patterns.none_assertions import none_asserted
from phasegate.autodebug.patterns.none_guards import guard_synthesis
from phasegate.autodebug.patterns.none_handed import handed_as
from phasegate.autodebug.patterns.none_origin import always_none, origin
from phasegate.autodebug.patterns.none_refusals import none_refused
from phasegate.autodebug.patterns.none_repairs import (
    empty_values,
    get_candidates,
    guard_candidates,
    inplace_candidates,
    literal_candidates,
    return_candidates,
    typed,
)
from phasegate.autodebug.patterns.none_spreads import none_spread
from phasegate.autodebug.patterns.typeerrors import misfit_call

if TYPE_CHECKING:
    from phasegate.autodebug.live import LiveFailure, LiveFrame
    from phasegate.autodebug.patterns.none_origin import NoneOrigin
    from phasegate.autodebug.project import Project

__all__ = ["NoneFacts", "NonePattern", "none_facts"]


class NoneFacts(TypedDict, total=False):
    """What was None (``expr``), how it was used (``usage``: an attribute, an operator, the
    function it was passed to) and where it came from; empty for ``none-other``."""

    expr: str
    usage: str | None
    source: NoneOrigin
    none_parameters: list[dict[str, str | int]]
    #: The caller's argument a None parameter was handed in as (:mod:`.none_handed`).
    handed_as: str | None


def none_facts(diagnosis: Diagnosis) -> NoneFacts:
    """The facts of a diagnosis of the none pattern."""
    return cast("NoneFacts", diagnosis.facts)


_MISSING = object()

_USAGE_PHRASES = {
    "attribute-of-none": "its attribute `{usage}` is read",
    "none-called": "it is called",
    "none-subscripted": "it is subscripted",
    "none-index": "it is an index",
    "none-iterated": "it is iterated over",
    "none-operand": "it is an operand of `{usage}`",
    "none-argument": "it is passed to `{usage}`",
    "none-compared": "an assertion compares it",
    "none-refused": "the code raises on it",
    "none-asserted": "an assertion of the code needs a value",
}


class NonePattern:
    """A value that is None where the code needs something else."""

    name = "none"
    error_class = "none"

    def classify(self, failure: LiveFailure) -> Diagnosis | None:
        exc = failure.exc
        frame = failure.project_frame
        if isinstance(exc, AssertionError):
            return self._compared(failure) or self._asserted(failure)
        if not _may_be_none(exc) or misfit_call(failure):
            return None
        found = _none_expression(failure, frame) if frame is not None else None
        if found is None or frame is None:
            return self._unplaced(failure)
        return self._used(failure, frame, found, found[1])

    def _used(
        self, failure: LiveFailure, frame: LiveFrame, found: NoneUse, at: ast.AST
    ) -> Diagnosis:
        """The diagnosis of a None used as ``found`` says, placed at ``at``."""
        kind, expr, usage = found
        facts: NoneFacts = {
            "expr": ast.unparse(expr),
            "usage": usage,
            "source": origin(failure, frame, expr),
            "none_parameters": none_parameters(failure),
            "handed_as": handed_as(failure, frame, ast.unparse(expr)),
        }
        return diagnose(self, failure, frame, kind=kind, facts=facts, node=at)

    def _asserted(self, failure: LiveFailure) -> Diagnosis | None:
        """An ``assert`` of the code under test failing on a None (:mod:`.none_assertions`)."""
        found = none_asserted(failure)
        if found is None:
            return None
        frame, asserted, value = found
        return self._used(failure, frame, ("none-asserted", value, None), asserted.test)

    def _unplaced(self, failure: LiveFailure) -> Diagnosis | None:
        """A None the failing span does not show: ``none-other``, when the exception says
        the value was None."""
        exc = failure.exc
        if isinstance(exc, AttributeError) or "'NoneType'" in str(exc):
            return diagnose(self, failure, failure.project_frame, kind="none-other", facts={})
        return None

    def _compared(self, failure: LiveFailure) -> Diagnosis | None:
        """``assert f(x) == value`` (or ``self.assertEqual(f(x), value)``) where ``f`` can only
        return None: a None, not an assertion.

        Only when the code proves it: the project function has no ``return`` with a value
        (or returns a name it bound to an in-place method's result), and the assertion does
        not compare with None on purpose.
        """
        found = _compared_sides(failure)
        if found is None:
            return None
        frame, sides = found
        if any(is_none(side) for side in sides):
            return None
        for side in sides:
            if isinstance(side, ast.Call):
                source = always_none(failure, frame, side)
                if source:
                    facts: NoneFacts = {"expr": ast.unparse(side), "usage": "==", "source": source}
                    return diagnose(
                        self, failure, frame, kind="none-compared", facts=facts, node=side
                    )
        return None

    def propose(self, diagnosis: Diagnosis, project: Project) -> list[Candidate]:
        facts = none_facts(diagnosis)
        source = facts.get("source") or {}
        empties = empty_values(diagnosis.kind, facts.get("usage"))
        candidates = _origin_repairs(diagnosis, project, source, empties)
        if diagnosis.kind in ("none-compared", "none-other"):
            return candidates
        guards = guard_synthesis(diagnosis, project, empties)
        if candidates and source.get("how") != "parameter":
            # The None's origin is a fault of its own (a lost `return`...): a guard where it is
            # used would hide it, so it comes after the repairs of the origin.
            for guard in guards:
                guard.score *= 0.8
        return [*candidates, *guards, *caller_guards(diagnosis, project)]

    def explain(self, diagnosis: Diagnosis, candidate: Candidate | None) -> str:
        facts = none_facts(diagnosis)
        usage = _USAGE_PHRASES.get(diagnosis.kind, "it is used").format(usage=facts.get("usage"))
        head = (
            f"{short(diagnosis.exc_type)}: `{facts.get('expr', 'a value')}` is None where {usage}"
        )
        source = facts.get("source") or {}
        origin = {
            "call": f"it is what `{source.get('callee')}` returns, which can end without a value",
            "decorator": f"the decorator `{source.get('callee')}` returns nothing, so the "
            "decorated name is None",
            "inplace": f"`{source.get('method')}()` works in place and returns None",
            "literal": f"it is set to None at {source.get('path')}:{source.get('line')}",
            "attribute": f"it is set to None at {source.get('path')}:{source.get('line')}",
            "parameter": f"it is the parameter `{source.get('name')}`, whose default is None",
            "dict-get": "`dict.get()` returns None for a missing key",
        }.get(str(source.get("how")), "")
        text = f"{head}; {origin}" if origin else head
        if candidate is None:
            return f"{text}; no repair found"
        return f"{text}; {candidate.description}"


def _may_be_none(exc: BaseException) -> bool:
    """Whether ``exc`` can be a None used as a value: an attribute looked up on None (the
    exception says on what), or a ``TypeError``."""
    if isinstance(exc, AttributeError):
        return none_attribute(exc) is not None
    return isinstance(exc, TypeError)


_NONE_ATTRIBUTE = re.compile(r"'NoneType' object has no attribute '(\w+)'")


def none_attribute(exc: AttributeError) -> str | None:
    """The attribute looked up or set on None, or None when ``exc`` is about another object.

    ``exc.name`` where ``exc.obj`` is None; else CPython's own wording, for what the exception
    does not carry: setting an attribute on None fills in neither, and a lookup through a
    property that raised fills in the property's (pytest's ``Module.obj``, around an error in
    the import of a test module, is one)."""
    name = getattr(exc, "name", None)
    if getattr(exc, "obj", _MISSING) is None and isinstance(name, str):
        return name
    said = _NONE_ATTRIBUTE.fullmatch(str(exc))
    return said[1] if said else None


def _origin_repairs(
    diagnosis: Diagnosis, project: Project, source: NoneOrigin, empties: list[str]
) -> list[Candidate]:
    """Repairs where the None comes from, by how it came (see :mod:`.none_origin`)."""
    how = source.get("how")
    if how in ("call", "decorator"):
        return return_candidates(diagnosis, project, source)
    if how == "inplace":
        return inplace_candidates(diagnosis, project, source)
    if how in ("literal", "attribute"):
        return literal_candidates(project, source, empties)
    if how == "parameter":
        return guard_candidates(diagnosis, project, source, empties)
    if how == "dict-get":
        return get_candidates(project, source, typed(empties, source.get("value_type")))
    return []


# -- which expression was None ---------------------------------------------------------------

_ORDERINGS = {ast.Lt: "<", ast.LtE: "<=", ast.Gt: ">", ast.GtE: ">="}

#: unittest's assertions that compare two values for equality, as ``assert a == b`` does.
_EQUALITY_ASSERTIONS = frozenset(
    {
        "assertEqual",
        "assertEquals",
        "assertNotEqual",
        "assertListEqual",
        "assertTupleEqual",
        "assertDictEqual",
        "assertSetEqual",
        "assertSequenceEqual",
        "assertCountEqual",
        "assertMultiLineEqual",
        "assertAlmostEqual",
    }
)


def _compared_sides(failure: LiveFailure) -> tuple[LiveFrame, list[ast.expr]] | None:
    """The innermost project frame's equality assertion and the values it compares.

    ``assert a == b`` raises in the test's own frame; ``self.assertEqual(a, b)`` raises inside
    unittest, so the frames outside the project are passed over first.
    """
    frame = failure.project_frame
    if frame is None:
        return None
    node = failure.node_at(frame, (ast.Assert,))
    if isinstance(node, ast.Assert):
        sides = _equality_sides(node.test)
    elif frame is failure.innermost:
        return None  # an AssertionError the project raised itself
    else:
        sides = _unittest_equality_sides(failure.node_at(frame, (ast.Call,)))
    return (frame, sides) if sides is not None else None


def _equality_sides(test: ast.expr) -> list[ast.expr] | None:
    """The values ``assert a == b`` (or ``!=``, or a chain of them) compares."""
    if isinstance(test, ast.Compare) and all(
        isinstance(op, (ast.Eq, ast.NotEq)) for op in test.ops
    ):
        return [test.left, *test.comparators]
    return None


def _unittest_equality_sides(call: ast.AST | None) -> list[ast.expr] | None:
    """The first two arguments of ``self.assertEqual(a, b)`` and its kin."""
    if (
        isinstance(call, ast.Call)
        and isinstance(call.func, ast.Attribute)
        and call.func.attr in _EQUALITY_ASSERTIONS
        and len(call.args) >= 2
    ):
        return list(call.args[:2])
    return None


#: What the expression that was None is, how it was used, and the use's words (an attribute,
#: an operator, the function it was passed to).
NoneUse = tuple[str, ast.expr, str | None]

_OPERATORS = {ast.Add: "+", ast.Sub: "-", ast.Mult: "*", ast.Div: "/"}


@dataclass(frozen=True)
class _FailingSpan:
    """The failure, the frame it is read in, and whether the message says ``'NoneType'``."""

    failure: LiveFailure
    frame: LiveFrame
    says_none: bool

    def is_none(self, node: ast.AST) -> bool | None:
        return holds_none(self.failure, self.frame, node)


def _none_expression(failure: LiveFailure, frame: LiveFrame) -> NoneUse | None:
    """The expression at the failing span that was None, and how it was used."""
    tree = failure.tree(frame.filename)
    node = failure.node_at(frame, (ast.expr,))
    if tree is None:
        return None
    span = _FailingSpan(failure, frame, _says_none(failure.exc))
    if not isinstance(node, ast.expr):
        return _loop_over_none(span) or none_refused(failure, frame)
    if isinstance(failure.exc, AttributeError):
        return _attribute_of_none(failure.exc, node)
    readers = (
        _none_spread,
        _none_joined,
        _none_called,
        _none_subscripted,
        _none_index,
        _none_operand,
        _none_container,
    )
    for reader in (*readers, _none_ordered, _none_comprehended):
        found = reader(span, node)
        if found is not None:
            return found
    parent = parents_of(tree).get(id(node))
    return _none_iterable(span, parent, node) or _none_unpacked_anyhow(span, parent, node)


def _says_none(exc: BaseException) -> bool:
    """Whether the exception says a value was None (``'NoneType' object is not iterable``,
    ``cannot unpack non-iterable NoneType object``)."""
    text = str(exc)
    return "'NoneType'" in text or "non-iterable NoneType" in text


def _attribute_of_none(exc: AttributeError, node: ast.expr) -> NoneUse | None:
    """``x.name`` at the failing span, where the exception says ``name`` was looked up or set
    on None: ``x`` was None."""
    name = none_attribute(exc)
    if isinstance(node, ast.Attribute) and node.attr == name:
        return "attribute-of-none", node.value, name
    return None


def _loop_over_none(span: _FailingSpan) -> NoneUse | None:
    """Python 3.11 places a failing loop's iteration at the whole ``for`` statement."""
    loop = span.failure.node_at(span.frame, (ast.For, ast.AsyncFor))
    if isinstance(loop, (ast.For, ast.AsyncFor)) and (span.is_none(loop.iter) or span.says_none):
        return "none-iterated", loop.iter, None
    return None


def _none_called(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """None called, or passed as an argument."""
    if not isinstance(node, ast.Call):
        return None
    if span.is_none(node.func) or (span.says_none and "not callable" in str(span.failure.exc)):
        return "none-called", node.func, None
    argument = next((arg for arg in node.args if span.is_none(arg)), None)
    if argument is None:
        return None
    return "none-argument", argument, ast.unparse(node.func)


def _none_spread(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """``f(**None)``, ``f(*None)`` and displays alike (:mod:`.none_spreads`)."""
    return none_spread(span.failure, span.frame, node)


#: ``str.join``'s message for a None among the strings it joins.
_JOINED_NONE = re.compile(r"^sequence item (\d+): expected str instance, NoneType found")


def _none_joined(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """``"".join((a, b))`` with ``b`` None: the item the message counts, of the literal."""
    found = _JOINED_NONE.match(str(span.failure.exc))
    items = _joined_items(node)
    index = int(found.group(1)) if found is not None else len(items)
    return ("none-argument", items[index], "str.join") if index < len(items) else None


def _joined_items(node: ast.expr) -> list[ast.expr]:
    """The items of a tuple or list literal joined by ``<s>.join(...)``; none when one is
    starred (the message counts the items, not the literal's elements)."""
    args = node.args if isinstance(node, ast.Call) else []
    given = args[0] if len(args) == 1 else None
    items = given.elts if isinstance(given, (ast.Tuple, ast.List)) else []
    joins = getattr(getattr(node, "func", None), "attr", None) == "join"
    return items if joins and not any(isinstance(i, ast.Starred) for i in items) else []


def _none_subscripted(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    if isinstance(node, ast.Subscript) and (span.is_none(node.value) or span.says_none):
        return "none-subscripted", node.value, None
    return None


#: CPython's message for a None as the index of a list, a tuple or a string.
_NONE_INDEX = "indices must be integers or slices, not NoneType"


def _none_index(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """``items[i]`` with ``i`` None: the index, where the sequence was not."""
    if not isinstance(node, ast.Subscript):
        return None
    if span.is_none(node.slice) or _NONE_INDEX in str(span.failure.exc):
        return "none-index", node.slice, None
    return None


def _none_operand(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """None as an operand of an arithmetic operator (``+=`` too)."""
    if isinstance(node, ast.BinOp):
        usage, pairs = _OPERATORS.get(type(node.op), "an operator"), [node.left, node.right]
    elif isinstance(node, ast.AugAssign):
        usage = _OPERATORS.get(type(node.op), "an operator") + "="
        pairs = [node.target, node.value]
    else:
        return None
    operand = _the_none_operand(span, pairs)
    return ("none-operand", operand, usage) if operand is not None else None


def _the_none_operand(span: _FailingSpan, operands: list[ast.expr]) -> ast.expr | None:
    """The operand read back as None; else, when CPython says an operand is None, the only
    one not known to be a value (a call's result cannot be read back)."""
    known = [(operand, span.is_none(operand)) for operand in operands]
    operand = next((operand for operand, none in known if none), None)
    if operand is not None:
        return operand
    unknown = [operand for operand, none in known if none is None]
    return unknown[0] if span.says_none and len(unknown) == 1 else None


def _none_container(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """``x in None``: None iterated over by a membership test."""
    if not isinstance(node, ast.Compare) or not isinstance(node.ops[-1], (ast.In, ast.NotIn)):
        return None
    container = node.comparators[-1]
    none = span.is_none(container)
    if none or (none is None and span.says_none):
        return "none-iterated", container, None
    return None


def _none_ordered(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """``time < link.expires`` with ``time`` None: an ordering has no meaning for None."""
    if not isinstance(node, ast.Compare) or not span.says_none:
        return None
    operand = next((o for o in [node.left, *node.comparators] if span.is_none(o)), None)
    if operand is None:
        return None
    return "none-operand", operand, _ORDERINGS.get(type(node.ops[0]), "<")


def _none_iterable(span: _FailingSpan, parent: ast.AST | None, node: ast.expr) -> NoneUse | None:
    """None as what a ``for`` loop or a comprehension iterates over."""
    if (
        isinstance(parent, (ast.For, ast.comprehension))
        and parent.iter is node
        and (span.is_none(node) or span.says_none)
    ):
        return "none-iterated", node, None
    return None


def _none_unpacked(span: _FailingSpan, parent: ast.AST | None, node: ast.expr) -> NoneUse | None:
    """``a, b = value`` with ``value`` None: Python places the failure at the names unpacked
    to, and unpacking iterates over the value."""
    if (
        isinstance(parent, ast.Assign)
        and isinstance(node, (ast.Tuple, ast.List))
        and node in parent.targets
        and (span.is_none(parent.value) or span.says_none)
    ):
        return "none-iterated", parent.value, None
    return None


def _none_unpacked_anyhow(
    span: _FailingSpan, parent: ast.AST | None, node: ast.expr
) -> NoneUse | None:
    return _none_unpacked(span, parent, node) or _none_unpacked_value(span, parent, node)


def _none_unpacked_value(
    span: _FailingSpan, parent: ast.AST | None, node: ast.expr
) -> NoneUse | None:
    """``a, b = f()`` with ``f()`` None, where Python places the failure at the value (3.11+),
    and says only ``cannot unpack non-iterable NoneType object``."""
    if _is_unpacked_value(parent, node) and span.says_none:
        return "none-iterated", node, None
    return None


def _is_unpacked_value(parent: ast.AST | None, node: ast.expr) -> bool:
    return isinstance(parent, ast.Assign) and node is parent.value and _unpacks_to(parent)


def _unpacks_to(assign: ast.Assign) -> bool:
    return any(isinstance(target, (ast.Tuple, ast.List)) for target in assign.targets)


def _none_comprehended(span: _FailingSpan, node: ast.expr) -> NoneUse | None:
    """None as what a comprehension iterates over first: evaluated in the enclosing frame,
    whose failing span is then the whole comprehension."""
    if isinstance(node, (ast.ListComp, ast.SetComp, ast.DictComp, ast.GeneratorExp)):
        return _none_iterable(span, node.generators[0], node.generators[0].iter)
    return None


# -- where it came from ----------------------------------------------------------------------
