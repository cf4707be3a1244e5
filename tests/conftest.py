import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PROJECT = TESTS.parent
REALDATA = PROJECT.parent / "shared" / "realdata"
sys.path.insert(0, str(TESTS))


@pytest.fixture
def realdata() -> Path:
    """The shared folder of real files from public projects, read in place."""
    if not REALDATA.is_dir():
        pytest.skip(f"real-data folder {REALDATA} is absent (it sits beside the project in the shared workspace)")
    return REALDATA
