"""What an asset is built for (a Lambda architecture and CPython version, with or without sign-in), and the failure
CDK's bundling hook reports."""

from __future__ import annotations

import platform
from dataclasses import dataclass

MACHINES = {"arm64": "aarch64", "x86_64": "x86_64"}


@dataclass(frozen=True)
class Target:
    """A Lambda architecture and CPython version, e.g. Target("arm64", "3.13"), and whether the function
    verifies sign-in tokens (which needs the SIGN_IN_ONLY distributions)."""

    arch: str = "arm64"
    python: str = "3.13"
    sign_in: bool = False

    def __post_init__(self) -> None:
        if self.arch not in MACHINES:
            raise ValueError(f"unknown architecture {self.arch!r}; expected one of {sorted(MACHINES)}")

    @property
    def machine(self) -> str:
        """The machine name wheels are built for (`aarch64`)."""
        return MACHINES[self.arch]

    @property
    def uv_platform(self) -> str:
        """uv's `--python-platform` for this target."""
        return f"{self.machine}-manylinux2014"

    @property
    def platform_label(self) -> str:
        """`arm64-py313`: names the cached dependency builds."""
        return f"{self.arch}-py{self.python.replace('.', '')}"

    @property
    def label(self) -> str:
        """The platform label, with `-sign-in` for that variant: names the cached assets."""
        return f"{self.platform_label}-sign-in" if self.sign_in else self.platform_label

    @classmethod
    def host(cls, python: str, *, sign_in: bool = False) -> Target:
        """The variant this machine can import: its own architecture, the given Python."""
        machine = platform.machine()
        arch = {v: k for k, v in MACHINES.items()}.get(machine, machine)
        return cls(arch=arch, python=python, sign_in=sign_in)


# What uv, pip and apt say when a registry cannot be reached at all.
UNREACHABLE = (
    "Failed to fetch",
    "error sending request",
    "name resolution",
    "Name or service not known",
    "Network is unreachable",
    "Connection refused",
    "Could not resolve",
)


class AssetBuildFailed(RuntimeError):
    """The Lambda asset could not be built. Raised from CDK's bundling hook, through jsii, so its message is marked:
    `infra.app` finds it in jsii's error and prints it alone instead of jsii's traceback."""

    MARK = "widget-mcp asset build: "

    @classmethod
    def of(cls, exc: BaseException) -> AssetBuildFailed:
        """This failure, with one marked sentence for `exc` (a network failure said as one)."""
        text = str(exc).strip() or type(exc).__name__
        if any(sign in text for sign in UNREACHABLE):
            text = (
                "the Lambda asset's first build downloads its arm64 wheels from PyPI and Debian's Python 3.13 (for its "
                "bytecode) from Debian's archive, and they could not be reached: check the network (or HTTPS_PROXY) "
                "and run it again; later builds reuse build/lambda and ~/.cache/widget-mcp"
            )
        return cls(cls.MARK + text.replace("\n", " | "))

    @classmethod
    def found_in(cls, exc: BaseException) -> str | None:
        """This failure's sentence, when `exc` (jsii's error, say) carries one."""
        text = str(exc)
        at = text.find(cls.MARK)
        return None if at < 0 else text[at + len(cls.MARK) :].splitlines()[0]
