"""Debian's CPython 3.13 (trixie), for this machine natively and for another architecture under qemu.

Lambda's Python is 3.13; this machine's may not be, and uv's managed Pythons download from GitHub. Debian's
archive has 3.13 for every architecture. Its packages (the interpreter, its standard library and the shared
libraries they link) are fetched with `apt-get download` through a private APT configuration in a cache folder,
and unpacked with `dpkg -x` into one root per architecture: the machine's apt sources, architectures and
installed packages are never touched, and no root is needed. The root's own loader runs the interpreter (trixie's
glibc is newer than the host's); a foreign architecture runs under `qemu-<machine>` (Debian's static qemu-user,
fetched the same way unless the machine has one). The roots' standard libraries are compiled once when unpacked,
as Debian's postinst does.

`python -m widget_mcp.lambda_asset.debian_python [--arch arm64]` fetches what is missing and prints the
interpreter's command.
"""

from __future__ import annotations

import argparse
import contextlib
import fcntl
import getpass
import os
import platform
import re
import shutil
import subprocess
import sys
import tempfile
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from pathlib import Path

SUITE = "trixie"
MIRROR = "http://deb.debian.org/debian"
# debian-archive-keyring; bookworm's already holds trixie's signing keys.
KEYRING = Path("/usr/share/keyrings/debian-archive-keyring.gpg")
VERSION = "3.13"
# The interpreter and its standard library; their Depends closure adds the shared libraries.
ROOTS = (f"python{VERSION}-minimal", f"libpython{VERSION}-minimal", f"libpython{VERSION}-stdlib")
# Data and configuration packages an interpreter run with -I -S does without; skipping them also skips what
# they pull in (debconf, perl). The Debian packages' maintainer scripts never run here.
SKIPPED = frozenset({"tzdata", "media-types", "mime-support", "netbase", "readline-common", "debconf", "debconf-2.0"})
# trixie's qemu-user holds the static binaries (qemu-user-static became a transitional package).
QEMU_PACKAGE = "qemu-user"
# Debian architecture <- `platform.machine()`, and the machine names qemu and the ELF loaders use.
DEBIAN_ARCH = {"x86_64": "amd64", "amd64": "amd64", "aarch64": "arm64", "arm64": "arm64"}
MACHINE = {"amd64": "x86_64", "arm64": "aarch64"}
LOADER = {"amd64": "usr/lib64/ld-linux-x86-64.so.2", "arm64": "usr/lib/ld-linux-aarch64.so.1"}
DEB_NAME = re.compile(r"^(?P<name>[^_]+)_(?P<version>[^_]+)_(?P<arch>[^_]+)\.deb$")


class FetchError(RuntimeError):
    """Debian's Python could not be fetched or run; the message says why and what to do."""


def cache_dir() -> Path:
    """Where the roots live: $WIDGET_MCP_CACHE, else $XDG_CACHE_HOME/widget-mcp, else ~/.cache/widget-mcp."""
    explicit = os.environ.get("WIDGET_MCP_CACHE")
    if explicit:
        return Path(explicit)
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "widget-mcp"


def host_arch() -> str:
    machine = platform.machine()
    if machine not in DEBIAN_ARCH:
        raise FetchError(f"no Debian architecture for this machine ({machine})")
    return DEBIAN_ARCH[machine]


# --- the private APT configuration --------------------------------------------------------------------------


def apt_config(apt_dir: Path, architectures: Iterable[str], *, user: str) -> str:
    """apt.conf for a private APT: its own sources, lists and caches under `apt_dir`, never the machine's."""
    arches = list(architectures)
    lines = [
        f'Dir::State "{apt_dir}/state";',
        f'Dir::State::status "{apt_dir}/state/status";',
        f'Dir::Cache "{apt_dir}/cache";',
        f'Dir::Etc::SourceList "{apt_dir}/sources.list";',
        f'Dir::Etc::SourceParts "{apt_dir}/sources.list.d";',
        f'Dir::Etc::Preferences "{apt_dir}/preferences";',
        f'Dir::Etc::PreferencesParts "{apt_dir}/preferences.d";',
        f'Dir::Etc::Parts "{apt_dir}/apt.conf.d";',
        f'Dir::Etc::Trusted "{apt_dir}/trusted.gpg";',
        f'Dir::Etc::TrustedParts "{apt_dir}/trusted.gpg.d";',
        f'APT::Architecture "{arches[0]}";',
        "APT::Architectures { " + " ".join(f'"{a}";' for a in arches) + " };",
        # apt drops to `_apt` for downloads when it can; that user cannot enter a private home cache.
        f'APT::Sandbox::User "{user}";',
        'Acquire::Languages "none";',
        'Acquire::GzipIndexes "true";',
        'Acquire::Retries "3";',
    ]
    return "\n".join(lines) + "\n"


