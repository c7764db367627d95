"""Every scenario in features/, bound to phasegate's step library (tests/conftest.py loads it)."""

from __future__ import annotations

from pytest_bdd import scenarios

scenarios("../../features")
