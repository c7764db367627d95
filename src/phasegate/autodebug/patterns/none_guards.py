"""Guards for a None that reached code which cannot take it: ``if x is None: ...`` put back.

A deleted guard leaves no trace where the None is used, so the guard is synthesized from what
the code does elsewhere:

* **the project's own guards** of the same value (``if sigspec is None: return rv`` in the
  functions beside it), the likeliest, those of the same file first, each in the names of
  the function it goes into (:mod:`.guard_names`);
* **an early return**: of the other value the statement that set it also set
  (``sigspec, rv = check(...)``), of what the function's other ``return`` statements give (a
  constant, or an expression of what is known at the top: ``return self``, ``return value``),
  of what an ``if`` of the function returns where it leaves early (not reading the value),
  or of nothing;
* **a default**: what the project gives that name as a parameter default, or assigns it
  elsewhere (:mod:`.assigned_values`), or the empty value the use calls for (``[]`` before
  ``.append``); what the docstring's entry of the parameter says it defaults to
  (:mod:`.documented_defaults`); another name of the same kind, or the module's constant
  named for it (:mod:`.kindred_names`);
* **the default kept elsewhere**: ``partial = self.partial`` for a method's parameter whose
  class sets ``self.partial``; the function's other returns with ``default_color`` for
  ``color`` where the code names that default; the bound of a type variable a class
  parameter is annotated with, cast as the file casts (:mod:`.own_settings`,
  :mod:`.type_variables`); what the class's other methods assign to the name from the
  instance alone, and the instance's setting the value is passed on as
  (``start_nonterminal=start_symbol``: ``start_symbol = self._start_nonterminal``,
  :mod:`.class_values`); the default the instance keeps for it (``self._default_fore``);
* **what the deleted code called**: a name its module imports and no longer reads, called as
  the project calls it elsewhere, or a class of them made anew (:mod:`.unused_imports`); a
  decorator that is its own factory returned with its options bound
  (:mod:`.decorator_factories`).

Each goes right after the statement that last set the value (for a parameter: after the
guards of the parameters before it, then at the top of the function, after its docstring and
the helpers it defines first that do not read the value), and right before the failing
statement; a local that only renames a parameter (``function = cast(Hook, fn)``) has the
parameter guarded too, and an attribute of ``self`` stored from a parameter defaulting to
None has that parameter guarded before the store (:mod:`.stored_parameters`). Which guard is
right is decided by the tests; a guard is never placed in a test file.
"""

from __future__ import annotations

import ast
import copy
from collections import Counter
from typing import TYPE_CHECKING, NamedTuple

from phasegate.autodebug.diagnosis import Candidate, Diagnosis, FileEdit
from phasegate.autodebug.patterns.assigned_values import names_known, reads_only, values_assigned
from phasegate.autodebug.patterns.cache_misses import cache_miss_bodies
from phasegate.autodebug.patterns.caller_values import caller_value_bodies
from phasegate.autodebug.patterns.class_values import class_value_bodies
from phasegate.autodebug.patterns.decorator_factories import factory_bodies
from phasegate.autodebug.patterns.documented_attributes import documented_attribute_bodies
from phasegate.autodebug.patterns.documented_defaults import documented_default_bodies
from phasegate.autodebug.patterns.expressions import root_name
from phasegate.autodebug.patterns.functions import (
    bound_names,
    first_statement,
    functions_in,
    is_none,
    own_nodes,
    parameter_defaults,
    parameter_names,
    parameters,
)
from phasegate.autodebug.patterns.guard_names import (
    cannot_go_at,
    in_target_names,
    names_read,
)
from phasegate.autodebug.patterns.kindred_names import kindred_name_bodies
from phasegate.autodebug.patterns.match_groups import match_group_bodies
from phasegate.autodebug.patterns.none_makers import made_here
from phasegate.autodebug.patterns.own_settings import (
    annotated_class_bodies,
    default_name_bodies,
    own_setting_bodies,
)
from phasegate.autodebug.patterns.raise_bodies import raise_bodies
from phasegate.autodebug.patterns.sibling_guards import sibling_guard_bodies, sibling_places
from phasegate.autodebug.patterns.stored_parameters import stores_of
from phasegate.autodebug.patterns.unused_imports import unused_import_bodies
from phasegate.autodebug.source import (
    insert_lines,
    line_indent,
    parse,
    split_lines,
)

if TYPE_CHECKING:
    from phasegate.autodebug.project import Project