def sources_list(architectures: Iterable[str], *, mirror: str = MIRROR, suite: str = SUITE) -> str:
    arch = ",".join(architectures)
    return f"deb [arch={arch} signed-by={KEYRING}] {mirror} {suite} main\n"


# --- package metadata -----------------------------------------------------------------------------------------


def parse_stanzas(text: str) -> list[dict[str, str]]:
    """`apt-cache show` output → one dict per package record (continuation lines joined)."""
    stanzas: list[dict[str, str]] = []
    current: dict[str, str] = {}
    key = ""
    for line in text.splitlines():
        if not line.strip():
            if current:
                stanzas.append(current)
            current, key = {}, ""
        elif line[0] in " \t" and key:
            current[key] += "\n" + line.strip()
        elif ":" in line:
            key, _, value = line.partition(":")
            current[key] = value.strip()
    if current:
        stanzas.append(current)
    return stanzas


def dependencies_of(stanza: dict[str, str]) -> list[str]:
    """Names in Pre-Depends and Depends: the first alternative of each, without versions or :arch qualifiers."""
    names = []
    for field in ("Pre-Depends", "Depends"):
        for clause in filter(None, (c.strip() for c in stanza.get(field, "").split(","))):
            first = clause.split("|")[0].strip()
            names.append(re.split(r"[\s(:]", first, maxsplit=1)[0])
    return names


def closure(roots: Iterable[str], show: Callable[[list[str]], str], skipped: frozenset[str] = SKIPPED) -> list[str]:
    """The packages `roots` need: their Depends closure, leaving out `skipped` (and what only they need)."""
    seen: set[str] = set()
    wanted = [r for r in roots if r not in skipped]
    while wanted:
        batch = sorted(set(wanted) - seen)
        seen.update(batch)
        if not batch:
            break
        records = {s["Package"]: s for s in parse_stanzas(show(batch)) if "Package" in s}
        missing = [name for name in batch if name not in records]
        if missing:
            raise FetchError(f"Debian {SUITE} has no package named {', '.join(missing)}")
        wanted = [d for name in batch for d in dependencies_of(records[name]) if d not in skipped and d not in seen]
    return sorted(seen)


# --- fetching --------------------------------------------------------------------------------------------------


def _run(args: list[str], *, env: dict[str, str] | None = None, cwd: Path | None = None) -> str:
    # Fixed programs (apt-get, apt-cache, dpkg-deb) with arguments built here.
    done = subprocess.run(args, check=False, capture_output=True, text=True, env=env, cwd=cwd)  # noqa: S603
    if done.returncode != 0:
        raise FetchError(f"{' '.join(args[:3])} … failed:\n{(done.stderr or done.stdout).strip()[-2000:]}")
    return done.stdout


@contextlib.contextmanager
def locked(path: Path) -> Iterator[None]:
    """One process at a time holds `path`'s lock: one fetcher per cache (a test run and `make asset` may start
    together)."""
    path.parent.mkdir(parents=True, exist_ok=True)
    with path.open("a") as handle:
        fcntl.flock(handle, fcntl.LOCK_EX)
        try:
            yield
        finally:
            fcntl.flock(handle, fcntl.LOCK_UN)


