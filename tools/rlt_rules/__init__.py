"""rlt-rules: the Rlt Refactor rule library as validated data, and the tools around it."""

from .about import VERSION as __version__
from .bundle_load import load_bundle
from .model import (
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
from .project import ProjectCheck, check_project, load_library

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