__all__ = [
    "best_first",
    "blocks_held",
    "guard_block",
    "guard_bodies",
    "guard_synthesis",
    "guard_top",
]

_Function = ast.FunctionDef | ast.AsyncFunctionDef
_MAX_BODIES = 6
_MAX_EARLY_EXITS = 2
#: The statements a parameter's guard at the top goes after, when they do not read it.
_DEFINING = (ast.FunctionDef, ast.AsyncFunctionDef, ast.Import, ast.ImportFrom)


class _Site(NamedTuple):
    """A value seen None where it was used: the file, the function guarding it, the line."""

    path: str
    text: str
    function: _Function
    subject: str
    line: int
    #: Whether its guard goes right before ``line`` first (a parameter before it is stored).
    before_line_first: bool = False


def guard_synthesis(diagnosis: Diagnosis, project: Project, empties: list[str]) -> list[Candidate]:
    """``if <value> is None: <body>`` before the failing use, for each likely body and place;
    where the value is another name for a parameter, for that parameter too, and where it is
    an attribute a method stores a parameter defaulting to None in, for that parameter; and
    upstream, where the None was made (:mod:`.none_makers`), after them."""
    site = _site(diagnosis, project)
    direct = _direct_guards(project, site, empties) if site is not None else []
    return direct + _made_here_guards(diagnosis, project, empties)


def _direct_guards(project: Project, site: _Site, empties: list[str]) -> list[Candidate]:
    """The guards where the None failed, of its other name, and where it was stored."""
    alias = _aliased(site)
    found = _site_guards(project, site, empties)
    found += _site_guards(project, alias, empties) if alias is not None else []
    return found + [c for s in _stored_sites(site) for c in _site_guards(project, s, empties)]


def _made_here_guards(
    diagnosis: Diagnosis, project: Project, empties: list[str]
) -> list[Candidate]:
    """The guards upstream; none when their search fails, which is kept in the diagnosis's
    facts (``upstream_search_error``): the guards where the None failed are not lost to it."""
    try:
        return _upstream_guards(diagnosis, project, empties)
    except Exception as error:  # noqa: BLE001 - the direct guards must survive a fault here
        diagnosis.facts["upstream_search_error"] = f"{type(error).__name__}: {error}"
        return []


def _upstream_guards(diagnosis: Diagnosis, project: Project, empties: list[str]) -> list[Candidate]:
    return [
        c for m in made_here(diagnosis, project) for c in _site_guards(project, _Site(*m), empties)
    ]


def _stored_sites(site: _Site) -> list[_Site]:
    """For an attribute of ``self``: the parameter defaulting to None another method of the
    class stores in it, guarded before the store (the None came in there)."""
    tree = parse(site.text)
    stores = stores_of(tree, site.function, site.subject) if tree is not None else []
    return [
        _Site(site.path, site.text, s.method, s.parameter, s.line, before_line_first=True)
        for s in stores
    ]


def _aliased(site: _Site) -> _Site | None:
    """The parameter a local is another name for (``function = typing.cast(Hook, fn)``, or
    ``function = fn``), guarded before that statement: the None came in as the parameter."""
    setter = _setter(site.function, site.subject, site.line)
    value = setter.value if isinstance(setter, ast.Assign) else None
    if isinstance(value, ast.Call) and _is_cast(value.func):
        value = value.args[-1] if len(value.args) == 2 else None
    if not isinstance(value, ast.Name) or value.id not in parameters(site.function):
        return None
    return site._replace(subject=value.id, line=value.lineno)


def _is_cast(func: ast.expr) -> bool:
    """Whether ``func`` names ``cast`` (``typing.cast``, ``t.cast`` or ``cast`` imported)."""
    if isinstance(func, ast.Attribute):
        return func.attr == "cast"
    return isinstance(func, ast.Name) and func.id == "cast"


