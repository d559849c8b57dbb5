"""Where generated pages meet MkDocs' configuration: the navigation and "edit this page" links.

The category pages join ``mkdocs.yml``'s ``nav`` after ``rules/index.md``, the sample review
at its end; rule pages stay out of it (a thousand entries in every page's sidebar would make
the site grow with the square of the library).
"""

from __future__ import annotations

import html
import os
import posixpath
from pathlib import Path

from mkdocs.exceptions import PluginError

from ..library.model import Library
from . import learn
from .markup import INDEX_URI, category_uri
from .pages import REVIEW_TITLE, REVIEW_URI


def add_generated_pages_to_nav(nav: list, library: Library, *, with_sample_review: bool) -> None:
    """The category pages after ``rules/index.md`` and the sample review at the end (once)."""
    add_categories_to_nav(nav, library)
    if with_sample_review:
        entry = {REVIEW_TITLE: REVIEW_URI}
        if entry not in nav:
            nav.append(entry)


def add_categories_to_nav(nav: list, library: Library) -> None:
    """Insert the category pages after ``rules/index.md`` in its nav section (once), and the
    Learn path's lessons after ``learn/index.md`` (:func:`add_lessons_to_nav`)."""
    categories = [
        # Nav titles reach the HTML unescaped; a category title is plain text.
        {html.escape(category.title): category_uri(category.id)}
        for category in library.categories
    ]
    if not _insert_after(nav, INDEX_URI, categories):
        raise PluginError(
            f"mkdocs.yml: the nav must list {INDEX_URI}; the rlt-rules plugin adds the "
            "category pages after it"
        )
    add_lessons_to_nav(nav, library)


def add_lessons_to_nav(nav: list, library: Library) -> None:
    """Put each lesson followed by its practice, then the practice of every item, after
    ``learn/index.md`` in its nav section (once); a nav that does not list
    ``learn/index.md`` is left as it is."""
    entries = []
    for category in library.categories:
        # Nav titles reach the HTML unescaped; a category title is plain text. Each lesson's
        # practice follows it, so the footer's "Next" goes lesson → practice → next lesson.
        entries.append(
            {html.escape(learn.lesson_title(library, category)): learn.lesson_uri(category.id)}
        )
        entries.append(
            {html.escape(learn.practice_title(category)): learn.practice_uri(category.id)}
        )
    entries.append({learn.PRACTICE_ALL_TITLE: learn.PRACTICE_URI})
    _insert_after(nav, learn.LEARN_URI, entries)


def _insert_after(nav: list, target: str, entries: list[dict[str, str]]) -> bool:
    """Insert ``entries`` (``{title: uri}``) after ``target`` in the nav section listing it,
    leaving out those the section lists already; False when no section lists ``target``."""
    section = _nav_section_holding(nav, target)
    if section is None:
        return False
    listed = {_nav_target(item) for item in section}
    position = next(i for i, item in enumerate(section) if _nav_target(item) == target)
    additions = [entry for entry in entries if _nav_target(entry) not in listed]
    section[position + 1 : position + 1] = additions
    return True


def _nav_target(item: object) -> object:
    if isinstance(item, dict) and len(item) == 1:
        return next(iter(item.values()))
    return item


def _nav_section_holding(nav: list, target: str) -> list | None:
    for item in nav:
        value = _nav_target(item)
        if value == target:
            return nav
        if isinstance(value, list):
            found = _nav_section_holding(value, target)
            if found is not None:
                return found
    return None


class EditLinks:
    """Each generated page's source file as MkDocs' ``edit_uri`` wants it: relative to the docs
    dir (``../rules/R03.yaml``).

    ``edit_uri`` in mkdocs.yml points at the docs dir in the repository, so MkDocs joins this to
    the repository URL of the YAML file itself. Files outside the repository get no edit link.
    One per build: each folder is resolved once, not once per file.
    """

    def __init__(self, docs_dir: Path) -> None:
        self._docs_dir = docs_dir.resolve()
        #: Each source folder's path relative to the docs dir (None: outside the repository).
        self._folders: dict[str, str | None] = {}

    def edit_uri(self, source: str | None) -> str | None:
        if source is None:
            return None
        folder, name = os.path.split(source)
        if folder not in self._folders:
            resolved = Path(folder).resolve()
            inside = resolved.is_relative_to(self._docs_dir.parent)
            relative = posixpath.relpath(resolved.as_posix(), self._docs_dir.as_posix())
            self._folders[folder] = relative if inside else None
        relative = self._folders[folder]
        if relative is None:
            return None
        return name if relative == "." else f"{relative}/{name}"
