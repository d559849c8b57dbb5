"""The wheel's library: ``rules/`` exported as ``rlt_rules/library/rules.json`` and read back
before it is packed, so a wheel never carries an invalid library (the build fails with every
problem at its file, line and column). ``mkdocs.yml`` goes beside it, for the addresses of the
pages it links. An editable install reads the checkout's ``rules/`` instead
(:func:`rlt_rules.project.discover.packaged_library`)."""

from __future__ import annotations

import shutil
import sys
import tempfile
from pathlib import Path
from typing import Any

from hatchling.builders.hooks.plugin.interface import BuildHookInterface


class LibraryBundleHook(BuildHookInterface):
    PLUGIN_NAME = "custom"

    def initialize(self, version: str, build_data: dict[str, Any]) -> None:
        if self.target_name != "wheel" or version == "editable":
            return
        root = Path(self.root)
        sys.path.insert(0, str(root / "tools"))
        try:
            # The package being built, from its source tree: it is not installed here.
            from rlt_rules.facts.about import PACKAGED_VERSION
            from rlt_rules.library.model import LibraryError
            from rlt_rules.project.discover import PACKAGED, build_bundle
        finally:
            sys.path.remove(str(root / "tools"))
        self._folder = Path(tempfile.mkdtemp(prefix="rlt-rules-wheel-"))
        bundle = self._folder / PACKAGED.name
        try:
            build_bundle(root / "rules", bundle)
        except LibraryError as error:
            problems = "\n".join(str(diagnostic) for diagnostic in error.diagnostics)
            message = f"the library is invalid; the wheel is not built:\n{problems}"
            raise RuntimeError(message) from None
        build_data["force_include"][str(bundle)] = f"rlt_rules/{PACKAGED.as_posix()}"
        build_data["force_include"][str(root / "mkdocs.yml")] = (
            f"rlt_rules/{PACKAGED.parent.as_posix()}/mkdocs.yml"
        )
        # The version, read at start without importlib.metadata (rlt_rules.facts.about).
        version_file = self._folder / "VERSION"
        version_file.write_text(f"{self.metadata.version}\n", encoding="utf-8")
        build_data["force_include"][str(version_file)] = f"rlt_rules/{PACKAGED_VERSION.as_posix()}"

    def finalize(self, version: str, build_data: dict[str, Any], artifact_path: str) -> None:
        folder = getattr(self, "_folder", None)
        if folder is not None:
            shutil.rmtree(folder, ignore_errors=True)
