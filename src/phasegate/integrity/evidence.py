"""Test evidence, base against head: what the change does to the tests.

Each changed Python file is parsed at the base and in the work tree
(:mod:`~phasegate.integrity.testcode`); the tests pytest would collect are compared by file and
name. A test that disappears is a trick unless it reappears under a collected name with the same
body (an honest rename) or it referenced code the change deleted too (the test went with the
code it tested). A test that stays is compared fact by fact: new skip or non-strict xfail marks,
skip calls, fewer assertions, assertions that cannot fail, an early return, a broader
``pytest.raises``, a wider ``pytest.approx``, the function under test patched in its own test.
In ``conftest.py`` a collection hook or ``collect_ignore`` list added or changed is reported,
and so is a hook that can change the outcome a test is reported with (or ``pytest_plugins``).

When the run's collected node ids are given (the check runs inside ``pytest --gate``), a test
the work tree still holds but the run did not collect, in a file the run did collect from, is
reported as deselected.
"""

from __future__ import annotations

import ast
import difflib
from collections.abc import Callable, Iterable, Sequence
from operator import attrgetter

from phasegate.gates.protocol import CheckError
from phasegate.integrity.sources import ChangedSources
from phasegate.integrity.star_imports import importers, resolved
from phasegate.integrity.testcode import (
    DEFAULT_APPROX,
    OUTCOME_HOOKS,
    Approx,
    ModuleFacts,
    SkipFeature,
    TestFacts,
    conftest_controls,
    is_test_file,
    read_module,
)
from phasegate.integrity.trick import Trick, beyond, listed

__all__ = ["evidence_tricks"]


def evidence_tricks(
    sources: ChangedSources,
    first_party: frozenset[str] = frozenset(),
    collected: Sequence[str] | None = None,
) -> list[Trick]:
    """Every way the change weakens the test evidence, in file and line order.

    ``collected`` are the node ids the run collected (``None`` outside a run).
    """
    base = _read_modules(sources, sources.base_text, f"the base ({sources.base[:12]})", first_party)
    head = _read_modules(sources, sources.head_text, "the work tree", first_party)
    tricks = [
        *_dropped_tests(base, head),
        *_weakened_tests(base, head),
        *_module_skips(base, head),
        *_collection_controls(base, head),
    ]
    if collected is not None:
        tricks.extend(_deselected(sources, base, head, collected, first_party))
    return sorted(tricks, key=lambda trick: (trick.path, trick.line or 0, trick.rule))


def _read_modules(
    sources: ChangedSources,
    text_of: Callable[[str], str | None],
    revision: str,
    first_party: frozenset[str],
) -> dict[str, ModuleFacts]:
    """The changed Python files as one revision has them (those it has), and the conftest.py
    files that star-import one of them."""
    modules: dict[str, ModuleFacts] = {}
    changed = sources.python_paths()
    for path in [*changed, *importers(sources.conftest_paths, changed, sources.head_text)]:
        text = text_of(path)
        if text is not None:
            modules[path] = read_module(path, _parse(text, path, revision), first_party)
            _read_star_imports(modules[path], text_of, first_party)
    return modules


def _read_star_imports(
    module: ModuleFacts, text_of: Callable[[str], str | None], first_party: frozenset[str]
) -> None:
    """A conftest's star imports of the project's modules, as what those modules bind."""
    module.collection_controls = resolved(
        module.path,
        module.collection_controls,
        text_of,
        lambda tree: conftest_controls(tree, first_party),
    )


def _parse(text: str, path: str, revision: str) -> ast.Module:
    try:
        return ast.parse(text, filename=path)
    except (SyntaxError, ValueError) as exc:
        raise CheckError(
            f"{path} does not parse at {revision}: {exc}; the tests it holds cannot be compared",
            fix="fix the syntax error (the syntax check points at it)",
        ) from exc


def _collected(modules: dict[str, ModuleFacts]) -> dict[tuple[str, str], TestFacts]:
    return {
        (path, name): test
        for path, module in modules.items()
        for name, test in module.tests.items()
        if test.collected
    }


