"""``python -m pytest_citations`` is the ``citations`` command."""

import sys

from pytest_citations.cli import main

sys.exit(main())
