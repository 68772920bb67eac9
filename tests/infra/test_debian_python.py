"""The fetcher of Debian's CPython 3.13 (widget_mcp/lambda_asset/debian_python.py), without the network: its private APT
configuration, the package list it resolves, how it runs the interpreter, and how it fails."""

from __future__ import annotations

from pathlib import Path

import pytest
from widget_mcp.lambda_asset import debian_python
from widget_mcp.lambda_asset.debian_python import (
    ROOTS,
    FetchError,
    Interpreter,
    apt_config,
    closure,
    dependencies_of,
    parse_stanzas,
    sources_list,
)

# `apt-cache show --no-all-versions` for trixie arm64, trimmed to the fields the resolver reads.
ARCHIVE = """\
Package: python3.13-minimal
Architecture: arm64
Version: 3.13.5-2+deb13u5
Depends: libpython3.13-minimal (= 3.13.5-2+deb13u5), libexpat1 (>= 2.6.0), zlib1g (>= 1:1.2.0)
Pre-Depends: libc6 (>= 2.38)

Package: libpython3.13-minimal
Architecture: arm64
Depends: libc6 (>= 2.14), libssl3t64 (>= 3.4.0)

Package: libpython3.13-stdlib
Architecture: arm64
Depends: libpython3.13-minimal (= 3.13.5-2+deb13u5), media-types | mime-support, netbase, tzdata,
 libbz2-1.0, libc6 (>= 2.38), libffi8 (>= 3.4), liblzma5 (>= 5.1.1alpha+20120614)
Description: Interactive high-level object-oriented language (standard library, version 3.13)
 This package contains Python 3.13's standard library.

Package: libc6
Depends: libgcc-s1

Package: libgcc-s1
Depends: gcc-14-base (= 14.2.0-19), libc6 (>= 2.35)

Package: gcc-14-base

Package: libexpat1
Pre-Depends: libc6 (>= 2.36)

Package: zlib1g
Depends: libc6 (>= 2.14)

Package: libssl3t64
Depends: libc6 (>= 2.38), libzstd1 (>= 1.5.5), zlib1g (>= 1:1.1.4), openssl-provider-legacy

Package: libzstd1
Depends: libc6 (>= 2.34)

Package: openssl-provider-legacy
Depends: libc6 (>= 2.34), libssl3t64:any (= 3.5.7-1~deb13u2)

Package: libbz2-1.0
Depends: libc6 (>= 2.4)

Package: libffi8
Depends: libc6 (>= 2.34)

Package: liblzma5
Depends: libc6 (>= 2.34)

Package: tzdata
Depends: debconf (>= 0.5) | debconf-2.0

Package: debconf
Pre-Depends: perl-base (>= 5.20.1-3~)
"""
RECORDS = {s["Package"]: s for s in parse_stanzas(ARCHIVE)}


def fake_show(asked: list[list[str]]):  # type: ignore[no-untyped-def]
    def show(names: list[str]) -> str:
        asked.append(names)
        found = [RECORDS[n] for n in names if n in RECORDS]
        return "\n\n".join("\n".join(f"{k}: {v}".replace("\n", "\n ") for k, v in r.items()) for r in found) + "\n"

    return show


def test_the_apt_configuration_keeps_everything_in_its_own_folder(tmp_path: Path) -> None:
    text = apt_config(tmp_path, ["amd64", "arm64"], user="builder")
    for key in ("Dir::State", "Dir::Cache", "Dir::Etc::SourceList", "Dir::Etc::SourceParts", "Dir::Etc::Parts"):
        (line,) = [x for x in text.splitlines() if x.startswith(f"{key} ")]
        assert f'"{tmp_path}/' in line, line
    assert f'Dir::State::status "{tmp_path}/state/status";' in text  # no installed packages: not the machine's
    assert "/etc/apt" not in text
    assert 'APT::Architecture "amd64";' in text
    assert 'APT::Architectures { "amd64"; "arm64"; };' in text
    assert 'APT::Sandbox::User "builder";' in text


