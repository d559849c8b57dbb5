"""A project's library: which one a command reads (:mod:`.discover`: ``--rules``, the
``[tool.rlt-rules]`` table, ``rules/``, the packaged bundle) and its one check, the rule files
and the release history together (:mod:`.check`). Above :mod:`rlt_rules.releases` and
:mod:`rlt_rules.library`; every view starts here.
"""
