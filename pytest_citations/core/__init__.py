"""The core every layer stands on: reading files from the checkout (``sources``), settings
(``config``, ``globs``), diagnostics and what silences them (``suppressions``, ``baseline``), and the
hardened readers shared by the kinds (JSON Lines, YAML front matter, Markdown prose, timestamps,
git)."""
