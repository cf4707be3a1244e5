"""Briefs (brief-citation-contract.md): the brief's parser and model, its rules, the source
registry, the evidence store and ``citations brief``/``citations store``."""
