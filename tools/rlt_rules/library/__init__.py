"""The library as data: rule files read with their positions (:mod:`.load`), checked
(:mod:`.validate` runs every check: :mod:`.record_checks`, :mod:`.schema_errors`, :mod:`.pairs`,
:mod:`.text_links`, :mod:`.detector_checks`, :mod:`.detector_cost`) and built into the typed
model (:mod:`.model`); the ``rules.json`` bundle written (:mod:`.bundle`) and read back
(:mod:`.bundle_load`). A new check of the rule files goes here. Below it:
:mod:`rlt_rules.detectors`, :mod:`rlt_rules.facts`, :mod:`rlt_rules.files`. The wheel carries its
library as ``library/rules.json`` in this folder (:data:`rlt_rules.project.discover.PACKAGED`).
"""
