"""EAR identifiers (ear-identifier-policy.md): canonical section ids in eval datasets, the corpus and
the knowledge graph, and their rules."""
