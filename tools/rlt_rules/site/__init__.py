"""The reference site: Markdown pages generated from the typed
:class:`~rlt_rules.library.model.Library`.

:mod:`.plugin` is the MkDocs plugin (``plugins: [rlt-rules]``): it loads the library once per
build, adds the generated pages (:mod:`.pages` lists every generator: :mod:`.rule_page`,
:mod:`.listing`, :mod:`.reference`, ...) and the tags (:mod:`.tags`), and publishes the exports
of :func:`rlt_rules.export.site_files` next to them; :mod:`.preview` makes ``mkdocs serve
--dirty`` render only what an edit changed.
"""

#: Environment variable naming the rules directory the site is built from (tests, previews);
#: unset, it is the plugin's ``rules_dir`` option (default ``rules/``) next to ``mkdocs.yml``.
RULES_DIR_ENV = "RLT_RULES_DIR"
