"""The error both URL normalization profiles raise: :mod:`~pytest_citations.kinds.url_citations.urls`
(the spec's steps, and the choice of profile) and :mod:`~pytest_citations.kinds.url_citations.whatwg`,
which urls.py loads only for the ``whatwg`` profile. Callers catch it as ``urls.NotAbsoluteURL``."""

from __future__ import annotations


class NotAbsoluteURL(ValueError):
    """The URL has no scheme or no host, so it cannot be normalized."""
