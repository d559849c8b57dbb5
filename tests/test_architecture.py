"""The package's shape: layers without cycles (import-linter), one job per module."""

from __future__ import annotations

import ast
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tools" / "rlt_rules"
#: Past this a module holds more than one job.
MAX_MODULE_LINES = 500


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_layer_contract_holds() -> None:
    """``[tool.importlinter]`` in pyproject.toml: lower layers never import higher ones, even
    indirectly or inside a function."""
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(linter), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    assert "1 kept, 0 broken" in result.stdout


def test_no_module_is_over_the_size_limit() -> None:
    long = {
        str(path.relative_to(PACKAGE)): count
        for path in _modules()
        if (count := len(path.read_text(encoding="utf-8").splitlines())) > MAX_MODULE_LINES
    }
    assert long == {}


def test_function_level_imports_are_of_other_packages_and_say_why() -> None:
    """A function-level import is for an optional or slow dependency, with its reason on the
    line above; one of this package's own modules is imported at the top (the layers allow it)."""
    found: list[str] = []
    for path in _modules():
        source = path.read_text(encoding="utf-8")
        lines = source.splitlines()
        tree = ast.parse(source)
        type_checking = {
            id(child)
            for node in ast.walk(tree)
            if isinstance(node, ast.If) and ast.unparse(node.test) == "TYPE_CHECKING"
            for child in ast.walk(node)
        }
        for function in ast.walk(tree):
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for node in ast.walk(function):
                if not isinstance(node, ast.Import | ast.ImportFrom) or id(node) in type_checking:
                    continue
                where = f"{path.relative_to(PACKAGE)}:{node.lineno}"
                own = isinstance(node, ast.ImportFrom) and (
                    node.level > 0 or (node.module or "").startswith("rlt_rules")
                )
                above = "\n".join(lines[max(0, node.lineno - 4) : node.lineno - 1])
                if own and "optional" not in above and "dev dependency" not in above:
                    found.append(f"{where}: imports this package inside a function")
                elif "#" not in above:
                    found.append(f"{where}: no comment says why it is imported here")
    assert found == []


#: Module-level memos allowed, each with why it holds no library data: the package's own JSON
#: Schema files (and their compiled validators and patterns) are fixed for the life of the
#: installed package.
MODULE_MEMOS_ALLOWED = {
    "schemas.py:load_schema",
    "schemas.py:validator_for",
    "schemas.py:bundle_validator",
    "schemas.py:checker",
    "schemas.py:pattern_validator",
}
_MEMO_DECORATORS = {"cache", "lru_cache", "functools.cache", "functools.lru_cache"}


def test_no_module_level_memo_of_library_data() -> None:
    """A memo of what is derived from a library lives on an object with the lifetime of what it
    remembers (the site's PageCache, a DetectorSet, a DocumentCache), never on a module: a
    module-level ``functools.cache``/``lru_cache`` keeps libraries alive after their build and
    is shared by every caller of the process."""
    found: list[str] = []
    for path in _modules():
        tree = ast.parse(path.read_text(encoding="utf-8"))
        for function in tree.body:  # module-level functions only: methods memoize per class
            if not isinstance(function, ast.FunctionDef | ast.AsyncFunctionDef):
                continue
            for decorator in function.decorator_list:
                target = decorator.func if isinstance(decorator, ast.Call) else decorator
                if ast.unparse(target) in _MEMO_DECORATORS:
                    where = f"{path.relative_to(PACKAGE).as_posix()}:{function.name}"
                    if where not in MODULE_MEMOS_ALLOWED:
                        found.append(f"{where} (line {function.lineno})")
    assert found == []
