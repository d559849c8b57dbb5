"""The pinned real-engine corpus: SGLang 0.5.23's Python files, fetched from PyPI, never committed.

``python tools/corpus.py fetch`` downloads each pinned wheel (0.5.23, the judged one, and
0.5.22, the base of the exam's real change control) with ``pip download --no-deps``, checks its
sha256, and unpacks only its ``.py`` files into ``.cache/corpus/sglang-<version>/`` (ignored by
Git); a later run finds them there and does nothing. ``python tools/corpus.py where`` prints the
folder. ``./dev test`` and ``./dev bench`` run ``fetch`` first; the corpus tests fail (never
skip) when the folder is missing, naming this command.

``python tools/corpus.py measure [--write]`` scans the judged slice with every detector
(preview ones too) and compares the hints with ``tests/corpus/sglang-0.5.23.yaml``; then it
scans the whole package with each detector that raised nothing on the slice and
compares those hints with ``tests/corpus/sglang-0.5.23.package.yaml``. It prints each
detector's figures per scope; ``--write`` rewrites the ``measured:`` line of each detector whose
hints are all judged, in place in ``rules/*.yaml`` (exit 1 while hints are unjudged or verdicts
stale). ``python tools/corpus.py gather [--scope package] FILE...`` writes that scope's verdict
file from per-detector files of the same format (sorted by path, line and detector; each entry
checked against the schema and its scope).
"""

from __future__ import annotations

import argparse
import hashlib
import os
import shutil
import subprocess
import sys
import tempfile
import zipfile
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = "sglang"


@dataclass(frozen=True, slots=True)
class Pin:
    """One pinned wheel: its version, file name and sha256."""

    version: str
    wheel: str
    sha256: str

    @property
    def name(self) -> str:
        return f"{PACKAGE}-{self.version}"


#: Every pinned wheel, the judged one first: 0.5.22 is the base of the exam's real change
#: control (``exam/sglang-0.5.22-0.5.23/``).
PINS = (
    Pin(
        "0.5.23",
        f"{PACKAGE}-0.5.23-cp311-cp311-manylinux_2_34_x86_64.whl",
        "00b3cd5b265ac76c64185fbb6b95424f324ddd9f428d0306b77bc9db9d859937",
    ),
    Pin(
        "0.5.22",
        f"{PACKAGE}-0.5.22-cp311-cp311-manylinux_2_34_x86_64.whl",
        "cc9a0f15bd8f877a0584fdb7a1702240177a1f1cc8d17c978715161717b9037b",
    ),
)
NAME = PINS[0].name
#: Where the unpacked files live; ``RLT_CORPUS_CACHE`` moves the cache folder.
CACHE = Path(os.environ.get("RLT_CORPUS_CACHE", ROOT / ".cache" / "corpus"))
FOLDER = CACHE / NAME
#: Written last: its presence says the unpack finished.
DONE = ".complete"
FETCH_COMMAND = "python tools/corpus.py fetch"
#: The judged slice: the engine's scheduler, KV cache and runner, relative to ``FOLDER``.
SLICE = ("sglang/srt/managers", "sglang/srt/mem_cache", "sglang/srt/model_executor")
VERDICTS = ROOT / "tests" / "corpus" / f"{NAME}.yaml"
#: Every hint, anywhere in the package, of the detectors silent on the slice.
PACKAGE_VERDICTS = ROOT / "tests" / "corpus" / f"{NAME}.package.yaml"


def ready(folder: Path = FOLDER) -> bool:
    return (folder / DONE).is_file()


def _sha256(path: Path) -> str:
    digest = hashlib.sha256()
    with path.open("rb") as stream:
        for block in iter(lambda: stream.read(1 << 20), b""):
            digest.update(block)
    return digest.hexdigest()


def _download(into: Path, pin: Pin) -> Path:
    command = [
        sys.executable,
        "-m",
        "pip",
        "download",
        "--quiet",
        "--disable-pip-version-check",
        "--no-deps",
        "--only-binary=:all:",
        "--python-version",
        "3.11",
        "--platform",
        "manylinux_2_34_x86_64",
        "-d",
        str(into),
        f"{PACKAGE}=={pin.version}",
    ]
    completed = subprocess.run(command, capture_output=True, text=True, check=False)
    wheel = into / pin.wheel
    if completed.returncode != 0 or not wheel.is_file():
        raise SystemExit(
            f"error: pip download of {PACKAGE}=={pin.version} failed (is the package index "
            f"reachable?):\n{completed.stderr.strip()}\nRerun `{FETCH_COMMAND}` when it is."
        )
    return wheel


def _unpack(wheel: Path, folder: Path, pin: Pin = PINS[0]) -> int:
    """Only the ``.py`` files, into a fresh folder renamed into place when complete."""
    staging = Path(tempfile.mkdtemp(prefix=f".{pin.name}-", dir=folder.parent))
    count = 0
    with zipfile.ZipFile(wheel) as archive:
        for member in archive.infolist():
            name = member.filename
            if not name.endswith(".py") or name.startswith("/") or ".." in name.split("/"):
                continue
            target = staging / name
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_bytes(archive.read(member))
            count += 1
    (staging / DONE).write_text(f"{pin.wheel} sha256 {pin.sha256}: {count} .py files\n", "utf-8")
    if folder.exists():
        shutil.rmtree(folder)
    staging.rename(folder)
    return count


