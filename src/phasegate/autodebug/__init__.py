"""Auto-debug: classify each failure, propose repairs, prove them by re-running the tests.

The engine never imports pytest. The pieces, in the order a failure meets them:

* :mod:`~phasegate.autodebug.live` takes the live exception and its frames apart (in the
  process that ran the test) and :mod:`~phasegate.autodebug.patterns` turn it into a
  :class:`~phasegate.autodebug.diagnosis.Diagnosis` of plain data;
* in the process that writes artifacts, each pattern proposes ranked
  :class:`~phasegate.autodebug.diagnosis.Candidate` repairs, helped by
  :mod:`~phasegate.autodebug.distance`, :mod:`~phasegate.autodebug.stdlib` and the project's
  :mod:`~phasegate.autodebug.context_index`;
* :mod:`~phasegate.autodebug.validate` applies one candidate at a time through
  :mod:`~phasegate.autodebug.workspace` (which restores every file byte for byte), re-runs the
  tests with :mod:`~phasegate.autodebug.runner`, and keeps a repair only when the failing
  tests pass and nothing new fails;
* :mod:`~phasegate.autodebug.localize` ranks suspicious functions (Ochiai) for failures
  without a repair, and :mod:`~phasegate.autodebug.engine` ties it together into the
  :class:`~phasegate.model.autodebug.AutodebugReport`.
"""
