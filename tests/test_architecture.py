"""The package's shape: layers without cycles (import-linter), one job per module."""

from __future__ import annotations

import ast
import re
import subprocess
import sys
import tomllib
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PACKAGE = ROOT / "tools" / "rlt_rules"
#: Past this a module (or a script: the site's JavaScript, a benchmark, a tool) holds more than
#: one job.
MAX_MODULE_LINES = 450
#: The scripts held to the same limit.
SCRIPTS = ("site/js/**/*.js", "benchmarks/*.py", "tools/*.py", "*.py")


def _modules() -> list[Path]:
    return sorted(PACKAGE.rglob("*.py"))


def test_the_layer_contract_holds() -> None:
    """``[tool.importlinter]`` in pyproject.toml: lower layers never import higher ones, even
    indirectly or inside a function; scan, findings and the MCP server never import export."""
    linter = Path(sys.executable).parent / "lint-imports"
    result = subprocess.run(
        [str(linter), "--no-cache"], cwd=ROOT, capture_output=True, text=True, check=False
    )
    assert result.returncode == 0, result.stdout + result.stderr
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    contracts = config["tool"]["importlinter"]["contracts"]
    assert f"{len(contracts)} kept, 0 broken" in result.stdout


def test_no_module_or_script_is_over_the_size_limit() -> None:
    paths = [*_modules(), *(path for pattern in SCRIPTS for path in ROOT.glob(pattern))]
    assert len(paths) > len(_modules()) + 10  # the scripts were found
    long = {
        str(path.relative_to(ROOT)): count
        for path in paths
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
    "library/schemas.py:load_schema",
    "library/schemas.py:validator_for",
    "library/schemas.py:bundle_validator",
    "library/schemas.py:checker",
    "library/schemas.py:pattern_validator",
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


#: What only ``render/`` writes, by the module that owns it: a view asks it, never builds one.
_RENDER_OWNERS = {
    "fence or code span (backticks counted)": "render/code.py",
    "fenced block with an info string": "render/code.py",
    "SARIF $schema": "render/sarif.py",
    "YAML dump": "render/yaml_text.py",
}
_FENCE_WITH_INFO = re.compile(r"^(```|~~~)[A-Za-z]")
_YAML_DUMPS = {"yaml.dump", "yaml.safe_dump", "yaml.dump_all", "yaml.safe_dump_all"}


def _render_jobs(tree: ast.AST) -> list[tuple[int, str]]:
    """Where a module builds what :data:`_RENDER_OWNERS` names, as ``(line, what)``."""
    found: list[tuple[int, str]] = []
    for node in ast.walk(tree):
        if (
            isinstance(node, ast.BinOp)
            and isinstance(node.op, ast.Mult)
            and isinstance(node.left, ast.Constant)
            and node.left.value in ("`", "~")
        ):
            found.append((node.lineno, "fence or code span (backticks counted)"))
        elif isinstance(node, ast.Constant) and isinstance(node.value, str):
            if _FENCE_WITH_INFO.match(node.value):
                found.append((node.lineno, "fenced block with an info string"))
            if "sarif-schema" in node.value:
                found.append((node.lineno, "SARIF $schema"))
        elif isinstance(node, ast.Call) and ast.unparse(node.func) in _YAML_DUMPS:
            found.append((node.lineno, "YAML dump"))
    return found


def test_fences_sarif_logs_and_yaml_are_built_only_in_render() -> None:
    """One function fences code and one writes code spans for every view; one module writes
    the SARIF envelope, one dumps YAML (``render/``): no other module builds its own."""
    found: list[str] = []
    for path in _modules():
        where = path.relative_to(PACKAGE).as_posix()
        for line, what in _render_jobs(ast.parse(path.read_text(encoding="utf-8"))):
            if _RENDER_OWNERS[what] != where:
                found.append(f"{where}:{line}: {what} (belongs in {_RENDER_OWNERS[what]})")
    assert found == []
    # The check sees each thing it looks for.
    sample = 'fence = "`" * 4\nopen = "```sh"\nuri = "x/sarif-schema-2.1.0.json"\nyaml.dump(d)\n'
    assert {what for _, what in _render_jobs(ast.parse(sample))} == set(_RENDER_OWNERS)


#: What ``import rlt_rules`` offers users (README "Use it from Python"): exactly these names.
PUBLIC_API = {
    "Category",
    "Diagnostic",
    "Example",
    "ExampleKind",
    "Library",
    "LibraryError",
    "ProjectCheck",
    "Rule",
    "Severity",
    "SourceRef",
    "Status",
    "__version__",
    "check_project",
    "load_bundle",
    "load_library",
}


def test_the_public_api_is_the_documented_names() -> None:
    """The documented imports work from the package root, and the root exports nothing else."""
    import rlt_rules
    from rlt_rules import Library, Rule, load_bundle, load_library

    assert set(rlt_rules.__all__) == PUBLIC_API
    assert all(getattr(rlt_rules, name, None) is not None for name in PUBLIC_API)
    library = load_library(ROOT / "rules")
    assert isinstance(library, Library)
    assert all(isinstance(rule, Rule) for rule in library.rules)
    assert callable(load_bundle)


def test_the_root_holds_the_entry_the_api_and_packages() -> None:
    """Every module but the entry points lives in a package named for its layer."""
    modules = sorted(path.name for path in PACKAGE.glob("*.py"))
    assert modules == ["__init__.py", "__main__.py", "cli.py"]
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    layers = config["tool"]["importlinter"]["contracts"][0]["layers"]
    named = {name.strip() for layer in layers for name in layer.split("|")}
    packages = {path.parent.name for path in PACKAGE.glob("*/__init__.py")}
    assert packages <= named, f"packages outside the layer contract: {packages - named}"
