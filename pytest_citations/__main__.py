"""``python -m pytest_citations`` is the ``citations`` command."""

import sys

from pytest_citations.frontends.cli import main

sys.exit(main())
