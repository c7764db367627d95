"""Renderers: the same artifacts shown in a terminal, a pull request or code scanning.

Nothing here imports pytest or writes an artifact: a renderer reads models (for the
command line, the :class:`~phasegate.report.bundle.Bundle` of one artifacts folder) and
returns text or styled lines. The pytest plugin shows the terminal sections;
``phasegate report ...`` (``phasegate.cli.report``) renders and publishes the rest, every
format it knows taken from the registry (``formats``).

One module, one job:

===============  ============================================================================
``bundle``       the artifacts a report is rendered from, read from one artifacts folder
``formats``      the report format protocol and registry (the ``phasegate_report_formats`` hook)
``standard``     the built-in formats (Markdown, SARIF, annotations), registered by that hook
``terminal``     the short ``phasegate`` section at the end of a pytest run, and the verdict
``tdd``          the TDD verdict and cycle state, for the terminal and the command line
``autodebug``    the auto-debug section at the end of a pytest run
``markdown``     the pull-request comment or job summary, within GitHub's limits
``sarif``        SARIF 2.1.0 for GitHub code scanning
``annotations``  findings as GitHub workflow commands (``::error file=...``)
``diff``         ``phasegate report diff BASE HEAD``: what changed between two runs
``comment``      the one sticky phasegate comment on a pull request (GitHub's REST API)
``escape``       untrusted text put safely into Markdown
``limits``       GitHub's size limits, and a budget that measures against them
===============  ============================================================================
"""