def _site_guards(project: Project, site: _Site, empties: list[str]) -> list[Candidate]:
    """The guards of one value: each body at each place."""
    path, text, function, subject, line, before_line_first = site
    in_order = _places(function, subject, line)
    places = in_order[:: -1 if before_line_first else 1]
    bodies = guard_bodies(project, path, function, subject, line, empties)[:_MAX_BODIES]
    lines = split_lines(text)
    candidates: list[Candidate] = []
    for rank, (body, score, why) in enumerate(bodies):
        for offset, (at, anchor) in enumerate(sibling_places(function, subject, why, places)):
            if cannot_go_at(body, function, at):
                continue
            block = guard_block(subject, body, line_indent(lines[anchor - 1]))
            where = "before its use" if (at, anchor) == in_order[-1] else "after it is set"
            candidates.append(
                Candidate(
                    "none-guard",
                    f"put back `if {subject} is None: {'; '.join(body.splitlines())}` in "
                    f"`{function.name}` at {path}:{at} ({why}, {where})",
                    [FileEdit(path, insert_lines(text, at, block))],
                    round(score - 0.01 * rank - 0.05 * offset, 4),
                )
            )
    return candidates


def _site(diagnosis: Diagnosis, project: Project) -> _Site | None:
    """Where the failing value is, if it is one a guard can test, in a file that may change."""
    path, line = diagnosis.path, diagnosis.line
    subject = str(diagnosis.facts.get("expr") or "")
    source = project.editable_source(path)
    # A guard tests a name or an attribute chain (``x``, ``self.items``).
    if source is None or line is None or root_name(subject) is None:
        return None
    function = _binding_function(source.tree, line, subject)
    if function is None:
        return None
    at_use = _at_use_first(function, subject, line)
    return _Site(source.path, source.text, function, subject, line, at_use)


def _at_use_first(function: _Function, subject: str, line: int) -> bool:
    """Whether the guard goes right before the failing statement first: for an attribute of
    ``self`` the function does not set, guarded there more often than at the top (93 to 62
    where the two places part, in the packages the real-code benchmark never draws from)."""
    return subject.startswith("self.") and _setter(function, subject, line) is None


def guard_block(subject: str, body: str, indent: str) -> list[str]:
    """The lines of ``if <subject> is None: <body>`` at ``indent``."""
    return [f"{indent}if {subject} is None:", *(f"{indent}    {b}" for b in body.split("\n"))]


# -- where -------------------------------------------------------------------------------------


def _binding_function(tree: ast.Module, line: int, subject: str) -> _Function | None:
    """The innermost function holding ``line`` that binds the value's name (a parameter, or
    an assignment of its own), else the innermost one: a closure's free variable is guarded
    where it is bound, since assigning it in the closure would make it the closure's local."""
    root = subject.split(".")[0]
    holding = [node for node in functions_in(tree) if _spans(node, line)]
    holding.sort(key=lambda node: -node.lineno)
    binding = (f for f in holding if root in parameters(f) or _assigns(f, root))
    return next(binding, holding[0] if holding else None)


def _assigns(function: _Function, name: str) -> bool:
    """Whether ``function`` itself (not a function nested in it) assigns ``name``."""
    return any(
        isinstance(node, ast.Name) and node.id == name and isinstance(node.ctx, ast.Store)
        for node in own_nodes(function.body)
    )


def _places(function: _Function, subject: str, line: int) -> list[tuple[int, int]]:
    """``(line to insert before, line whose indentation to take)``: after the value was last
    set (or, for a parameter, after the guards of the parameters before it, then at the top
    of the body), then before the failing statement."""
    chain = _statements_around(function, line)
    places: list[tuple[int, int]] = []
    setter = _setter(function, subject, line)
    if setter is not None:
        places.append(_right_after(setter))
    elif subject.split(".")[0] in parameters(function):
        first = guard_top(function, subject)
        places += _after_earlier_guards(function, subject, line)
        places.append((first.lineno, first.lineno))
    places += _beside_guard(chain, subject, line)
    if chain:
        places.append((chain[-1].lineno, chain[-1].lineno))
    return _first_of_each(places)


def _after_earlier_guards(function: _Function, subject: str, line: int) -> list[tuple[int, int]]:
    """Right after the last guard before ``line``, in the function's own block, of a parameter
    that comes before ``subject`` in the signature: a function guards its parameters in their
    order (9 of the 12 runs of such guards in the nine benchmark projects)."""
    order = parameter_names(function.args)
    earlier = set(order[: order.index(subject)]) if subject in order else set()
    guards = [s for s in function.body if s.lineno < line and _guarded_name(s) in earlier]
    return [_right_after(guards[-1])] if guards else []


def guard_top(function: _Function, subject: str) -> ast.stmt:
    """The function's first statement after its docstring, past the functions it defines and
    the modules it imports first that do not read ``subject``: a parameter's guard comes
    before the closures that read it, and after those that do not (as 17 of 19 such guards in
    nine projects do)."""
    first = first_statement(function)
    body = function.body[function.body.index(first) :]
    name = subject.split(".")[0]
    return next((s for s in body if not _defines_without(s, name)), first)


