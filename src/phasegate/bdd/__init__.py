"""phasegate's pytest-bdd step library, for phase-progression scenarios.

Load the steps as a pytest plugin in your ``conftest.py`` and bind your feature files::

    # conftest.py
    pytest_plugins = ["phasegate.bdd.steps"]

    # tests/test_features.py
    from pytest_bdd import scenarios

    scenarios("../features")

The steps drive the real workflow engine in a fresh project folder per scenario (see
``docs/bdd.md`` for every step). :mod:`phasegate.bdd.probe` is the pytest plugin the
``scenarios`` gate check runs to find unbound steps. This package needs the ``bdd`` extra
(pytest-bdd 9.0.1 with pytest < 9.2); importing it without pytest-bdd says how to install it.
"""

from __future__ import annotations

from phasegate.optional import require

require("pytest_bdd", what="phasegate.bdd", package="pytest-bdd", extra="bdd")
