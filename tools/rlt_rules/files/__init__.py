"""Bounded reading and safe writing, and other jobs that know nothing of rules: atomic writes
(:mod:`.atomic`) into folders rlt-rules owns (:mod:`.owned`), bounded reads (:mod:`.reading`,
:mod:`.bounds`), the ``[tool.rlt-rules]`` table (:mod:`.config`), globs, web URLs, unified diffs
and ``git diff``, a program's comments, exact JSON output, the memo of a long process and the
user's cache folder (:mod:`.cache`).
The bottom layer: imports nothing else of rlt_rules.
"""