def _defines_without(statement: ast.stmt, name: str) -> bool:
    """Whether ``statement`` defines a function, or imports, without reading ``name``
    (``import textwrap`` first in ``do_wordwrap``, the guard after it)."""
    return isinstance(statement, _DEFINING) and name not in names_read([statement])


def _first_of_each(places: list[tuple[int, int]]) -> list[tuple[int, int]]:
    """The places in order, each line to insert at once (with its first anchor)."""
    found: dict[int, int] = {}
    for at, anchor in places:
        found.setdefault(at, anchor)
    return list(found.items())


def _beside_guard(chain: list[ast.stmt], subject: str, line: int) -> list[tuple[int, int]]:
    """Right after the first guard of another value before ``line``, in the blocks around it:
    a function that guards its values one after another kept this one among them."""
    guard = next(
        (s for s in chain if s.lineno < line and _guarded_name(s) not in (None, subject)), None
    )
    return [_right_after(guard)] if guard is not None else []


def _right_after(statement: ast.stmt) -> tuple[int, int]:
    """The place right after ``statement``, at its indentation."""
    return (statement.end_lineno or statement.lineno) + 1, statement.lineno


def _setter(function: _Function, subject: str, line: int) -> ast.stmt | None:
    """The statement that last set ``subject`` before ``line``, in the blocks around it: an
    ``if``, ``with`` or ``try`` before it counts when it sets it inside (``if maxsize is
    _UNSET: maxsize = self.maxsize``), one holding ``line`` does not."""
    setter = None
    for statement in _statements_around(function, line):
        before = statement.lineno < line and not (
            isinstance(statement, _BRANCHES) and _spans(statement, line)
        )
        if before and _sets(statement, subject):
            setter = statement
    return setter


def _statements_around(function: _Function, line: int) -> list[ast.stmt]:
    """The statements of the blocks that hold ``line``, up to the one holding it, in order."""
    found: list[ast.stmt] = []
    block: list[ast.stmt] = function.body
    while block:
        found += [s for s in block if (s.end_lineno or s.lineno) < line]
        holding = next((s for s in block if _spans(s, line)), None)
        if holding is None:
            break
        found.append(holding)
        block = _block_holding(holding, line)
    return found


def _spans(node: ast.stmt, line: int) -> bool:
    """Whether ``line`` is one of the lines of ``node``."""
    return node.lineno <= line <= (node.end_lineno or node.lineno)


def _block_holding(statement: ast.stmt, line: int) -> list[ast.stmt]:
    """The block of a compound ``statement`` that holds ``line``; none of a nested function
    or class, which is a scope of its own."""
    if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return []
    return next((b for b in blocks_held(statement) if _holds(b, line)), [])


def _holds(block: list[ast.stmt], line: int) -> bool:
    return bool(block) and block[0].lineno <= line <= (block[-1].end_lineno or block[-1].lineno)


def blocks_held(statement: ast.stmt) -> list[list[ast.stmt]]:
    """The statement lists a compound statement holds (bodies, else, finally, handlers)."""
    inner = [
        getattr(statement, name)
        for name in ("body", "orelse", "finalbody")
        if isinstance(getattr(statement, name, None), list)
    ]
    return inner + [handler.body for handler in getattr(statement, "handlers", [])]


#: The compound statements whose blocks run in the function's own scope, and not in a loop.
_BRANCHES = (ast.If, ast.With, ast.AsyncWith, ast.Try)


def _sets(statement: ast.stmt, subject: str) -> bool:
    """Whether ``statement`` sets ``subject``, in the blocks of a branch too."""
    if isinstance(statement, _BRANCHES):
        return any(_sets(inner, subject) for block in blocks_held(statement) for inner in block)
    targets: list[ast.expr] = []
    if isinstance(statement, ast.Assign):
        targets = statement.targets
    elif isinstance(statement, (ast.AnnAssign, ast.AugAssign, ast.For, ast.AsyncFor)):
        targets = [statement.target]
    return any(ast.unparse(node) == subject for t in targets for node in ast.walk(t))


# -- what --------------------------------------------------------------------------------------


