"""pytest-citations: prove that the citations in a repository are real and still true."""

__version__ = "0.1.0"
