"""How library text reaches every view: the layer below the site, scan, findings and exports.

One owner for each way text is written out, so a view never assembles its own:

* :mod:`.inert`: library text made inert for Markdown renderers (no live HTML, no script link);
* :mod:`.text`: plain-text helpers (headings, first sentences, control characters as escapes);
* :mod:`.code`: the one fenced code block and the one code span;
* :mod:`.links`: the site's base URL and each rule's page;
* :mod:`.markdown`: a rule and the library as Markdown blocks;
* :mod:`.sarif`: the SARIF 2.1.0 envelope, artifact locations, rule and detector descriptors;
* :mod:`.yaml_text`: YAML with multi-line text as literal blocks.

It imports only the typed library below it, never a view.
"""
