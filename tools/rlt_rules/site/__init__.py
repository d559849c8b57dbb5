"""The reference site: Markdown pages generated from the typed :class:`~rlt_rules.model.Library`.

:mod:`.pages` turns the model (and the JSON schemas) into Markdown; :mod:`.hook` is the MkDocs
hook (``hooks:`` in ``mkdocs.yml``) that loads the library once per build, adds those pages to
the build, and publishes the exports of :func:`rlt_rules.export.site_files` next to them.
"""

#: Environment variable naming the rules directory the site is built from (tests, previews);
#: unset, it is :data:`rlt_rules.project.DEFAULT_RULES_DIR` next to ``mkdocs.yml``.
RULES_DIR_ENV = "RLT_RULES_DIR"
