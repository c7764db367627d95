"""Verdict integrity: what a change does to the evidence, judged against its base.

A gate is worth what it costs to fool. This engine reads each file the change touches twice,
at the base commit and in the work tree (:mod:`~phasegate.integrity.sources`), and reports
every way the change weakens the evidence instead of fixing the code, one
:class:`~phasegate.integrity.trick.Trick` per trick, one family per module:

* :mod:`~phasegate.integrity.evidence` (with :mod:`~phasegate.integrity.testcode`, which
  reads a test module): tests deleted, renamed out of collection, skipped, deselected, or
  with assertions removed or weakened; :mod:`~phasegate.integrity.special_cases`: a test's
  input special-cased in the code the change adds;
* :mod:`~phasegate.integrity.suppressions`: ``noqa``, ``type: ignore``, ``nosec``,
  ``pragma: no cover`` and their kin added without the code and reason the policy asks;
* :mod:`~phasegate.integrity.configuration` (with :mod:`~phasegate.integrity.settings_files`,
  which reads the tools' settings): coverage, ruff, mypy, bandit and pytest settings loosened;
* :mod:`~phasegate.integrity.gatechanges`: the gate itself loosened (gate files,
  ``[tool.phasegate]``, the baseline of accepted findings).

No pytest import here: the ``integrity`` check (:mod:`phasegate.gates.checks.integrity`) is
the front end. The one constant its options need is defined here, so that planning a gate
imports no family (the suppressions module compiles its directives' expressions on import).
"""

__all__ = ["DEFAULT_REASON_PATTERN"]

#: A suppression's reason is at least two words (the default of the integrity check's options).
DEFAULT_REASON_PATTERN = r"\w+\W+\w+"
