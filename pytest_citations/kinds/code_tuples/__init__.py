"""Code citation tuples (rlm-citation-tuple.schema.json): tuples in JSON and in prose, with their
content hash and line range, and their rules."""
