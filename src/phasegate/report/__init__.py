"""Renderers: the same artifacts shown in a terminal, a pull request or code scanning."""
