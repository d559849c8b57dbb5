"""How library text reaches every view: the layer below the site, scan, findings and exports.

One owner for each way text is written out, so a view never assembles its own:

* :mod:`.inert`: library text made inert for Markdown renderers (no live HTML, no script link);
* :mod:`.text`: plain-text helpers (headings, first sentences, control characters as escapes);
* :mod:`.code`: the one fenced code block and the one code span;
* :mod:`.links`: the site's base URL and each rule's page;
* :mod:`.markdown`: a rule and the library as Markdown blocks;
* :mod:`.sarif`: the SARIF 2.1.0 envelope, artifact locations, rule and detector descriptors;
* :mod:`.yaml_text`: YAML with multi-line text as literal blocks;
* :mod:`.digest`, :mod:`.levels`: the rules as a reviewer's instructions, at the detail that
  fits a budget (the AI reviewers' files, ``review-context``, the MCP server);
* :mod:`.answer`: the findings format a reviewer answers in, as instructions.

It imports only the typed library below it, never a view.
"""
