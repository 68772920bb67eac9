"""`make tutorial-check`: the tutorial, "Build your own app" (docs/tutorial.md), followed word for word in a copy of
this repository, then that copy's own full `make test`, which must pass (the tutorial promises it does right after).

The tutorial is followed twice, as it offers: as written (`make app NAME=weather`, on the display host) and with
`WIDGET=1` (for forecast, a widget of its own); each through its `make test-app`. The copy's `make test` then
runs every layer against the copy's code, the new apps included, and its own tutorial tests copy the copy again,
so they must find names that do not collide with the apps just made. The copy borrows this checkout's installed
tools (.tools, .venv, node_modules: symlinks, so nothing is downloaded again); everything else is its own.
It takes as long as a `make test` and then some: minutes, so it is not part of `make test`.
"""

from __future__ import annotations

import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from readme_tutorial import TUTORIAL_APPS, follow, unused_name
from repo_copy import ROOT, copy_repo

# What `make` installs in a checkout, borrowed by the copy when this checkout has it.
INSTALLED = (".tools", ".venv", "widget_bundles/node_modules", "infra/node_modules")


def environment(copy: Path) -> dict[str, str]:
    """This environment without what the make running this script exported to it (its flags, PYTHONPATH)."""
    env = {k: v for k, v in os.environ.items() if k not in {"MAKEFLAGS", "MAKELEVEL", "MFLAGS", "PYTHONPATH"}}
    return env | {"PYTHONPATH": f"{copy / 'lambda_src'}:{copy}"}


def run(copy: Path, *command: str) -> None:
    print(f"tutorial-check: {' '.join(command)}", flush=True)
    done = subprocess.run(command, cwd=copy, env=environment(copy), check=False)
    if done.returncode != 0:
        raise SystemExit(f"tutorial-check: `{' '.join(command)}` failed in the copy {copy} (exit {done.returncode})")


def as_a_clone(copy: Path) -> Path:
    """Commit the copy into a repository of its own: the user follows the tutorial in a clone, and the copy's own
    tests list its files with git (a user's new app is then untracked, as it would be)."""
    git = ("git", "-c", "user.name=tutorial-check", "-c", "user.email=tutorial-check@localhost")
    for command in (("init", "--quiet"), ("add", "--all"), ("commit", "--quiet", "--no-verify", "-m", "clone")):
        subprocess.run((*git, *command), cwd=copy, check=True)
    return copy


def main() -> int:
    started = time.monotonic()
    with tempfile.TemporaryDirectory(prefix="tutorial-check-") as folder:
        copy = as_a_clone(copy_repo(Path(folder)))
        for name in INSTALLED:
            if (ROOT / name).exists():
                (copy / name).symlink_to(ROOT / name)
        made = []
        for base, widget in TUTORIAL_APPS.values():
            name = unused_name(copy, base, widget=widget)
            print(f"tutorial-check: following the tutorial for {name}{' with WIDGET=1' if widget else ''}")
            for command in follow(copy, name, widget=widget, make=True):
                run(copy, *command)
            made.append(name)
        run(copy, "make", "test")
    minutes = (time.monotonic() - started) / 60
    print(
        f"tutorial-check: the tutorial followed for {', '.join(made)}; the copy's make test passed ({minutes:.1f} min)"
    )
    return 0


if __name__ == "__main__":
    sys.exit(main())