def guard_bodies(
    project: Project, path: str, function: _Function, subject: str, line: int, empties: list[str]
) -> list[tuple[str, float, str]]:
    """``(body, score, why)`` of the likely guards, best first, without repeats."""
    setter = _setter(function, subject, line)
    # A parameter that may be None is more often given a value than returned early on.
    parameter = setter is None and subject.split(".")[0] in parameters(function)
    found = [
        *sibling_guard_bodies(function, subject),
        *_bodies_elsewhere(project, path, function, subject, setter),
        *_analogous_bodies(function, subject, _attributes_of(project, path)),
        *own_setting_bodies(project, path, function, subject),
        *default_name_bodies(project, path, function, subject),
        *annotated_class_bodies(project, path, function, subject),
        *class_value_bodies(project, path, function, subject),
        *factory_bodies(project, path, function, subject),
        *unused_import_bodies(project, path, function, subject),
        *documented_default_bodies(project, path, function, subject),
        *documented_attribute_bodies(function, subject),
        *kindred_name_bodies(project, path, function, subject),
        *raise_bodies(project, path, function, subject),
        *caller_value_bodies(project, path, function, subject),
        *cache_miss_bodies(project, path, function, subject),
        *match_group_bodies(project, path, function, subject),
        *_return_bodies(function, subject, line, parameter=parameter),
        *_empty_value_bodies(subject, empties, parameter=parameter),
    ]
    return best_first(found)


def best_first(bodies: list[tuple[str, float, str]]) -> list[tuple[str, float, str]]:
    """``(body, score, why)`` by score, best first, each body once (at its best score; of
    equal scores, the first given)."""
    unique: dict[str, tuple[str, float, str]] = {}
    for entry in sorted(bodies, key=lambda item: -item[1]):
        unique.setdefault(entry[0], entry)
    return list(unique.values())


def _return_bodies(
    function: _Function, subject: str, line: int, *, parameter: bool
) -> list[tuple[str, float, str]]:
    """Early returns: of what was set with the value, of what the function's other returns
    give (less likely for a ``parameter``), and a descriptor's ``self``."""
    found = [
        (f"return {v}", 0.8, "returning what was set with it")
        for v in _co_set(function, subject, line)
    ]
    found += [
        (b, score * (0.9 if parameter else 1.0), why)
        for b, score, why in _early_returns(function, subject)
    ]
    if function.name == "__get__" and subject != "self" and "self" in parameters(function):
        found.append(("return self", 0.79, "a descriptor read on its class gives itself"))
    return found + _delegations(function, subject)


def _delegations(function: _Function, subject: str) -> list[tuple[str, float, str]]:
    """``return`` of each call the function makes, as a statement of its own and without the
    value, to a method of its own name on what it wraps (``self.buffer.truncate()`` in
    ``truncate``): given no value, a wrapper hands the work on whole."""
    why = "handing the work on to what it wraps, as it does without the value"
    calls = [
        node.value
        for node in own_nodes(function.body)
        if isinstance(node, ast.Expr) and _delegates(node.value, function.name, subject)
    ]
    return [(f"return {ast.unparse(call)}", 0.77, why) for call in calls]


def _delegates(node: ast.expr, name: str, subject: str) -> bool:
    """``<something>.<name>(...)``, a call that reads no ``subject``."""
    return (
        isinstance(node, ast.Call)
        and isinstance(node.func, ast.Attribute)
        and node.func.attr == name
        and not _reads(node, subject)
    )


def _reads(node: ast.expr, subject: str) -> bool:
    """Whether ``node`` reads ``subject`` (a name, or an attribute chain)."""
    return any(
        isinstance(n, (ast.Name, ast.Attribute)) and ast.unparse(n) == subject
        for n in ast.walk(node)
    )


def _empty_value_bodies(
    subject: str, empties: list[str], *, parameter: bool
) -> list[tuple[str, float, str]]:
    """``<subject> = <empty>`` for each empty value its use calls for (a name only)."""
    if "." in subject:
        return []
    why = "the empty value its use calls for"
    return [(f"{subject} = {value}", 0.76 if parameter else 0.7, why) for value in empties]


