"""Memories (memory-citation-schema.md): front matter citations of repository files, their rules,
the refresh of moved citations and ``citations memory``."""
