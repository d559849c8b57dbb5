"""Offline installs for the tests: the wheel built from this checkout, and wheels of its
dependencies repacked from this virtual environment, in one folder pip reads with
``--no-index --find-links``.

An installed distribution is its wheel unpacked: its files (``RECORD`` lists them) under
``site-packages`` and its ``.dist-info``. Repacking them with a fresh ``RECORD`` gives a wheel
pip installs as any other, so a fresh virtual environment (or the one pre-commit builds for a
hook) installs ``rlt-rules`` and resolves its requirements with no index and no network.
Console scripts come back from ``entry_points.txt``; a script the wheel itself installed (the
``ast-grep`` binary of ``ast-grep-cli``, listed in ``RECORD`` under ``bin/``) goes back into the
wheel's ``.data/scripts`` folder; nothing else outside ``site-packages`` is carried.
"""

from __future__ import annotations

import base64
import hashlib
import os
import re
import subprocess
import sys
import zipfile
from importlib.metadata import Distribution, distribution
from pathlib import Path

from packaging.markers import default_environment
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
#: Every request through a proxy that refuses connections: a client needing the network fails.
CLOSED = "http://127.0.0.1:9"
#: What pre-commit's isolated build of this repository needs besides rlt-rules' requirements.
BUILD_REQUIREMENTS = ("hatchling",)
#: Files of an installed distribution that are not part of its wheel.
_INSTALL_ONLY = {"INSTALLER", "REQUESTED", "direct_url.json", "RECORD"}


def offline_environment(wheels: Path) -> dict[str, str]:
    """The environment for pip (and pre-commit's pip): no index, no configuration files,
    every proxy closed, only ``wheels`` to install from."""
    env = {
        key: value
        for key, value in os.environ.items()
        if "proxy" not in key.lower() and not key.startswith(("PIP_", "VIRTUALENV_"))
    }
    env.update(HTTP_PROXY=CLOSED, HTTPS_PROXY=CLOSED, ALL_PROXY=CLOSED, NO_PROXY="")
    env.update(http_proxy=CLOSED, https_proxy=CLOSED, all_proxy=CLOSED, no_proxy="")
    env.update(
        PIP_CONFIG_FILE=os.devnull,
        PIP_NO_INDEX="1",
        PIP_FIND_LINKS=str(wheels),
        PIP_DISABLE_PIP_VERSION_CHECK="1",
        VIRTUALENV_NO_PERIODIC_UPDATE="1",
    )
    return env


def requirement_closure(names: tuple[str, ...]) -> list[Distribution]:
    """The installed distributions ``names`` need, themselves included, with the extras their
    requirements ask for (``pyjwt[crypto]`` brings ``cryptography``)."""
    found: dict[str, Distribution] = {}
    followed: set[tuple[str, str]] = set()
    todo: list[tuple[str, frozenset[str]]] = [(name, frozenset()) for name in names]
    while todo:
        raw, extras = todo.pop()
        name = canonicalize_name(raw)
        if name not in found:
            found[name] = distribution(name)
        for extra in ("", *sorted(extras)):
            if (name, extra) in followed:
                continue
            followed.add((name, extra))
            environment = default_environment()
            environment["extra"] = extra
            for line in found[name].requires or ():
                requirement = Requirement(line)
                if requirement.marker is None or requirement.marker.evaluate(environment):
                    todo.append((requirement.name, frozenset(requirement.extras)))
    return list(found.values())


def repack(dist: Distribution, folder: Path) -> Path:
    """``dist`` as a wheel in ``folder``: its files under ``site-packages``, a new RECORD."""
    site = Path(str(dist.locate_file(""))).resolve()
    info = next(file.parts[0] for file in dist.files or () if file.name == "METADATA")
    wheel_meta = (site / info / "WHEEL").read_text(encoding="utf-8")
    tags = [
        line.split(":", 1)[1].strip() for line in wheel_meta.splitlines() if line.startswith("Tag:")
    ]
    parts = [sorted({tag.split("-")[index] for tag in tags}) for index in range(3)]
    name = re.sub(r"[-_.]+", "_", dist.metadata["Name"])
    path = folder / f"{name}-{dist.version}-{'-'.join('.'.join(part) for part in parts)}.whl"
    records = []
    scripts = Path(sys.prefix, "bin").resolve()
    data_folder = f"{info.removesuffix('.dist-info')}.data/scripts"
    console = {entry.name for entry in dist.entry_points if entry.group == "console_scripts"}
    with zipfile.ZipFile(path, "w", zipfile.ZIP_DEFLATED) as wheel:
        for file in dist.files or ():
            source = Path(str(dist.locate_file(file))).resolve()
            relative = source.relative_to(site) if source.is_relative_to(site) else None
            if (
                relative is None
                and source.is_file()
                and source.parent == scripts
                and source.name not in console
            ):
                relative = Path(data_folder, source.name)
            if relative is None or not source.is_file() or "__pycache__" in relative.parts:
                continue
            if relative.parts[0] == info and relative.name in _INSTALL_ONLY:
                continue
            data = source.read_bytes()
            entry = zipfile.ZipInfo(relative.as_posix(), date_time=(1980, 1, 1, 0, 0, 0))
            entry.external_attr = (source.stat().st_mode & 0o777 | 0o100000) << 16
            wheel.writestr(entry, data, compress_type=zipfile.ZIP_DEFLATED)
            digest = base64.urlsafe_b64encode(hashlib.sha256(data).digest()).rstrip(b"=")
            records.append(f"{relative.as_posix()},sha256={digest.decode()},{len(data)}")
        records.append(f"{info}/RECORD,,")
        wheel.writestr(f"{info}/RECORD", "\n".join(records) + "\n")
    return path


def build_wheel(source: Path, folder: Path) -> Path:
    """The wheel of the project at ``source``, built offline by this environment's hatchling
    (``pip wheel --no-build-isolation``), into ``folder``."""
    result = subprocess.run(
        [
            str(BIN / "python"),
            "-m",
            "pip",
            "wheel",
            "--no-deps",
            "--no-build-isolation",
            "--wheel-dir",
            str(folder),
            str(source),
        ],
        env=offline_environment(folder),
        capture_output=True,
        text=True,
        check=False,
        timeout=300,
    )
    if result.returncode != 0:
        raise RuntimeError(result.stdout + result.stderr)
    (wheel,) = folder.glob("rlt_rules-*.whl")
    return wheel


def make_wheelhouse(folder: Path) -> Path:
    """``folder`` with rlt-rules' wheel and its requirements' and hatchling's, repacked."""
    folder.mkdir(parents=True, exist_ok=True)
    build_wheel(ROOT, folder)
    wanted = tuple(
        requirement.name
        for requirement in map(Requirement, distribution("rlt-rules").requires or ())
        if requirement.marker is None
    )
    for dist in requirement_closure((*wanted, *BUILD_REQUIREMENTS)):
        repack(dist, folder)
    return folder