class DebianArchive:
    """apt-get/apt-cache on a private configuration in `folder` (sources, indexes, caches), for `architectures`."""

    def __init__(self, folder: Path, architectures: Iterable[str]) -> None:
        self.dir = folder
        self.architectures = list(dict.fromkeys(architectures))
        self._updated = False

    def _prepare(self) -> dict[str, str]:
        for tool in ("apt-get", "apt-cache", "dpkg-deb"):
            if shutil.which(tool) is None:
                raise FetchError(f"fetching Debian's Python {VERSION} needs {tool} (a Debian or Ubuntu machine)")
        if not KEYRING.is_file():
            raise FetchError(
                f"fetching Debian's Python {VERSION} needs {KEYRING} (apt-get install debian-archive-keyring)"
            )
        for sub in ("state/lists/partial", "cache/archives/partial", "sources.list.d", "preferences.d", "apt.conf.d"):
            (self.dir / sub).mkdir(parents=True, exist_ok=True)
        (self.dir / "trusted.gpg.d").mkdir(exist_ok=True)
        (self.dir / "state" / "status").touch()
        (self.dir / "sources.list").write_text(sources_list(self.architectures))
        config = self.dir / "apt.conf"
        config.write_text(apt_config(self.dir, self.architectures, user=getpass.getuser()))
        return {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "APT_CONFIG": str(config), "LC_ALL": "C"}

    def update(self) -> dict[str, str]:
        env = self._prepare()
        if not self._updated:
            _run(["apt-get", "update", "-q"], env=env)
            self._updated = True
        return env

    def show(self, names: list[str]) -> str:
        return _run(["apt-cache", "show", "--no-all-versions", *names], env=self.update())

    def download(self, names: list[str], dest: Path) -> list[Path]:
        dest.mkdir(parents=True, exist_ok=True)
        _run(["apt-get", "download", "-q", *names], env=self.update(), cwd=dest)
        return sorted(dest.glob("*.deb"))


def _unpack(debs: list[Path], root: Path) -> None:
    for deb in debs:
        _run(["dpkg-deb", "-x", str(deb), str(root)])
    # Debian's /lib, /lib64 and /bin are links into /usr (merged /usr); the loaders and qemu look there.
    for name in ("bin", "lib", "lib64"):
        if (root / "usr" / name).is_dir() and not (root / name).exists():
            (root / name).symlink_to(f"usr/{name}")


@dataclass(frozen=True)
class Interpreter:
    """Debian's python3.13 unpacked in `root`, run by `launcher` (the root's own loader, or qemu)."""

    root: Path
    arch: str
    launcher: tuple[str, ...]

    @property
    def executable(self) -> Path:
        return self.root / "usr" / "bin" / f"python{VERSION}"

    @property
    def emulated(self) -> bool:
        return self.arch != host_arch()

    def command(self, *args: str | Path) -> list[str]:
        return [*self.launcher, str(self.executable), *map(str, args)]

    def describe(self) -> str:
        versions = (self.root / ".complete").read_text().split()
        python = next((v for v in versions if v.startswith(f"python{VERSION}-minimal_")), "?")
        how = f"under {Path(self.launcher[0]).name}" if self.emulated else "natively"
        return f"Debian {SUITE} {python.split('_')[1]} ({self.arch}) {how}"


def _native_launcher(root: Path, arch: str) -> tuple[str, ...]:
    multiarch = f"{MACHINE[arch]}-linux-gnu"
    libs = ":".join(str(root / d / multiarch) for d in ("usr/lib", "lib"))
    # The root's loader with its libraries: trixie's glibc, not the machine's. Not inherited by children that
    # exec the interpreter again, so run it single-process (no compileall -j).
    return (str(root / LOADER[arch]), "--library-path", libs)


def _find_packages(archive: DebianArchive, arch: str) -> list[str]:
    def show(names: list[str]) -> str:
        return archive.show([f"{n}:{arch}" for n in names])

    return closure(ROOTS, show)


def _root(cache: Path, arch: str) -> Path:
    return cache / f"python{VERSION}-{SUITE}-{arch}"


def _fetch_root(cache: Path, arch: str, archive: DebianArchive) -> Path:
    root = _root(cache, arch)
    with tempfile.TemporaryDirectory(dir=cache, prefix=f".{root.name}-") as tmp:
        names = _find_packages(archive, arch)
        debs = archive.download([f"{n}:{arch}" for n in names], Path(tmp) / "debs")
        staging = Path(tmp) / "root"
        _unpack(debs, staging)
        (staging / ".complete").write_text("".join(f"{d.name}\n" for d in debs))
        shutil.rmtree(root, ignore_errors=True)
        os.replace(staging, root)
    return root


def _compile_stdlib(root: Path, compiler: Interpreter) -> None:
    """What Debian's postinst does (py3compile): bytecode for the standard library, so no run compiles it."""
    stdlib = root / "usr" / "lib" / f"python{VERSION}"
    args = ["-s", "-S", "-m", "compileall", "-q", "--invalidation-mode", "timestamp", str(stdlib)]
    done = subprocess.run(compiler.command(*args), check=False, capture_output=True, text=True)  # noqa: S603
    if done.returncode != 0:
        raise FetchError(f"compiling {stdlib} failed:\n{(done.stdout + done.stderr)[-2000:]}")
    (root / ".stdlib-compiled").write_text("")


