"""rlt-rules: the Rlt Refactor rule library as validated data, and the tools around it."""

from .facts.about import VERSION as __version__
from .library.bundle_load import load_bundle
from .library.model import (
    Category,
    Diagnostic,
    Example,
    ExampleKind,
    Library,
    LibraryError,
    Rule,
    Severity,
    SourceRef,
    Status,
)
from .project.check import ProjectCheck, check_project, load_library

__all__ = [
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
    "load_bundle",
    "load_library",
    "check_project",
]