def test_the_source_is_debian_trixie_main_checked_against_debians_keyring() -> None:
    assert sources_list(["amd64", "arm64"]) == (
        "deb [arch=amd64,arm64 signed-by=/usr/share/keyrings/debian-archive-keyring.gpg] "
        "http://deb.debian.org/debian trixie main\n"
    )


def test_stanzas_join_continuation_lines_and_dependencies_take_the_first_alternative() -> None:
    stdlib = RECORDS["libpython3.13-stdlib"]
    assert stdlib["Depends"].count("\n") == 1
    assert dependencies_of(stdlib) == [
        "libpython3.13-minimal",
        "media-types",
        "netbase",
        "tzdata",
        "libbz2-1.0",
        "libc6",
        "libffi8",
        "liblzma5",
    ]
    assert dependencies_of(RECORDS["python3.13-minimal"])[0] == "libc6"  # Pre-Depends first
    assert dependencies_of(RECORDS["openssl-provider-legacy"]) == ["libc6", "libssl3t64"]  # ":any" dropped


def test_the_closure_holds_the_interpreter_its_standard_library_and_their_libraries_but_no_data_packages() -> None:
    asked: list[list[str]] = []
    packages = closure(ROOTS, fake_show(asked))
    assert packages == sorted(
        [
            *ROOTS,
            "libc6",
            "libgcc-s1",
            "gcc-14-base",
            "libexpat1",
            "zlib1g",
            "libssl3t64",
            "libzstd1",
            "openssl-provider-legacy",
            "libbz2-1.0",
            "libffi8",
            "liblzma5",
        ]
    )
    # tzdata, media-types and netbase are skipped, and so is what only they need (debconf, perl).
    everything_asked = {n for batch in asked for n in batch}
    assert not everything_asked & {"tzdata", "media-types", "netbase", "debconf", "perl-base"}
    assert len(asked) <= 4, "one apt-cache call per level of the graph, not one per package"


def test_a_package_debian_does_not_have_fails_with_its_name() -> None:
    with pytest.raises(FetchError, match=r"Debian trixie has no package named python3\.13-nonesuch"):
        closure(["python3.13-nonesuch"], fake_show([]))


def test_the_native_interpreter_runs_through_the_roots_own_loader_and_libraries(tmp_path: Path) -> None:
    launcher = debian_python._native_launcher(tmp_path, "amd64")
    python = Interpreter(tmp_path, "amd64", launcher)
    assert python.command("-c", "pass") == [
        f"{tmp_path}/usr/lib64/ld-linux-x86-64.so.2",
        "--library-path",
        f"{tmp_path}/usr/lib/x86_64-linux-gnu:{tmp_path}/lib/x86_64-linux-gnu",
        f"{tmp_path}/usr/bin/python3.13",
        "-c",
        "pass",
    ]


def test_a_foreign_interpreter_runs_under_qemu_with_its_root_as_prefix(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(debian_python, "host_arch", lambda: "amd64")
    python = Interpreter(tmp_path, "arm64", ("/cache/qemu-aarch64", "-L", str(tmp_path)))
    assert python.emulated
    assert python.command("-V")[:4] == ["/cache/qemu-aarch64", "-L", str(tmp_path), f"{tmp_path}/usr/bin/python3.13"]


def test_without_apt_the_fetch_fails_with_a_sentence_saying_what_is_missing(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr("widget_mcp.lambda_asset.debian_python.shutil.which", lambda name: None)
    with pytest.raises(FetchError) as caught:
        debian_python.python("arm64", cache=tmp_path)
    message = str(caught.value)
    assert message.startswith(f"Debian's Python 3.13 (arm64) is not available in {tmp_path} and could not be fetched")
    assert "needs apt-get (a Debian or Ubuntu machine)" in message
    assert not [p for p in tmp_path.iterdir() if p.name != ".lock"], "a failed fetch leaves nothing behind"


def test_the_cache_folder_follows_the_environment(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("WIDGET_MCP_CACHE", raising=False)
    monkeypatch.setenv("XDG_CACHE_HOME", str(tmp_path))
    assert debian_python.cache_dir() == tmp_path / "widget-mcp"
    monkeypatch.setenv("WIDGET_MCP_CACHE", str(tmp_path / "elsewhere"))
    assert debian_python.cache_dir() == tmp_path / "elsewhere"