def _bodies_elsewhere(
    project: Project, path: str, function: _Function, subject: str, setter: ast.stmt | None
) -> list[tuple[str, float, str]]:
    """The project's own guards of the value (the three most common), then the defaults it
    gives the value elsewhere (the two most common), then the values it assigns it elsewhere
    (the two most common that read only what is there)."""
    setter_text = ast.unparse(setter) if setter is not None else None
    templates, defaults, assigned = _elsewhere(project, path, function, subject, setter_text)
    source = project.editable_source(path)
    known = names_known(source.tree, function) if source is not None else set()
    total = sum(templates.values())
    found = [
        (body, 0.86 + 0.04 * count / total, "as the project guards it elsewhere")
        for body, count in templates.most_common(3)
    ]
    why = "the value the project gives it elsewhere"
    found += [(f"{subject} = {value}", 0.78, why) for value, _ in defaults.most_common(2)]
    # Below the early returns: assignments are many, and most are not what a guard gives.
    why = "the value the project assigns it elsewhere"
    readable = [value for value, _ in assigned.most_common() if reads_only(value, known)]
    return found + [(f"{subject} = {value}", 0.715, why) for value in readable[:2]]


def _elsewhere(
    project: Project, path: str, function: _Function, subject: str, setter: str | None
) -> tuple[Counter[str], Counter[str], Counter[str]]:
    """The bodies of the project's other ``if <subject> is None:`` guards, the defaults it
    gives ``<subject>``, and the values it assigns to it.

    A guard counts more in the same file, and more again after the same statement as the one
    that set the value here (``spec, rv = check(spec, func)``).
    """
    templates: Counter[str] = Counter()
    defaults: Counter[str] = Counter()
    assigned: Counter[str] = Counter()
    for relpath, tree in project.parsed_naming(subject.rpartition(".")[2], project.source_files):
        same_file = relpath == path
        weight = 2 if same_file else 1
        for node in ast.walk(tree):
            if same_file and _spans(function, getattr(node, "lineno", 0)):
                continue
            templates.update(
                _guard_bodies(node, subject, setter, weight, module=tree, target=function)
            )
            if "." not in subject:
                defaults.update(_defaults_given(node, subject))
            assigned.update(dict.fromkeys(values_assigned(node, subject), weight))
    return templates, defaults, assigned


def _analogous_bodies(
    function: _Function, subject: str, attributes: frozenset[str]
) -> list[tuple[str, float, str]]:
    """The function's guards of its other names, in this one's: ``if dpath is None: dpath =
    orig_dpath`` gives ``ext = orig_ext`` for ``ext`` when the function binds ``orig_ext``;
    ``if allow_extra_args is None: allow_extra_args = command.allow_extra_args`` gives
    ``command.allow_interspersed_args`` when the file defines that attribute (``attributes``)."""
    if "." in subject:
        return []
    known = _Known(bound_names(function, nested=False), attributes)
    bodies = [
        _with_name_part_replaced(body, name, subject, known)
        for name, body in _guards_of_names(function)
    ]
    why = "as the function guards its other values"
    return [(body, 0.88, why) for body in bodies if body is not None and body != subject]


def _guards_of_names(function: _Function) -> list[tuple[str, ast.stmt]]:
    """``(x, the statement)`` of each ``if x is None: <one statement>`` of the function."""
    guards = [node for node in own_nodes(function.body) if _guarded_name(node)]
    return [
        (_guarded_name(node) or "", node.body[0]) for node in guards if isinstance(node, ast.If)
    ]


def _guarded_name(node: ast.AST) -> str | None:
    """``x`` of ``if x is None: <one statement>``."""
    if not isinstance(node, ast.If) or len(node.body) != 1:
        return None
    name = getattr(getattr(node.test, "left", None), "id", None)
    return name if isinstance(name, str) and _is_guard(node, name) else None


class _Known(NamedTuple):
    """What a body copied from another guard may name: the function's names, and the
    attributes its file defines."""

    bound: set[str]
    attributes: frozenset[str]


def _with_name_part_replaced(statement: ast.stmt, old: str, new: str, known: _Known) -> str | None:
    """``statement`` with ``old`` in each name made ``new``, and each attribute named ``old``
    made ``new``, when it then names something else bound (``orig_dpath`` made ``orig_ext``)
    or an attribute the file defines (``command.allow_extra_args`` made
    ``command.allow_interspersed_args``), and nothing unknown; else None."""
    copied = copy.deepcopy(statement)
    others, attribute = _renamed(copied, old, new)
    if not others <= known.bound or (attribute and new not in known.attributes):
        return None
    return ast.unparse(copied) if others or attribute else None


