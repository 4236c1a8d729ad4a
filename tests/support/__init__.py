"""Helpers the tests share (browser, classroom servers and sessions); fixtures are in ``tests/conftest.py``."""
