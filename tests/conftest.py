from pathlib import Path

import pytest
from helpers import SHARED


@pytest.fixture
def shared_instances() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not present (CI places ../shared beside the clone)")
    return SHARED