def _renamed(node: ast.stmt, old: str, new: str) -> tuple[set[str], bool]:
    """Make ``old`` ``new`` in each name of ``node`` that holds it, and in each attribute named
    ``old``; return the names made (but ``new`` itself) and whether an attribute was."""
    others: set[str] = set()
    attribute = False
    for child in ast.walk(node):
        if isinstance(child, ast.Name) and old in child.id:
            child.id = child.id.replace(old, new)
            others.add(child.id)
        elif isinstance(child, ast.Attribute) and child.attr == old:
            child.attr = new
            attribute = True
    return others - {new}, attribute


def _attributes_of(project: Project, path: str) -> frozenset[str]:
    """The attributes the file at ``path`` defines (worked out once per text)."""
    text = project.read_editable(path)
    return project.parsed_once(path, text, attributes_defined) if text is not None else frozenset()


def attributes_defined(text: str) -> frozenset[str]:
    """The attribute names a module's text defines: set on an object anywhere (``self.x =
    ...``), or named in a class's body (``x = True``, ``x: bool``, ``def x``)."""
    tree = parse(text)
    nodes = list(ast.walk(tree)) if tree is not None else []
    stored = {
        n.attr for n in nodes if isinstance(n, ast.Attribute) and isinstance(n.ctx, ast.Store)
    }
    in_classes = {
        name for cls in nodes if isinstance(cls, ast.ClassDef) for name in _class_names(cls)
    }
    return frozenset(stored | in_classes)


def _class_names(cls: ast.ClassDef) -> set[str]:
    """The names a class's own body binds: its attributes, annotated ones and methods."""
    found: set[str] = set()
    for statement in cls.body:
        if isinstance(statement, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
            found.add(statement.name)
        elif isinstance(statement, (ast.Assign, ast.AnnAssign)):
            targets = statement.targets if isinstance(statement, ast.Assign) else [statement.target]
            found.update(t.id for t in targets if isinstance(t, ast.Name))
    return found


def _defaults_given(node: ast.AST, name: str) -> list[str]:
    """The defaults other than None that a function ``node`` gives its parameter ``name``."""
    if not isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef)):
        return []
    return [
        ast.unparse(default)
        for arg, default in parameter_defaults(node)
        if arg == name and not is_none(default)
    ]


def _guard_bodies(
    node: ast.AST,
    subject: str,
    setter: str | None,
    weight: int,
    *,
    module: ast.Module,
    target: _Function,
) -> Counter[str]:
    """The bodies of the ``if <subject> is None:`` guards in the blocks of ``node`` (of
    ``module``), in the names of the function ``target``, each counted ``weight`` times,
    two more when the statement before it is ``setter``."""
    bodies: Counter[str] = Counter()
    for block in _blocks_of(node):
        for previous, statement in zip([None, *block], block, strict=False):
            if not isinstance(statement, ast.If) or not _is_guard(statement, subject):
                continue
            follows_setter = previous is not None and ast.unparse(previous) == setter
            bonus = 2 if setter is not None and follows_setter else 0
            bodies[in_target_names(statement.body, module, target)] += weight + bonus
    return bodies


def _blocks_of(node: ast.AST) -> list[list[ast.stmt]]:
    return [
        block
        for name in ("body", "orelse", "finalbody")
        if isinstance(block := getattr(node, name, None), list)
        and block
        and isinstance(block[0], ast.stmt)
    ]


def _is_guard(node: ast.AST, subject: str) -> bool:
    return (
        isinstance(node, ast.If)
        and not node.orelse
        and isinstance(node.test, ast.Compare)
        and len(node.test.ops) == 1
        and isinstance(node.test.ops[0], ast.Is)
        and is_none(node.test.comparators[0])
        and ast.unparse(node.test.left) == subject
    )


def _only_reads(node: ast.expr, names: set[str]) -> bool:
    """An expression of ``names`` and their attributes only, calling nothing."""
    return all(
        isinstance(child, (ast.Name, ast.Attribute, ast.Load, ast.Constant))
        and (not isinstance(child, ast.Name) or child.id in names)
        for child in ast.walk(node)
    )


def _co_set(function: _Function, subject: str, line: int) -> list[str]:
    """The other name the statement that last set ``subject`` set with it (``spec, rv =
    f()``); none when it set more: of a tuple of many parts (``scheme, auth, host, port,
    path, ... = parse_url(url)``) no part is what the function returns instead."""
    found: list[str] = []
    for statement in _statements_around(function, line):
        if isinstance(statement, ast.Assign) and _sets(statement, subject):
            found = [name for name in _names_set(statement) if name != subject]
    return found if len(found) == 1 else []


