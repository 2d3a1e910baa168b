from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"
SHARED = ROOT.parent / "shared" / "instances"


@pytest.fixture
def shared_instances() -> Path:
    if not SHARED.is_dir():
        pytest.skip(f"{SHARED} is not present (CI places ../shared beside the clone)")
    return SHARED
