"""What several test modules share: where the tables are, and the installed executable.

Test modules import from here (and from ``oracles``), never from one another.
"""

import shutil
import subprocess
import sys
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
INSTANCES = ROOT / "instances"
FUZZ = INSTANCES / "fuzz"
SHARED = ROOT.parent / "shared" / "instances"


def executable() -> list[str]:
    """The console script next to this interpreter (the one ``pip install`` made)."""
    script = Path(sys.executable).with_name("cspopt")
    if script.exists():
        return [str(script)]
    found = shutil.which("cspopt")
    if found is None:
        pytest.fail("the cspopt executable is not installed (pip install -e .)")
    return [found]


def run(*args: str, timeout: float = 300) -> subprocess.CompletedProcess:
    """``cspopt *args`` in a subprocess, as a user runs it."""
    return subprocess.run([*executable(), *args], capture_output=True, text=True,
                          timeout=timeout)
