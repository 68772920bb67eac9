"""How `make test` spreads tests over pytest-xdist workers (tests/worker_groups.py), checked on a small tree run the
way `make test` runs: each file runs whole on one worker, and files that use one `once_per_run` fixture, or carry one
`xdist_group` mark, share a worker, so that fixture is built once in the whole run."""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections import defaultdict
from pathlib import Path

TESTS = Path(__file__).resolve().parents[1]
TESTS_PER_FILE = 12
XDIST_ONLY = ["-p", "xdist", "-p", "no:cacheprovider"]  # with PYTEST_DISABLE_PLUGIN_AUTOLOAD: workers start in a blink

CONFTEST = f"""
import sys
from pathlib import Path

sys.path.insert(0, {str(TESTS)!r})
from worker_groups import (
    once_per_run,
    pytest_collection_modifyitems,
    pytest_configure,
    pytest_configure_node,
    pytest_unconfigure,
    pytest_xdist_make_scheduler,
)


@once_per_run
def costly():
    with (Path(__file__).parent / "built.log").open("a") as log:
        log.write("built\\n")
"""


def _file(fixture: str = "", mark: str = "") -> str:
    head = f"import pytest\npytestmark = pytest.mark.xdist_group({mark!r})\n" if mark else ""
    return head + "".join(f"def test_{i}({fixture if i == 0 else ''}): pass\n" for i in range(TESTS_PER_FILE))


def test_a_file_runs_on_one_worker_and_files_sharing_a_costly_fixture_or_a_group_share_one(tmp_path: Path) -> None:
    (tmp_path / "conftest.py").write_text(CONFTEST)
    files = {
        "test_synth_a.py": _file(fixture="costly"),  # only its first test uses the fixture: the whole file follows
        "test_plain_b.py": _file(),
        "test_marked_c.py": _file(mark="pair"),
        "test_plain_d.py": _file(),
        "test_synth_e.py": _file(fixture="costly"),
        "test_plain_f.py": _file(),
        "test_marked_g.py": _file(mark="pair"),
        "test_plain_h.py": _file(),
    }
    for name, text in files.items():
        (tmp_path / name).write_text(text)
    ran = subprocess.run(
        [sys.executable, "-m", "pytest", *XDIST_ONLY, "-n", "2", "--dist", "loadgroup", "-v"],
        cwd=tmp_path,
        env={**os.environ, "PYTEST_DISABLE_PLUGIN_AUTOLOAD": "1"},
        capture_output=True,
        text=True,
        timeout=300,
        check=False,
    )
    assert ran.returncode == 0, ran.stdout[-3000:] + ran.stderr[-3000:]
    workers: dict[str, set[str]] = defaultdict(set)
    for worker, path in re.findall(r"\[(gw\d+)\] \[\s*\d+%\] PASSED (\S+?)::test_\d+", ran.stdout):
        workers[path].add(worker)
    assert sum(len(found) for found in workers.values()) >= len(files), ran.stdout[-3000:]
    assert all(len(found) == 1 for found in workers.values()), dict(workers)
    assert workers["test_synth_a.py"] == workers["test_synth_e.py"]
    assert workers["test_marked_c.py"] == workers["test_marked_g.py"]
    assert set().union(*workers.values()) == {"gw0", "gw1"}, dict(workers)  # spread, not all on one worker
    assert (tmp_path / "built.log").read_text() == "built\n"
    assert f"{len(files) * TESTS_PER_FILE} passed" in ran.stdout