def _dropped_tests(base: dict[str, ModuleFacts], head: dict[str, ModuleFacts]) -> list[Trick]:
    before, after = _collected(base), _collected(head)
    elsewhere = _function_homes(head)
    removed_code = _removed_definitions(base, head)
    tricks: list[Trick] = []
    moved: dict[str, list[tuple[str, int]]] = {}  # file pytest does not collect -> tests
    deleted: dict[str, list[TestFacts]] = {}
    for (path, name), test in _gone(before, after):
        home = elsewhere.get(test.body_digest)
        if home is not None:
            _body_moved(name, home, head, moved, tricks)
        elif (renamed := _edited_rename(test, path, before, after)) is not None:
            # The same test under a new name: judged as the test it was.
            tricks.extend(_skips(path, renamed.name, test.skips, renamed.skips))
            tricks.extend(_weaker_checks(path, test, renamed))
        elif not test.referenced & removed_code:
            deleted.setdefault(path, []).append(test)
    tricks.extend(_deletion(path, gone, path in head) for path, gone in deleted.items())
    tricks.extend(_moved_out(new_path, tests) for new_path, tests in moved.items())
    return tricks


def _gone(
    before: dict[tuple[str, str], TestFacts], after: dict[tuple[str, str], TestFacts]
) -> list[tuple[tuple[str, str], TestFacts]]:
    """The collected tests of the base that the work tree collects neither by name nor by
    body (a test that kept its body under another collected name is still there)."""
    after_bodies = {test.body_digest for test in after.values()}
    return [
        (place, test)
        for place, test in before.items()
        if place not in after and test.body_digest not in after_bodies
    ]


def _body_moved(
    name: str,
    home: tuple[str, str, int],
    head: dict[str, ModuleFacts],
    moved: dict[str, list[tuple[str, int]]],
    tricks: list[Trick],
) -> None:
    """A test whose body is now a function pytest does not collect: moved to a file that is
    not a test file (gathered in ``moved``, one trick per file), or uncollected in one."""
    new_path, _new_name, new_line = home
    if head[new_path].test_file:
        tricks.append(_uncollected(name, *home))
    else:
        moved.setdefault(new_path, []).append((name, new_line))


def _function_homes(modules: dict[str, ModuleFacts]) -> dict[str, tuple[str, str, int]]:
    """Every function's body fingerprint -> its file, name and line."""
    return {
        digest: (path, name, line)
        for path, module in modules.items()
        for digest, (name, line) in module.function_digests.items()
    }


def _uncollected(name: str, new_path: str, new_name: str, new_line: int) -> Trick:
    """A test whose body is now a function of a test file that pytest does not collect."""
    if new_name != name.rsplit("::", 1)[-1]:
        message = (
            f"{name} is no longer collected: its code is now {new_name}, which pytest "
            "does not collect, so the test never runs"
        )
    else:
        message = (
            f"{name} is no longer collected (its class was renamed, or it is "
            "marked __test__ = False), so the test never runs"
        )
    return Trick("evidence", "test-uncollected", new_path, new_line, message)


def _moved_out(new_path: str, tests: list[tuple[str, int]]) -> Trick:
    """Tests whose bodies moved to a file pytest does not collect."""
    names = ", ".join(name for name, _line in tests)
    return Trick(
        "evidence",
        "test-uncollected",
        new_path,
        min(line for _name, line in tests),
        f"{len(tests)} test(s) ({names}) are no longer collected: they moved to "
        f"{new_path}, a file pytest does not collect, so they never run",
    )


#: How alike (difflib's ratio of the syntax trees) a new test must be to a deleted one of the
#: same file to count as the same test renamed and edited, not a deletion.
SAME_TEST_RATIO = 0.6
#: Bodies longer than this (as syntax-tree text) are matched by fingerprint only: difflib's
#: ratio grows with the product of the lengths.
MAX_COMPARED_CHARS = 20_000


def _edited_rename(
    test: TestFacts,
    path: str,
    before: dict[tuple[str, str], TestFacts],
    after: dict[tuple[str, str], TestFacts],
) -> TestFacts | None:
    """The new test that looks like ``test`` renamed and edited (or moved), if any.

    Tests of the same file are tried first.
    """
    candidates = sorted(
        (item for item in after.items() if item[0] not in before),
        key=lambda item: (item[0][0] != path, item[0]),
    )
    if len(test.body_dump) > MAX_COMPARED_CHARS:
        return None
    return next((c for _key, c in candidates if _alike(test.body_dump, c.body_dump)), None)


