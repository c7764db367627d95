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

One module, one job:

=================  ===========================================================================
``settings``       ``[tool.phasegate.autodebug]``: what auto-debug may touch, how long it tries
``live``           the live exception and its frames, taken apart where the test ran
``patterns/``      the failure families auto-debug knows (``patterns/base`` is the
                   :class:`~phasegate.autodebug.patterns.base.Pattern` protocol a third party
                   implements), classification with them, and their repairs
``diagnosis``      what a failure is (``Diagnosis``) and what might repair it (``Candidate``)
``source``         small, exact edits of Python source text, for building candidates
``distance``       how far apart two identifiers are
``stdlib``         the standard library as a source of missing imports
``context_index``  an index of the project's own definitions (TF-IDF or keywords)
``project``        the project as auto-debug sees it: its files, which it may edit, its modules
``unbound``        the names a file reads that nothing binds (a candidate adding one is
                   dropped before it costs a re-run)
``workspace``      a candidate written into the real files, every byte put back afterwards
``runner``         the tests re-run in a subprocess, and what each test did read back
``validate``       a candidate kept only if it fixes the failure without breaking anything
``localize``       suspicious functions ranked (Ochiai) where no repair was found
``engine``         the loop: group, propose, validate, keep or escalate, localize (and put
                   back a lost None guard in the suspects, ``patterns/lost_guards``), report
=================  ===========================================================================

``phasegate.plugin.autodebug`` and ``phasegate.cli.autodebug`` are the front ends. This
``__init__`` stays empty so that importing one part does not import the rest.
"""
