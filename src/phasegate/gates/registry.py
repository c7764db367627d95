"""Which checks exist: the built-in ones and those third-party packages register.

A package adds checks by implementing the ``phasegate_register_checks`` hook (see
:mod:`phasegate.hookspecs`), registered under the ``phasegate`` entry-point group or listed in
``plugins = [...]`` of ``[tool.phasegate]``. Built-in checks are imported only when a gate
asks for them.
"""

from __future__ import annotations

import difflib
import importlib
from collections.abc import Iterable
from dataclasses import dataclass
from typing import TYPE_CHECKING

import pluggy

from phasegate.errors import UsageError
from phasegate.gates.protocol import AnyCheck, Check

__all__ = ["BUILT_IN", "SESSION_CHECKS", "CheckRegistry", "RegisteredCheck"]

#: Built-in checks: id -> "module:Class".
BUILT_IN: dict[str, str] = {
    "syntax": "phasegate.gates.checks.syntax:SyntaxCheck",
    "tests": "phasegate.gates.checks.tests:TestsCheck",
    "coverage": "phasegate.gates.checks.coverage:CoverageCheck",
    "lint": "phasegate.gates.checks.lint:LintCheck",
    "security": "phasegate.gates.checks.security:SecurityCheck",
    "build": "phasegate.gates.checks.build:BuildCheck",
    "deps": "phasegate.gates.checks.deps:DepsCheck",
    "breaking": "phasegate.gates.checks.breaking:BreakingCheck",
    "review": "phasegate.gates.checks.review:ReviewCheck",
    "perf": "phasegate.gates.checks.perf:PerfCheck",
    "docs": "phasegate.gates.checks.docs:DocsCheck",
    "commit": "phasegate.gates.checks.commit:CommitCheck",
    "types": "phasegate.gates.checks.types:TypesCheck",
    "complexity": "phasegate.gates.checks.complexity:ComplexityCheck",
    "request": "phasegate.gates.checks.request:RequestCheck",
    "spec": "phasegate.gates.checks.spec:SpecCheck",
    "plan": "phasegate.gates.checks.plan:PlanCheck",
    "scenarios": "phasegate.gates.checks.scenarios:ScenariosCheck",
    "tdd": "phasegate.tdd.check:TddCheck",
    "mutation": "phasegate.gates.checks.mutation:MutationCheck",
    "integrity": "phasegate.gates.checks.integrity:IntegrityCheck",
}

if TYPE_CHECKING:
    # mypy proves that each built-in check follows the protocol with its own options model
    # (at run time a built-in check is imported only when a gate names it).
    from phasegate.gates.checks import (
        breaking,
        build,
        commit,
        complexity,
        coverage,
        deps,
        docs,
        integrity,
        lint,
        mutation,
        perf,
        plan,
        request,
        review,
        scenarios,
        security,
        spec,
        syntax,
        tests,
        types,
    )
    from phasegate.gates.protocol import NoOptions
    from phasegate.tdd import check as tdd_check

    _syntax: Check[NoOptions] = syntax.SyntaxCheck()
    _tests: Check[NoOptions] = tests.TestsCheck()
    _coverage: Check[NoOptions] = coverage.CoverageCheck()
    _lint: Check[NoOptions] = lint.LintCheck()
    _security: Check[security.SecurityOptions] = security.SecurityCheck()
    _build: Check[build.BuildOptions] = build.BuildCheck()
    _deps: Check[NoOptions] = deps.DepsCheck()
    _breaking: Check[NoOptions] = breaking.BreakingCheck()
    _review: Check[NoOptions] = review.ReviewCheck()
    _perf: Check[perf.PerfOptions] = perf.PerfCheck()
    _docs: Check[NoOptions] = docs.DocsCheck()
    _commit: Check[commit.CommitOptions] = commit.CommitCheck()
    _types: Check[NoOptions] = types.TypesCheck()
    _complexity: Check[complexity.ComplexityOptions] = complexity.ComplexityCheck()
    _request: Check[request.RequestOptions] = request.RequestCheck()
    _spec: Check[spec.SpecOptions] = spec.SpecCheck()
    _plan: Check[plan.PlanOptions] = plan.PlanCheck()
    _scenarios: Check[scenarios.ScenariosOptions] = scenarios.ScenariosCheck()
    _tdd: Check[NoOptions] = tdd_check.TddCheck()
    _mutation: Check[mutation.MutationOptions] = mutation.MutationCheck()
    _integrity: Check[integrity.IntegrityOptions] = integrity.IntegrityCheck()

#: The built-in checks of ``kind = "session"`` (they read the test run), known without importing
#: them: the static checks' process leaves them out of its plan (a test keeps this true).
SESSION_CHECKS = frozenset({"coverage", "integrity", "mutation", "perf", "review", "tdd", "tests"})


@dataclass(frozen=True)
class RegisteredCheck:
    """A check and where it came from (``built-in`` or the registering plugin's name)."""

    check: AnyCheck
    origin: str


class CheckRegistry:
    """Looks checks up by id, built-in first, then those plugins register."""

    def __init__(self, extensions: pluggy.PluginManager | None = None) -> None:
        self._plugin_checks: dict[str, RegisteredCheck] = {}
        if extensions is not None:
            self._collect(extensions)

    def ids(self) -> list[str]:
        """Every known check id, built-in ones first."""
        return [*BUILT_IN, *sorted(self._plugin_checks)]

    def get(self, check_id: str) -> RegisteredCheck:
        """The check with this id, or a usage error that lists the known ones."""
        if check_id in BUILT_IN:
            module_name, _, class_name = BUILT_IN[check_id].partition(":")
            check_class = getattr(importlib.import_module(module_name), class_name)
            return RegisteredCheck(check_class(), "built-in")
        if check_id in self._plugin_checks:
            return self._plugin_checks[check_id]
        known = self.ids()
        hint = difflib.get_close_matches(check_id, known, n=1)
        guess = f"; did you mean {hint[0]!r}?" if hint else ""
        raise UsageError(f"unknown check {check_id!r}; known checks: {', '.join(known)}{guess}")

    def _collect(self, extensions: pluggy.PluginManager) -> None:
        hook = extensions.hook.phasegate_register_checks
        for impl in hook.get_hookimpls():
            returned: object = impl.function()
            if returned is None:
                continue
            if not isinstance(returned, Iterable):
                raise UsageError(
                    f"plugin {impl.plugin_name!r} returned {returned!r} from "
                    "phasegate_register_checks, which must return a list of checks"
                )
            for check in returned:
                self._register(check, impl.plugin_name)

    def _register(self, check: object, origin: str) -> None:
        """Add a plugin's check; a usage error for one that is not a check or takes an id."""
        if isinstance(check, type):  # it has a check's attributes, but its methods are unbound
            raise UsageError(
                f"plugin {origin!r} registered the class {check.__qualname__}, not a check: "
                f"return an instance, {check.__qualname__}()"
            )
        if not isinstance(check, Check):
            raise UsageError(
                f"plugin {origin!r} registered {check!r}, which is not a check: it "
                "needs id, title, kind, metrics, default_conditions, options_model, "
                "tool_info(), cache_inputs() and measure()"
            )
        if check.id in BUILT_IN or check.id in self._plugin_checks:
            raise UsageError(
                f"plugin {origin!r} registers the check {check.id!r}, but that id is "
                "taken; give the check another id"
            )
        self._plugin_checks[check.id] = RegisteredCheck(check, origin)