def _alike(body: str, other: str) -> bool:
    """Two test bodies at least :data:`SAME_TEST_RATIO` alike (the cheap bounds first)."""
    if len(other) > MAX_COMPARED_CHARS:
        return False
    matcher = difflib.SequenceMatcher(None, body, other, autojunk=False)
    return (
        matcher.real_quick_ratio() >= SAME_TEST_RATIO
        and matcher.quick_ratio() >= SAME_TEST_RATIO
        and matcher.ratio() >= SAME_TEST_RATIO
    )


def _deletion(path: str, tests: list[TestFacts], file_remains: bool) -> Trick:
    """One trick per file: each test deleted from it, or the whole file with its tests."""
    if not file_remains:
        what = f"{path} deleted with {len(tests)} test(s) while the code they test remains"
    elif len(tests) == 1:
        (test,) = tests
        what = f"{test.name} deleted (line {test.line} at the base) while the code it tests remains"
    else:
        names = listed([test.name for test in tests])
        what = f"{len(tests)} tests deleted ({names}) while the code they test remains"
    return Trick("evidence", "test-deleted", path, None, f"{what}: a deleted test proves nothing")


def _removed_definitions(base: dict[str, ModuleFacts], head: dict[str, ModuleFacts]) -> set[str]:
    """Names the base's code (not its tests) defined that no changed file defines any more."""
    before = {name for module in base.values() if not module.test_file for name in module.defined}
    after = {name for module in head.values() for name in module.defined}
    return before - after


def _weakened_tests(base: dict[str, ModuleFacts], head: dict[str, ModuleFacts]) -> list[Trick]:
    before, after = _collected(base), _collected(head)
    tricks: list[Trick] = []
    for (path, name), now in after.items():
        was = before.get((path, name))
        tricks.extend(_fake_checks(path, now, was))
        if was is not None:
            tricks.extend(_skips(path, name, was.skips, now.skips))
            tricks.extend(_weaker_checks(path, was, now))
    return tricks


#: The checks that cannot fail: the ``TestFacts`` field listing their lines, the rule, and why.
_FAKE_CHECKS = (
    ("constant_asserts", "constant-assert", "asserts a constant: an assertion that cannot fail "
     "proves nothing"),
    ("swallowed_asserts", "assert-swallowed", "catches its own AssertionError: the assertion "
     "cannot fail"),
    ("early_returns", "early-return", "returns before its assertions: they never run"),
    ("source_reads", "source-read", "reads the code's source text (inspect.getsource): it "
     "fails for any change to the code, a mutant too, without checking what the code does"),
    ("escaped_asserts", "assert-escaped", "keeps an assertion that never runs or whose failure "
     "is dropped (if False:, suppress, raises(AssertionError), finally: return): it cannot "
     "fail"),
)  # fmt: skip


def _fake_checks(path: str, now: TestFacts, was: TestFacts | None) -> Iterable[Trick]:
    """Checks that cannot fail, in old and new tests alike."""
    name = now.name
    for field, rule, why in _FAKE_CHECKS:
        before: Sequence[int] = getattr(was, field) if was else []
        for line in _added(before, getattr(now, field)):
            yield Trick("evidence", rule, path, line, f"{name} {why}")
    patched_before = was.patched_self if was is not None else {}
    for patched, line in now.patched_self.items():
        if patched not in patched_before:
            yield Trick(
                "evidence",
                "patches-subject",
                path,
                line,
                f"{name} monkeypatches {patched}, the function it tests: it tests the patch, "
                "not the code",
            )