def fetch(folder: Path = FOLDER, pin: Pin = PINS[0]) -> Path:
    """The unpacked corpus folder of ``pin``, fetched and unpacked first when missing."""
    if ready(folder):
        return folder
    folder.parent.mkdir(parents=True, exist_ok=True)
    with tempfile.TemporaryDirectory(prefix="rlt-corpus-") as tmp:
        wheel = _download(Path(tmp), pin)
        found = _sha256(wheel)
        if found != pin.sha256:
            raise SystemExit(
                f"error: {pin.wheel} has sha256 {found}, expected {pin.sha256}: not the pinned "
                "file; nothing was unpacked."
            )
        count = _unpack(wheel, folder, pin)
    print(f"==> corpus: {count} .py files of {pin.wheel} in {folder}", file=sys.stderr)
    return folder


def fetch_all() -> list[Path]:
    """Every pinned wheel's folder, each fetched when missing."""
    return [fetch(CACHE / pin.name, pin) for pin in PINS]


def measure(*, write: bool) -> int:
    # Only the measure command needs the package (fetch runs before it is installed).
    from rlt_rules.scan.corpus import measure_corpus

    if not ready():
        print(f"error: no corpus in {FOLDER}: run `{FETCH_COMMAND}`", file=sys.stderr)
        return 2
    report = measure_corpus(FOLDER, SLICE, VERDICTS, PACKAGE_VERDICTS, ROOT / "rules", write=write)
    print(report.text)
    return 0 if report.complete else 1


SCHEMA_LINE = "# yaml-language-server: $schema=../../schema/verdicts.schema.json\n"
HEADERS = {
    "slice": (
        SCHEMA_LINE
        + f"# Every hint the detectors raise on {NAME}'s judged slice, judged by reading the code\n"
        f"# around it. Slice: {', '.join(SLICE)}.\n"
        "# Written by `python tools/corpus.py gather FILE...`; the corpus tests fail on a hint\n"
        "# without a verdict and on a verdict without a hint.\n"
    ),
    "package": (
        SCHEMA_LINE
        + f"# Every hint, anywhere in {NAME}, of each detector that raises nothing on the\n"
        "# judged slice, judged by reading the code around it (scope: package).\n"
        "# Written by `python tools/corpus.py gather --scope package FILE...`; the corpus tests\n"
        "# fail on a hint without a verdict and on a verdict without a hint.\n"
    ),
}


def gather(files: list[Path], *, package: bool) -> int:
    # Only the gather command needs the package (fetch runs before it is installed).
    import yaml

    from rlt_rules.library.model import CorpusScope
    from rlt_rules.scan.corpus import VerdictError, load_verdicts

    scope = CorpusScope.PACKAGE if package else CorpusScope.SLICE
    target = PACKAGE_VERDICTS if package else VERDICTS
    try:
        entries = [verdict for path in files for verdict in load_verdicts(path, scope=scope)]
    except VerdictError as error:
        print(f"error: {error}", file=sys.stderr)
        return 1
    entries.sort(key=lambda v: (v.path, v.line, v.detector))
    data = [
        {
            "path": v.path,
            "line": v.line,
            "rule": v.rule,
            "detector": v.detector,
            "verdict": v.verdict,
            **({"scope": str(v.scope)} if package else {}),
            "why": v.why,
        }
        for v in entries
    ]
    body = yaml.safe_dump(data, sort_keys=False, allow_unicode=True, width=100) if data else "[]\n"
    target.parent.mkdir(parents=True, exist_ok=True)
    target.write_text(HEADERS[str(scope)] + body, encoding="utf-8")
    print(f"wrote {len(data)} verdict(s) from {len(files)} file(s) to {target}", file=sys.stderr)
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    commands = parser.add_subparsers(dest="command", required=True)
    commands.add_parser(
        "fetch", help="download, check and unpack every pinned version of the corpus (once)"
    )
    commands.add_parser("where", help="print the corpus folder")
    measured = commands.add_parser("measure", help="each detector's figures on the judged slice")
    measured.add_argument(
        "--write", action="store_true", help="rewrite the `measured:` lines in rules/*.yaml"
    )
    gathered = commands.add_parser("gather", help="write a verdict file from these files")
    gathered.add_argument(
        "--scope",
        choices=("slice", "package"),
        default="slice",
        help="which verdict file: the judged slice's (default) or the whole package's",
    )
    gathered.add_argument("files", metavar="FILE", nargs="*", type=Path)
    args = parser.parse_args(argv)
    if args.command == "gather":
        return gather(args.files, package=args.scope == "package")
    if args.command == "fetch":
        fetch_all()
        return 0
    if args.command == "where":
        print(FOLDER)
        return 0
    return measure(write=args.write)


if __name__ == "__main__":
    sys.exit(main())