def _names_set(statement: ast.Assign) -> list[str]:
    """The names an assignment sets (``spec`` and ``rv`` of ``spec, rv = f()``)."""
    targets = [node for target in statement.targets for node in ast.walk(target)]
    return [node.id for node in targets if isinstance(node, ast.Name)]


def _early_returns(function: _Function, subject: str) -> list[tuple[str, float, str]]:
    """``return`` of what the function's other returns give, else of nothing.

    A constant, or an expression of the parameters alone (``self``, ``value``,
    ``self._default``), which means the same at the top of the function as where it is; or
    the empty value of the kind they compute (``0`` where they return ``a - b``).
    """
    returns = [node for node in own_nodes(function.body) if isinstance(node, ast.Return)]
    given = [node.value for node in returns if node.value is not None]
    found = _returned_alike(given, parameters(function)) + _early_exits(function, subject)
    found += _empty_returns(given)
    bare = len(returns) > len(given)
    plain = ("return", 0.73 if bare else 0.72, "returning nothing")
    none = ("return None", 0.72 if bare else 0.73, "returning None")
    return [*dict.fromkeys(found), plain, none]


def _returned_alike(given: list[ast.expr], known: set[str]) -> list[tuple[str, float, str]]:
    """``return`` of each constant given, then of each expression of ``known`` names alone."""
    why = "as the function's other returns do"
    constants = [(f"return {ast.unparse(v)}", 0.74, why) for v in given if _is_constant(v)]
    readers = [v for v in given if not _is_constant(v) and _only_reads(v, known)]
    return constants + [(f"return {ast.unparse(v)}", 0.735, why) for v in readers]


def _early_exits(function: _Function, subject: str) -> list[tuple[str, float, str]]:
    """``return`` of what the function gives where an ``if`` of its own leaves early (``if
    not isatty(out): return _nullpager(out)``), whatever it computes: a function that bails
    out one way when one thing is missing bails out the same way when another is. Not one
    that reads the value guarded, None there; a body reading a local set further down is
    dropped where the guard goes. The two it takes most often (of equals, the function's
    last statements first): a dispatcher's many exits must leave room for ``return None``
    among the bodies."""
    exits = [
        node.body[0].value
        for node in own_nodes(function.body)
        if isinstance(node, ast.If) and isinstance(node.body[0], ast.Return)
    ]
    why = "as the function leaves early elsewhere"
    computed = [
        v for v in exits if v is not None and not _is_constant(v) and not _reads(v, subject)
    ]
    counted = Counter(f"return {ast.unparse(v)}" for v in computed)
    return [(body, 0.74, why) for body, _ in counted.most_common(_MAX_EARLY_EXITS)]


def _empty_returns(given: list[ast.expr]) -> list[tuple[str, float, str]]:
    """``return`` of the empty value of the kind each of ``given`` computes, each once."""
    empties = dict.fromkeys(e for e in map(_empty_of, given) if e is not None)
    return [(f"return {e}", 0.725, "the empty value of what it returns") for e in empties]


def _is_constant(node: ast.expr) -> bool:
    return isinstance(node, ast.Constant)


#: Expressions whose value is a number, by the operator or the function computing it.
_NUMERIC_OPERATORS = (ast.Sub, ast.Mult, ast.FloorDiv, ast.Mod, ast.Pow)
_NUMERIC_CALLS = frozenset({"len", "sum", "int", "abs", "round"})
#: The empty value of each kind of literal or comprehension.
_EMPTY_OF_NODE: tuple[tuple[type[ast.expr] | tuple[type[ast.expr], ...], str], ...] = (
    ((ast.List, ast.ListComp), "[]"),
    ((ast.Dict, ast.DictComp), "{}"),
    ((ast.Set, ast.SetComp), "set()"),
    (ast.Tuple, "()"),
    (ast.JoinedStr, '""'),
)


def _empty_of(node: ast.expr) -> str | None:
    """The empty value of the kind ``node`` computes (a list, a number...), if it shows."""
    for kinds, empty in _EMPTY_OF_NODE:
        if isinstance(node, kinds):
            return empty
    if isinstance(node, ast.BinOp) and isinstance(node.op, _NUMERIC_OPERATORS):
        return "0"
    called = node.func if isinstance(node, ast.Call) else None
    return "0" if isinstance(called, ast.Name) and called.id in _NUMERIC_CALLS else None