def _weaker_checks(path: str, was: TestFacts, now: TestFacts) -> Iterable[Trick]:
    name = now.name
    # An assertion replaced by a constant one is reported once, as the constant.
    constants = max(0, len(now.constant_asserts) - len(was.constant_asserts))
    lost = was.assertions - now.assertions - constants
    if lost > 0:
        yield Trick(
            "evidence",
            "assertions-removed",
            path,
            now.line,
            f"{name} lost {lost} of its {was.assertions} assertion(s): a test that checks "
            "less proves less",
        )
    for line in _added(was.broad_raises, now.broad_raises):
        yield Trick(
            "evidence",
            "broad-raises",
            path,
            line,
            f"{name} now expects any Exception: any error passes, not only the one the code "
            "should raise",
        )
    yield from _self_compares(path, was, now)
    for old, new in _approx_pairs(was, now.approx):
        wider = _widened(old, new)
        if wider:
            yield Trick(
                "evidence",
                "approx-widened",
                path,
                new.line,
                f"{name} widened the pytest.approx tolerance ({', '.join(wider)}): a wrong "
                "result close enough passes",
            )


def _approx_pairs(was: TestFacts, now: list[Approx]) -> Iterable[tuple[Approx, Approx]]:
    """Each ``pytest.approx`` of the test with the base's at its place; one the base did not
    have, of a value the base compared exactly, with pytest's default tolerance (``== 2``
    turned into ``approx(2, abs=1)`` widens it; ``approx(2)``, or a new value, does not)."""
    default = Approx(*DEFAULT_APPROX, 0)
    pairs = list(zip(was.approx, now, strict=False))
    added = now[len(was.approx) :]
    return pairs + [(default, new) for new in added if new.expected in was.exact_literals]


def _self_compares(path: str, was: TestFacts, now: TestFacts) -> Iterable[Trick]:
    """Assertions the change made compare an expression with itself (the test existed)."""
    before = {text for _, text in was.self_compares}
    for line, text in now.self_compares:
        if text not in before:
            yield Trick(
                "evidence",
                "self-compare",
                path,
                line,
                f"{now.name} now compares an expression with itself ({text}): it passes "
                "whatever the code returns",
            )


def _widened(old: Approx, new: Approx) -> list[str]:
    """The tolerances of a ``pytest.approx`` that grew, from what to what."""
    return [
        f"{what} {before:g} to {after:g}"
        for what, before, after in (("rel", old.rel, new.rel), ("abs", old.abs, new.abs))
        if after > before
    ]


def _skips(
    path: str, name: str, was: Sequence[SkipFeature], now: Sequence[SkipFeature]
) -> Iterable[Trick]:
    for feature in beyond(was, now, key=attrgetter("kind")):
        yield _skip_trick(path, name, feature)


#: A skip feature's kind -> the rule and the sentence of the trick (``{how}``: the feature).
_SKIP_TRICKS = {
    "xfail": ("newly-xfailed", "newly marked as an expected failure ({how}, not strict): it "
              "passes the run whether it fails or not"),
    "importorskip": ("importorskip-added", "newly skipped when an import fails ({how}): a "
                     "missing dependency hides the tests"),
    "skip": ("newly-skipped", "newly skipped ({how}): a skipped failing test is not a fix"),
}  # fmt: skip


def _skip_trick(path: str, name: str, feature: SkipFeature) -> Trick:
    rule, sentence = _SKIP_TRICKS.get(feature.kind, _SKIP_TRICKS["skip"])
    message = f"{name} {sentence.format(how=feature.how)}"
    return Trick("evidence", rule, path, feature.line, message)


def _module_skips(base: dict[str, ModuleFacts], head: dict[str, ModuleFacts]) -> list[Trick]:
    """Skips outside any test: module marks, class marks, skips in fixtures and helpers."""
    tricks: list[Trick] = []
    for path, module in head.items():
        was = base.get(path)
        if was is None and not path.endswith("conftest.py"):
            continue  # a new module's own skips hide none of the evidence the base had
        tricks.extend(
            _skip_trick(path, "tests of this module", feature)
            for feature in _added_module_skips(was, module)
        )
    return tricks


def _added_module_skips(was: ModuleFacts | None, module: ModuleFacts) -> list[SkipFeature]:
    """The module's skips outside tests beyond the base's, on classes the base had."""
    if was is None:
        return [f for f in module.module_skips if not f.owner]
    classes = {name.split("::")[0] for name in was.tests}
    # A mark on a test class the base did not have hides none of the base's evidence.
    now = [f for f in module.module_skips if not f.owner or f.owner in classes]
    return beyond(was.module_skips, now, key=attrgetter("kind"))


