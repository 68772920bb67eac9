"""A copy of this repository as a clone would have it (plus files not yet committed), for tests that change it."""

from __future__ import annotations

import os
import shutil
import subprocess
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]


def copy_repo(target: Path) -> Path:
    listed = subprocess.run(
        ["git", "ls-files", "--cached", "--others", "--exclude-standard", "-z"],
        cwd=ROOT,
        capture_output=True,
        check=True,
    ).stdout.decode()
    for name in filter(None, listed.split("\0")):
        source = ROOT / name
        if source.is_file():
            (target / name).parent.mkdir(parents=True, exist_ok=True)
            shutil.copy2(source, target / name)
    return target


def run_in(copy: Path, *args: str, timeout: float = 300) -> subprocess.CompletedProcess[str]:
    """Run a command in the copy with the copy's code first on the path."""
    env = {**os.environ, "PYTHONPATH": f"{copy / 'lambda_src'}:{copy}"}
    return subprocess.run(args, cwd=copy, env=env, capture_output=True, text=True, timeout=timeout, check=False)