def _qemu(cache: Path, arch: str, archive: Callable[[], DebianArchive]) -> Path:
    """`qemu-<machine>` for `arch`: the machine's, else Debian's static qemu-user unpacked into the cache."""
    machine = MACHINE[arch]
    for name in (f"qemu-{machine}-static", f"qemu-{machine}"):
        found = shutil.which(name)
        if found:
            return Path(found)
    binary = cache / f"qemu-{SUITE}" / f"qemu-{machine}"
    if binary.is_file():
        return binary
    with tempfile.TemporaryDirectory(dir=cache, prefix=".qemu-") as tmp:
        (deb,) = archive().download([f"{QEMU_PACKAGE}:{host_arch()}"], Path(tmp) / "debs")
        # Only the one binary out of ~450 MB: stream the package's data and keep that member.
        tar = subprocess.Popen(["dpkg-deb", "--fsys-tarfile", str(deb)], stdout=subprocess.PIPE)  # noqa: S603, S607
        done = subprocess.run(  # noqa: S603
            ["tar", "-x", "-C", tmp, f"./usr/bin/qemu-{machine}"],  # noqa: S607
            stdin=tar.stdout,
            check=False,
            capture_output=True,
            text=True,
        )
        tar.wait()
        if done.returncode != 0 or tar.returncode != 0:
            raise FetchError(f"unpacking qemu-{machine} from {deb.name} failed: {done.stderr.strip()}")
        binary.parent.mkdir(parents=True, exist_ok=True)
        os.replace(Path(tmp) / "usr" / "bin" / f"qemu-{machine}", binary)
    return binary


class _OnDemandArchive:
    """The private APT, set up only when something is missing; its indexes (~40 MB) go when the fetch ends."""

    def __init__(self, cache: Path, architectures: list[str], stack: contextlib.ExitStack) -> None:
        self._cache = cache
        self._architectures = architectures
        self._stack = stack
        self._archive: DebianArchive | None = None

    def __call__(self) -> DebianArchive:
        if self._archive is None:
            folder = self._stack.enter_context(tempfile.TemporaryDirectory(dir=self._cache, prefix=".apt-"))
            self._archive = DebianArchive(Path(folder), self._architectures)
        return self._archive


def python(arch: str | None = None, *, cache: Path | None = None) -> Interpreter:
    """Debian's python3.13 for `arch` (a Debian architecture; default this machine's), fetched when missing.

    Native for this machine's architecture; another one runs under qemu (fetched too). Raises FetchError with a
    sentence saying what is missing.
    """
    cache = cache or cache_dir()
    host = host_arch()
    arch = arch or host
    if arch not in MACHINE:
        raise FetchError(f"unknown Debian architecture {arch!r}; expected one of {sorted(MACHINE)}")
    cache.mkdir(parents=True, exist_ok=True)
    with locked(cache / ".lock"), contextlib.ExitStack() as stack:
        archive = _OnDemandArchive(cache, [host, arch], stack)
        try:
            native_root = _root(cache, host)
            if not (native_root / ".complete").is_file():
                _fetch_root(cache, host, archive())
            native = Interpreter(native_root, host, _native_launcher(native_root, host))
            if not (native_root / ".stdlib-compiled").is_file():
                _compile_stdlib(native_root, native)
            if arch == host:
                return native
            root = _root(cache, arch)
            if not (root / ".complete").is_file():
                _fetch_root(cache, arch, archive())
            if not (root / ".stdlib-compiled").is_file():
                _compile_stdlib(root, native)  # bytecode is the same on every architecture
            qemu = _qemu(cache, arch, archive)
            return Interpreter(root, arch, (str(qemu), "-L", str(root)))
        except (FetchError, OSError) as exc:
            raise FetchError(
                f"Debian's Python {VERSION} ({arch}) is not available in {cache} and could not be fetched from "
                f"{MIRROR} ({SUITE}): {exc}"
            ) from exc


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__, formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--arch", choices=sorted(MACHINE), help="a Debian architecture (default: this machine's)")
    args = parser.parse_args(argv)
    interpreter = python(args.arch)
    print(interpreter.describe())
    print(" ".join(interpreter.command()))
    return 0


if __name__ == "__main__":
    sys.exit(main())
