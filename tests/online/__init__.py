"""The online check's tests (a package: see conftest.py)."""
