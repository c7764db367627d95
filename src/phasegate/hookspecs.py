"""phasegate's own hook specifications, for third-party packages.

A package extends phasegate by exposing a module (or object) with functions named like the
specs below, marked with :data:`hookimpl`, under the ``phasegate`` entry-point group::

    [project.entry-points.phasegate]
    my_checks = "my_package.phasegate_plugin"

or by listing the module in ``plugins = [...]`` of ``[tool.phasegate]``. As with pluggy, an
implementation may accept fewer arguments than the spec names, so specs can grow.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import pluggy

if TYPE_CHECKING:
    from collections.abc import Sequence

    from phasegate.autodebug.patterns.base import Pattern
    from phasegate.gates.protocol import AnyCheck
    from phasegate.model.gate import GateVerdict
    from phasegate.model.run import RunReport
    from phasegate.model.workflow import MemoryUpdate, WorkflowEvent
    from phasegate.report.formats import ReportFormat
    from phasegate.report.markdown import ExtraSection

__all__ = [
    "PROJECT_NAME",
    "hookimpl",
    "hookspec",
    "phasegate_autodebug_patterns",
    "phasegate_on_event",
    "phasegate_on_memory_sync",
    "phasegate_register_checks",
    "phasegate_report_formats",
    "phasegate_report_ready",
    "phasegate_report_sections",
]

#: The pluggy project name, and the entry-point group third parties register under.
PROJECT_NAME = "phasegate"

hookspec = pluggy.HookspecMarker(PROJECT_NAME)
hookimpl = pluggy.HookimplMarker(PROJECT_NAME)


@hookspec
def phasegate_report_ready(report: RunReport) -> None:
    """Called with the finished run report, just before it is written.

    Observers read it (to forward metrics, say); they must not change it.

    .. versionadded:: 0.1
    """


@hookspec
def phasegate_register_checks() -> list[AnyCheck] | None:
    """Return check objects to add to the gate engine (see :mod:`phasegate.gates.protocol`).

    A gate uses a registered check by naming its ``id`` under ``[checks.<id>]``. Ids must be
    unique: a plugin may not replace a built-in check.

    .. versionadded:: 0.1
    """


@hookspec
def phasegate_on_event(event: WorkflowEvent) -> None:
    """Called with every workflow event, after it was appended to ``.phasegate/events.jsonl``.

    ``event.name`` is ``workflow.{workflow}.{instance}.{event}``. Observers read it; an
    observer that raises is reported and does not undo the action.

    .. versionadded:: 0.1
    """


@hookspec
def phasegate_on_memory_sync(
    instance_id: str, phase: str, items: list[MemoryUpdate] | None
) -> None:
    """The final sync hook: called when a phase's queued updates were flushed.

    ``items`` are the updates written to the memory store, in order; ``None`` when flushing
    failed or no store is configured (the updates then stay queued), so that observers are
    never left waiting for state propagation.

    .. versionadded:: 0.1
    """


@hookspec
def phasegate_report_sections(
    verdict: GateVerdict | None, report: RunReport | None
) -> list[ExtraSection] | None:
    """Return sections to add to the Markdown report (after the review state).

    The TDD ledger, for one, shows the state of its cycles here. Bodies are Markdown that the
    plugin has made safe; give a ``compact`` form for when the report runs out of room.

    .. versionadded:: 0.1
    """


@hookspec
def phasegate_report_formats() -> Sequence[ReportFormat] | None:
    """Return report formats to add to ``phasegate report`` and the GitHub bundle.

    Each is an object with ``name``, ``description``, ``reads``, ``bundle_file``,
    ``step_output`` and ``render(bundle, context)``, as
    :class:`phasegate.report.formats.ReportFormat` describes. ``phasegate report NAME``
    renders it, and ``phasegate report github`` writes it into the artifacts folder (or the
    step's log). Names must be unique: a plugin may not replace a built-in format. A format
    that raises or returns anything but text is an error naming it.

    .. versionadded:: 0.1
    """


@hookspec
def phasegate_autodebug_patterns() -> Sequence[Pattern]:
    """Return auto-debug patterns to use besides the built-in ones.

    Each is an object with ``name``, ``error_class``, ``classify(failure)``,
    ``propose(diagnosis, project)`` and ``explain(diagnosis, candidate)``, as
    :class:`phasegate.autodebug.patterns.Pattern` describes. They are asked before the
    built-in patterns, in the order the hook returns them, so a plugin can take over a
    failure a built-in pattern would claim. ``classify`` runs where the test ran (a
    pytest-xdist worker), ``propose`` where artifacts are written; the plugin must be loaded
    in both, which an entry point or ``plugins = [...]`` ensures.

    .. versionadded:: 0.1
    """
    return ()