def _collection_controls(base: dict[str, ModuleFacts], head: dict[str, ModuleFacts]) -> list[Trick]:
    tricks: list[Trick] = []
    for path, module in head.items():
        old = base[path].collection_controls if path in base else {}
        for name, (line, digest) in module.collection_controls.items():
            how = _control_change(old.get(name), digest)
            if how:
                tricks.append(_control_trick(path, line, name, how))
    return tricks


def _control_trick(path: str, line: int, name: str, how: str) -> Trick:
    if "." in name:  # an attribute of the project's code, replaced when pytest imports it
        message = (
            f"{name} replaced in conftest.py ({how}): every test runs the replacement, not the "
            "project's code"
        )
        return Trick("evidence", "patches-subject", path, line, message)
    if name in OUTCOME_HOOKS:
        message = f"{name} {how} in conftest.py: it can change the outcome a test is reported with"
        return Trick("evidence", "outcome-hook", path, line, message)
    message = f"{name} {how} in conftest.py: it can take tests out of the run"
    return Trick("evidence", "collection-hook", path, line, message)


def _control_change(was: tuple[int, str] | None, digest: str) -> str:
    """``added``, ``changed`` or "" (the same) for a collection control of the work tree."""
    if was is None:
        return "added"
    return "changed" if was[1] != digest else ""


def _deselected(
    sources: ChangedSources,
    base: dict[str, ModuleFacts],
    head: dict[str, ModuleFacts],
    collected: Sequence[str],
    first_party: frozenset[str],
) -> list[Trick]:
    """Tests of the base still in the work tree that the run did not collect.

    Only files the run collected from are read (changed or not), so a run of some of the
    files is not taken for deselection.
    """
    run_ids = {_without_parameters(node_id) for node_id in collected}
    run_files = sorted({node_id.split("::", 1)[0] for node_id in run_ids})
    tricks: list[Trick] = []
    for path in run_files:
        now = head.get(path) or _unchanged_module(sources, path, first_party)
        if now is None:
            continue
        tricks.extend(_not_run(path, _base_tests(path, base, head, now), now, run_ids))
    return tricks


def _not_run(
    path: str, had: dict[str, TestFacts], now: ModuleFacts, run_ids: set[str]
) -> list[Trick]:
    """The tests of ``path`` the base and the work tree both collect that the run did not."""
    return [
        _deselection(path, name, test)
        for name, test in now.tests.items()
        if _collected_both(had.get(name), test) and f"{path}::{name}" not in run_ids
    ]


def _base_tests(
    path: str, base: dict[str, ModuleFacts], head: dict[str, ModuleFacts], now: ModuleFacts
) -> dict[str, TestFacts]:
    """The base's tests of a file; a file the change did not touch is as the work tree has it."""
    if path in base:
        return base[path].tests
    return now.tests if path not in head else {}


def _unchanged_module(
    sources: ChangedSources, path: str, first_party: frozenset[str]
) -> ModuleFacts | None:
    """A test file the change did not touch, read from the work tree; None if none is there."""
    text = sources.head_text(path) if is_test_file(path) else None
    if text is None:
        return None
    return read_module(path, _parse(text, path, "the work tree"), first_party)


def _collected_both(was: TestFacts | None, now: TestFacts) -> bool:
    return now.collected and was is not None and was.collected


def _deselection(path: str, name: str, test: TestFacts) -> Trick:
    return Trick(
        "evidence",
        "test-deselected",
        path,
        test.line,
        f"{name} was not collected by this run (deselected by -k, -m, "
        "--deselect or a hook): a test that does not run proves nothing",
    )


def _without_parameters(node_id: str) -> str:
    return node_id.split("[", 1)[0]


def _added(was: Sequence[int], now: Sequence[int]) -> list[int]:
    """The last ``len(now) - len(was)`` lines of ``now``: the ones the change added."""
    extra = len(now) - len(was)
    return list(now[-extra:]) if extra > 0 else []
